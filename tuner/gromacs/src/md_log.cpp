// Reads md.log line by line, keying on the phrases GROMACS has printed since 2019.
#include "mdtune/gromacs/md_log.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace mdtune::gromacs {
namespace {

constexpr std::size_t kMaxLineBytes = 64u << 10;

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

std::vector<std::string_view> words(std::string_view s) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) ++i;
        const std::size_t b = i;
        while (i < s.size() && s[i] != ' ' && s[i] != '\t' && s[i] != '\r') ++i;
        if (i > b) out.push_back(s.substr(b, i - b));
    }
    return out;
}

// A whole word as a finite number (strtod on a bounded copy: from_chars for doubles
// is fine in g++ 12, but this keeps "1e-05" and "inf" handling explicit).
std::optional<double> number(std::string_view w) {
    if (w.empty() || w.size() > 64) return std::nullopt;
    const std::string copy(w);
    char* end = nullptr;
    const double v = std::strtod(copy.c_str(), &end);
    if (end != copy.c_str() + copy.size() || !std::isfinite(v)) return std::nullopt;
    return v;
}

std::optional<long> integer(std::string_view w) {
    long v = 0;
    const auto [p, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
    if (ec != std::errc() || p != w.data() + w.size()) return std::nullopt;
    return v;
}

// A time or a speed: a negative one is no reading at all.
double non_negative(std::optional<double> v) { return v && *v > 0 ? *v : 0.0; }

int small_count(std::optional<long> v) { return v && *v >= 0 && *v <= 10'000'000 ? static_cast<int>(*v) : 0; }

// The number after `key` in `line` ("rlist 1.098 nm" with key "rlist").
std::optional<double> number_after(std::string_view line, std::string_view key) {
    const auto w = words(line);
    for (std::size_t i = 0; i + 1 < w.size(); ++i) {
        std::string_view k = w[i];
        if (k == key) {
            std::string_view v = w[i + 1];
            if (!v.empty() && v.back() == ',') v.remove_suffix(1);
            return number(v);
        }
    }
    return std::nullopt;
}

// "Computing: ..." table rows: a name of one or more words, then 6 numbers
// (ranks, threads, calls, wall s, giga-cycles, %) or 3 (wall s, giga-cycles, %).
std::optional<CycleRow> cycle_row(std::string_view line, bool breakdown) {
    const auto w = words(line);
    std::size_t numeric = 0;
    while (numeric < w.size() && number(w[w.size() - 1 - numeric])) ++numeric;
    if (numeric < 3 || numeric == w.size()) return std::nullopt;
    const std::size_t used = numeric >= 6 ? 6 : 3;
    CycleRow row;
    row.pme_breakdown = breakdown;
    const std::size_t name_words = w.size() - numeric;
    // Extra numbers beyond the ones used belong to the name ("PME 3D-FFT" has none; be safe).
    std::string name;
    for (std::size_t i = 0; i < name_words + (numeric - used); ++i) {
        if (w[i] == "*") continue;
        if (!name.empty()) name += ' ';
        name += w[i];
    }
    if (!name.empty() && name.back() == '*') name.pop_back();
    while (!name.empty() && name.back() == ' ') name.pop_back();
    if (name.empty()) return std::nullopt;
    row.task = name;
    const std::size_t first = w.size() - used;
    if (used == 6) {
        row.ranks = small_count(integer(w[first]));
        row.threads = small_count(integer(w[first + 1]));
        const auto calls = integer(w[first + 2]);
        row.calls = calls && *calls >= 0 ? *calls : 0;
    }
    row.wall_s = *number(w[w.size() - 3]);
    row.giga_cycles = *number(w[w.size() - 2]);
    row.percent = *number(w[w.size() - 1]);
    return row;
}

void read_pairlist_line(std::string_view t, MdLog& log, bool& have_outer, bool& have_inner) {
    // "outer list: updated every 40 steps, buffer 0.098 nm, rlist 1.098 nm"; the
    // first pair only (a second pair describes an equivalent 1x1 list).
    const bool outer = starts_with(t, "outer list:") || (starts_with(t, "updated every") && !have_outer);
    const bool inner = starts_with(t, "inner list:");
    if (outer && !have_outer) {
        if (const auto r = number_after(t, "rlist")) log.rlist = *r;
        have_outer = true;
    } else if (inner && !have_inner) {
        if (const auto r = number_after(t, "rlist")) log.rlist_inner = *r;
        if (const auto n = number_after(t, "every")) log.prune_interval = static_cast<int>(*n);
        have_inner = true;
    }
}

// GROMACS prints energy names in 15-character columns ("   Conserved En.").
std::vector<std::string> energy_names(std::string_view raw) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < raw.size(); i += 15) out.emplace_back(trim(raw.substr(i, 15)));
    while (!out.empty() && out.back().empty()) out.pop_back();
    return out;
}

}  // namespace

std::string MdLog::parameter(const std::string& name) const {
    const auto it = parameters.find(name);
    return it == parameters.end() ? std::string() : it->second;
}

long MdLog::timed_steps() const {
    const auto dt = number(parameter("dt"));
    if (!dt || *dt <= 0 || ns_per_day <= 0 || wall_s <= 0) return 0;
    // ns/day = steps x dt[ps] x 1e-3 / wall x 86400
    const double steps = ns_per_day * wall_s / (86400.0 * *dt * 1e-3);
    return std::isfinite(steps) && steps < 1e15 ? std::lround(steps) : 0;  // beyond any run: no reading
}

FatalError find_fatal_error(std::string_view text) {
    FatalError out;
    const std::size_t at = text.find("Fatal error:");
    if (at == std::string_view::npos) return out;
    // The source line sits a few lines above, inside the same dashed block.
    const std::size_t block = text.rfind("-------------------------------------------------------", at);
    const std::size_t src = text.find("Source file:", block == std::string_view::npos ? 0 : block);
    if (src != std::string_view::npos && src < at) {
        const std::size_t eol = text.find('\n', src);
        out.source = std::string(trim(text.substr(src + 12, eol == std::string_view::npos ? eol : eol - src - 12)));
    }
    std::size_t pos = text.find('\n', at);
    std::string message;
    while (pos != std::string_view::npos && pos + 1 < text.size() && message.size() < 4096) {
        const std::size_t eol = text.find('\n', pos + 1);
        const std::string_view line = trim(text.substr(pos + 1, eol == std::string_view::npos ? eol : eol - pos - 1));
        pos = eol;
        if (line.empty()) {
            if (message.empty()) continue;
            break;
        }
        if (starts_with(line, "For more information") || starts_with(line, "-----")) break;
        // Another rank's header interleaved into an MPI run's stderr.
        if (starts_with(line, "MPI rank:") || starts_with(line, "Program:") || starts_with(line, "Source file:")) continue;
        if (!message.empty()) message += ' ';
        message += line;
    }
    out.message = message.substr(0, 4096);
    return out;
}

std::string infeasibility_reason(std::string_view m) {
    auto has = [&](std::string_view s) { return m.find(s) != std::string_view::npos; };
    if (has("There is no domain decomposition for")) return "no domain decomposition grid fits these ranks in this box";
    if (has("large prime factor")) return "the particle-particle rank count has a large prime factor";
    if (has("does not match the number of PP ranks")) return "the dd grid does not match the particle-particle ranks";
    if (has("separate PME ranks") && (has("Cannot have") || has("cannot") || has("more")))
        return "the PME rank count does not fit the ranks";
    if (has("OMP_NUM_THREADS")) return "OMP_NUM_THREADS differs from the threads asked for";
    if (has("smaller than the cell size limit") || has("is smaller than the minimum"))
        return "the domain cells are smaller than the minimum cell size";
    if (has("GPU") && (has("not compiled") || has("no GPU") || has("No GPU") || has("compatible GPU") ||
                       has("GPU support") || has("not detected") || has("GPUs were detected")))
        return "no usable GPU for the GPU tasks asked for";
    if (has("update") && has("GPU") && has("not supported")) return "the update cannot run on the GPU for this system";
    return {};
}

MdLog parse_md_log(std::string_view text) {
    MdLog log;
    enum class Section { Header, Parameters, Run, Cycles };
    Section section = Section::Header;
    bool breakdown = false, other_table = false, have_outer = false, have_inner = false;
    int initial_nstlist = 0, changed_nstlist = 0;
    // Energy blocks: a "Step Time" header, its values, then name / value line pairs.
    enum class Energy { None, StepValues, Names, Values };
    Energy energy = Energy::None;
    std::vector<std::string> names;
    bool averages = false;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t eol = text.find('\n', pos);
        if (eol == std::string_view::npos) eol = text.size();
        const std::string_view raw = text.substr(pos, eol - pos);
        pos = eol + 1;
        if (raw.size() > kMaxLineBytes) continue;
        const std::string_view t = trim(raw);

        if (section == Section::Cycles) {
            if (starts_with(t, "Breakdown of PME mesh")) {
                breakdown = true;
                continue;
            }
            // GPU and load-balance tables follow the accounting: not task rows.
            if (starts_with(t, "GPU timings") || starts_with(t, "Average per-step") || starts_with(t, "Dynamic load") ||
                starts_with(t, "NOTE"))
                other_table = true;
            if (other_table || starts_with(t, "Computing:") || starts_with(t, "-----")) continue;
            if (starts_with(t, "Time:")) {
                const auto w = words(t);
                if (w.size() >= 3) {
                    log.core_s = non_negative(number(w[1]));
                    log.wall_s = non_negative(number(w[2]));
                }
                section = Section::Run;
                continue;
            }
            if (!t.empty() && t.front() != '(' && !starts_with(t, "On ") && !starts_with(t, "Ranks") &&
                !starts_with(t, "twice") && !starts_with(t, "but the"))
                if (auto row = cycle_row(t, breakdown)) log.cycles.push_back(std::move(*row));
            continue;
        }

        if (!averages && t == "Step           Time") {
            energy = Energy::StepValues;
            continue;
        }
        if (!averages && energy != Energy::None) {
            if (energy == Energy::StepValues) {
                const auto w = words(t);
                if (w.size() == 2 && integer(w[0]) && number(w[1])) {
                    log.frames.push_back(EnergyFrame{*integer(w[0]), *number(w[1]), {}});
                    energy = Energy::Names;
                } else {
                    energy = Energy::None;
                }
                continue;
            }
            if (t.empty() || t == "Energies (kJ/mol)") continue;
            if (energy == Energy::Names) {
                names = energy_names(raw);
                energy = names.empty() ? Energy::None : Energy::Values;
                if (energy == Energy::Values) continue;
            } else {
                const auto w = words(t);
                if (w.size() == names.size() && std::all_of(w.begin(), w.end(), [](auto x) { return number(x).has_value(); })) {
                    for (std::size_t i = 0; i < w.size(); ++i) log.frames.back().terms[names[i]] = *number(w[i]);
                    energy = Energy::Names;
                    continue;
                }
                energy = Energy::None;  // the block ended: read the line as any other
            }
        }
        if (t.find("A V E R A G E S") != std::string_view::npos) averages = true;

        if (starts_with(t, "GROMACS:") && t.find("version ") != std::string_view::npos && log.version.empty()) {
            log.version = std::string(trim(t.substr(t.find("version ") + 8)));
        } else if (starts_with(t, "GROMACS version:") && log.version.empty()) {
            log.version = std::string(trim(t.substr(16)));
        } else if (t == "Input Parameters:") {
            section = Section::Parameters;
        } else if (section == Section::Parameters && raw.size() > 3 && raw[0] == ' ' && t.find(" = ") != std::string_view::npos) {
            const std::size_t eq = t.find(" = ");
            const std::string key(trim(t.substr(0, eq)));
            if (key.find(' ') == std::string::npos && !log.parameters.count(key))
                log.parameters.emplace(key, std::string(trim(t.substr(eq + 3))));
        } else if (starts_with(t, "Changing ")) {
            log.changes.emplace_back(t);
            if (starts_with(t, "Changing nstlist from ")) {
                const auto w = words(t);
                if (w.size() >= 6) {
                    std::string_view to = w[5];
                    if (!to.empty() && to.back() == ',') to.remove_suffix(1);
                    changed_nstlist = small_count(integer(to));
                }
            }
            section = Section::Run;
        } else if (starts_with(t, "There are:") && t.find("Atoms") != std::string_view::npos) {
            const auto w = words(t);
            if (w.size() >= 3) log.natoms = integer(w[2]).value_or(0);
        } else if (starts_with(t, "Using ") && t.find(" nonbonded short-range kernels") != std::string_view::npos) {
            log.kernel = std::string(t.substr(6, t.find(" nonbonded short-range kernels") - 6));
        } else if (starts_with(t, "Using ") && t.find(" OpenMP thread") != std::string_view::npos) {
            const auto w = words(t);
            if (w.size() >= 2 && !log.omp_threads) log.omp_threads = small_count(integer(w[1]));
        } else if (starts_with(t, "Using ") && (t.find(" MPI thread") != std::string_view::npos ||
                                                t.find(" MPI process") != std::string_view::npos)) {
            const auto w = words(t);
            if (w.size() >= 2) log.mpi_ranks = small_count(integer(w[1]));
        } else if (starts_with(t, "Domain decomposition grid ")) {
            const auto w = words(t);  // Domain decomposition grid 2 x 1 x 1, separate PME ranks 0
            if (w.size() >= 8) {
                std::string_view z = w[7];
                if (!z.empty() && z.back() == ',') z.remove_suffix(1);
                log.dd = {small_count(integer(w[3])), small_count(integer(w[5])), small_count(integer(z))};
            }
            if (const auto k = number_after(t, "ranks")) log.pme_ranks = static_cast<int>(*k);
        } else if (starts_with(t, "outer list:") || starts_with(t, "inner list:") || starts_with(t, "updated every")) {
            read_pairlist_line(t, log, have_outer, have_inner);
        } else if (starts_with(t, "Conserved energy drift:")) {
            const auto w = words(t);
            if (w.size() >= 4) log.drift = number(w[3]);
        } else if (t.find("R E A L   C Y C L E   A N D   T I M E") != std::string_view::npos) {
            section = Section::Cycles;
            breakdown = false;
            other_table = false;
        } else if (starts_with(t, "Performance:")) {
            const auto w = words(t);
            if (w.size() >= 2) log.ns_per_day = non_negative(number(w[1]));
        } else if (starts_with(t, "Finished mdrun")) {
            log.finished = true;
        } else if (!raw.empty() && raw[0] != ' ' && raw.back() != ':' && section == Section::Parameters) {
            // The dump's own headings ("qm-opts:", "grpopts:") end with ':'; anything else ends it.
            section = Section::Run;
        }
    }
    initial_nstlist = small_count(integer(log.parameter("nstlist")));
    log.nstlist = changed_nstlist ? changed_nstlist : initial_nstlist;
    if (log.rlist_inner == 0) log.rlist_inner = log.rlist;
    const FatalError fatal = find_fatal_error(text);
    log.fatal_error = fatal.message;
    log.fatal_source = fatal.source;
    return log;
}

}  // namespace mdtune::gromacs
