// Each target calls one parser in-process and classifies the outcome: a rejection
// must be the parser's own exception with a message naming the input; an accepted
// input must satisfy what the format demands (checked independently of the parser
// where the format allows: JSON syntax, round trips, value ranges).
#include "targets.h"

#include <cmath>
#include <fstream>
#include <sstream>
#include <nlohmann/json.hpp>
#include <typeinfo>

#include "io/gromacs_io.h"
#include "io/mdp_reader.h"
#include "mdtune/bench/gbench_json.h"
#include "mdtune/gromacs/log_report.h"
#include "mdtune/gromacs/md_log.h"
#include "mdtune/mpi/rules_file.h"
#include "mdtune/tuner/space.h"

namespace mdtest::fuzz {
namespace {

CaseResult garbage(const std::string& why) { return {Verdict::Garbage, why}; }

// Runs `parse`, which returns "" when the accepted result is fine or why it is not.
// A rejection must name one of `sources` (the .top reader may blame the .gro).
template <class TypedError, class Parse>
CaseResult classify(const std::vector<std::string>& sources, Parse&& parse) {
    try {
        const std::string wrong = parse();
        return wrong.empty() ? CaseResult{} : garbage(wrong);
    } catch (const TypedError& e) {
        const std::string what = e.what();
        for (const std::string& source : sources)
            if (what.find(source) != std::string::npos) return {Verdict::Rejected, ""};
        return {Verdict::Untyped, "message without '" + sources.front() + "': " + what};
    } catch (const std::exception& e) {
        return {Verdict::Untyped, std::string(typeid(e).name()) + ": " + e.what()};
    } catch (...) {
        return {Verdict::Untyped, "an exception that is not a std::exception"};
    }
}

bool finite(const mdcore::Vec3& v) { return std::isfinite(v[0]) && std::isfinite(v[1]) && std::isfinite(v[2]); }

std::string check_gro(const mdcore::GroFile& g) {
    const std::size_t n = g.positions.size();
    if (g.atom_name.size() != n || g.residue_name.size() != n || g.residue_number.size() != n)
        return "per-atom fields of different lengths";
    if (!g.velocities.empty() && g.velocities.size() != n) return "velocities for only some atoms";
    return "";
}

std::string check_system(const mdcore::System& s) {
    const std::size_t n = s.positions.size();
    if (s.charge.size() != n || s.mass.size() != n || s.type.size() != n) return "per-atom fields of different lengths";
    for (std::size_t i = 0; i < n; ++i) {
        if (s.type[i] < 0 || static_cast<std::size_t>(s.type[i]) >= s.atom_types.size()) return "atom type out of range";
        if (!std::isfinite(s.charge[i]) || !std::isfinite(s.mass[i])) return "non-finite charge or mass accepted";
    }
    for (const mdcore::Settle& st : s.settles)
        for (int a : {st.o, st.h1, st.h2})
            if (a < 0 || static_cast<std::size_t>(a) >= n) return "settle atom out of range";
    for (const auto& ex : s.exclusions)
        for (int a : ex)
            if (a < 0 || static_cast<std::size_t>(a) >= n) return "exclusion out of range";
    const auto in_range = [n](const auto& terms) {
        for (const auto& t : terms)
            for (int a : t.atoms)
                if (a < 0 || static_cast<std::size_t>(a) >= n) return false;
        return true;
    };
    const mdcore::BondedInteractions& b = s.bonded;
    if (!in_range(b.bonds) || !in_range(b.g96_bonds) || !in_range(b.angles) || !in_range(b.g96_angles) ||
        !in_range(b.urey_bradley) || !in_range(b.proper_dihedrals) || !in_range(b.periodic_impropers) ||
        !in_range(b.impropers) || !in_range(b.rb_dihedrals) || !in_range(b.pairs) || !in_range(b.cmap) ||
        !in_range(b.constraints))
        return "bonded atom out of range";
    for (const mdcore::CmapTorsion& c : b.cmap)
        if (c.grid < 0 || static_cast<std::size_t>(c.grid) >= b.cmap_grids.size()) return "cmap grid out of range";
    return "";
}

std::string check_space(const mdtune::tuner::SearchSpace& s) {
    if (s.systems.empty()) return "no systems";
    const mdtune::MeasureSettings& m = s.measure;
    if (m.steps < 1 || m.steps > 1'000'000'000 || m.warmup < 0 || m.warmup >= m.steps) return "steps/warmup out of range";
    if (m.repeats < 1 || m.repeats > 1000) return "repeats out of range";
    if (!(m.timeout_s > 0) || !std::isfinite(m.timeout_s)) return "timeout_s not a positive finite number";
    for (const auto& sys : s.systems)
        if (sys.natoms < 1 || sys.natoms > 100'000'000) return "natoms out of range";
    for (const auto& [param, values] : s.dims) {
        if (values.empty()) return "a parameter without values";
        for (const auto& v : values)
            if (const double* d = std::get_if<double>(&v); d && !(std::isfinite(*d) && *d > 0))
                return "a non-finite or non-positive real value";
    }
    return "";
}

// Google Benchmark's bare NaN / Infinity outside strings -> null, written here
// independently of the ingest's own sanitizer, so JSON syntax is judged by
// nlohmann's acceptor alone.
std::string strict_json_of(const std::string& in) {
    std::string out;
    bool in_string = false;
    for (std::size_t i = 0; i < in.size(); ++i) {
        if (in_string) {
            out += in[i];
            if (in[i] == '\\' && i + 1 < in.size()) out += in[++i];
            else if (in[i] == '"') in_string = false;
            continue;
        }
        in_string = in[i] == '"';
        bool replaced = false;
        for (const char* tok : {"-Infinity", "Infinity", "-NaN", "NaN"}) {
            const std::size_t len = std::char_traits<char>::length(tok);
            if (in.compare(i, len, tok) == 0) {
                out += "null";
                i += len - 1;
                replaced = true;
                break;
            }
        }
        if (!replaced) out += in[i];
    }
    return out;
}

std::string check_gbench(const std::string& input, const mdtune::bench::GbenchReport& r) {
    if (!nlohmann::json::accept(strict_json_of(input))) return "not JSON, but accepted";
    for (const auto& run : r.runs) {
        if (run.name.empty() || run.name.find('\0') != std::string::npos) return "empty name or a NUL in it";
        if (run.type == mdtune::bench::RunType::Iteration && !run.error &&
            !(std::isfinite(run.real_time) && run.real_time >= 0 && run.iterations > 0))
            return "an iteration run without a finite time";
    }
    // What was accepted must survive writing and reading back.
    const auto again = mdtune::bench::parse_gbench_json(mdtune::bench::to_gbench_json(r), "roundtrip.json");
    if (again.runs.size() != r.runs.size()) return "a different number of runs after a round trip";
    return "";
}

std::string check_rules(const std::string& input, const mdtune::mpi::RulesFile& r) {
    // Independently of the parser: Open MPI's grammar is decimal numbers and # comments.
    std::istringstream lines(input);
    for (std::string line; std::getline(lines, line);) {
        std::istringstream words(line.substr(0, line.find('#')));
        for (std::string w; words >> w;)
            if (w.find_first_not_of("0123456789") != std::string::npos) return "non-numeric word '" + w + "' accepted";
    }
    mdtune::mpi::validate(r);
    const auto again = mdtune::mpi::parse_rules(mdtune::mpi::write_rules(r), "roundtrip.rules");
    if (!(again.collectives == r.collectives)) return "different rules after a round trip";
    return "";
}

// An accepted .mdp, judged from its text where the format allows: every line is
// blank, a comment or key = value, and what was mapped is in mdcore's ranges and
// names a line of the input.
std::string check_mdp(const std::string& input, const mdcore::MdpSettings& m) {
    std::istringstream lines(input);
    int count = 0;
    for (std::string line; std::getline(lines, line);) {
        ++count;
        const std::string content = line.substr(0, line.find(';'));
        if (content.find_first_not_of(" \t\r\v\f") != std::string::npos && content.find('=') == std::string::npos)
            return "line " + std::to_string(count) + " without '=' accepted";
    }
    bool bad_line = false;
    const auto line_of = [&](const auto& v) {
        if (v && (v->line < 1 || v->line > count)) bad_line = true;
    };
    line_of(m.dt), line_of(m.rc), line_of(m.steps), line_of(m.pme_grid), line_of(m.pme_order), line_of(m.temperature);
    if (bad_line) return "a value from a line the input does not have";
    if (m.dt && !(m.dt->value > 0 && m.dt->value <= 0.01)) return "dt out of range accepted";
    if (m.rc && !(m.rc->value > 0 && std::isfinite(m.rc->value))) return "a non-positive cut-off accepted";
    if (m.steps && m.steps->value < 0) return "negative nsteps accepted";
    if (m.pme_order && (m.pme_order->value < 4 || m.pme_order->value > 6)) return "a PME order mdcore lacks accepted";
    if (m.pme_grid)
        for (int n : m.pme_grid->value)
            if (n <= 0) return "a PME grid size <= 0 accepted";
    if (m.temperature && !(m.temperature->value > 0)) return "a non-positive ref-t accepted";
    if (m.tau_t && !(m.tau_t->value > 0)) return "a non-positive tau-t accepted";
    for (const auto& [name, value] : m.defines)
        if (name.empty()) return "a define without a name accepted";
    return "";
}

std::vector<std::string> words(std::initializer_list<const char*> list) { return {list.begin(), list.end()}; }

}  // namespace

Target gro_target(const std::string& corpus) {
    Target t{"gro", ".gro", {load_corpus(corpus + "/gro"), words({" ", "\n", "SOL", "OW", "-", ".", "    1", "1e999", "nan"}), ""},
             nullptr};
    t.run = [](const std::string& input) {
        return classify<mdcore::InputError>({"fuzz.gro"},
                                            [&] { return check_gro(mdcore::parse_gro_text(input, "fuzz.gro")); });
    };
    return t;
}

Target top_target(const std::string& corpus, const std::string& scratch) {
    Target t{"top", ".top",
             {load_corpus(corpus + "/top"),
              words({"[ defaults ]\n", "[ atomtypes ]\n", "[ moleculetype ]\n", "[ atoms ]\n", "[ settles ]\n",
                     "[ exclusions ]\n", "[ system ]\n", "[ molecules ]\n", "[ bonds ]\n", "[ angles ]\n",
                     "[ dihedrals ]\n", "[ pairs ]\n", "[ bondtypes ]\n", "[ dihedraltypes ]\n", "[ cmap ]\n",
                     "[ cmaptypes ]\n", "[ constraints ]\n", "#include \"fuzz.top\"\n", "#undef A\n", "#else\n", "X",
                     "#include \"x.itp\"\n", "#define A\n", "#ifdef A\n", "#endif\n", "\\\n", ";", "SOL", "OW", "HW"}),
              "[ "},
             nullptr};
    const std::string gro = corpus + "/gro/two_water.gro";
    const std::string top = scratch + "/fuzz.top";
    t.run = [gro, top](const std::string& input) {
        std::ofstream(top, std::ios::binary | std::ios::trunc) << input;
        return classify<mdcore::InputError>({"fuzz.top", gro},
                                            [&] { return check_system(mdcore::read_gromacs_system(gro, top)); });
    };
    return t;
}

Target toml_space_target(const std::string& corpus) {
    Target t{"toml", ".toml",
             {load_corpus(corpus + "/toml"),
              words({"[system]\n", "[space]\n", "[measure]\n", "[[space]]\n", "kind = \"water\"\n", "natoms = ",
                     "steps = ", "warmup = ", "repeats = ", "timeout_s = ", "nstlist = [", "cluster = [\"4x4\"]\n",
                     "threads = ", "= ", "\"\"\"", "'", "{ a = 1 }", "inf", "nan", "1979-05-27T07:32:00Z", "0x7f",
                     "\\u0000", "\n"}),
              "["},
             nullptr};
    t.run = [](const std::string& input) {
        return classify<mdtune::tuner::SpaceError>({"fuzz.toml"},
                                            [&] { return check_space(mdtune::tuner::parse_space(input, "fuzz.toml")); });
    };
    return t;
}

Target gbench_json_target(const std::string& corpus) {
    Target t{"gbench", ".json",
             {load_corpus(corpus + "/gbench"),
              words({"{", "}", "[", "]", ",", ":", "\"name\": ", "\"iterations\": ", "\"real_time\": ", "\"context\": ",
                     "\"benchmarks\": ", "\"repetition_index\": ", "\"run_type\": \"aggregate\"", "null", "true",
                     "NaN", "-Infinity", "\"\\u0000\"", "\"\\ud800\"", "1e999", "18446744073709551615"}),
              "{\"a\": ["},
             nullptr};
    t.run = [](const std::string& input) {
        return classify<mdtune::bench::GbenchError>(
            {"fuzz.json"}, [&] { return check_gbench(input, mdtune::bench::parse_gbench_json(input, "fuzz.json")); });
    };
    return t;
}

Target mpi_rules_target(const std::string& corpus) {
    Target t{"rules", ".rules",
             {load_corpus(corpus + "/rules"), words({"#", "\n", " ", "0", "00", "-1", "0x10", "+3", "# comment\n"}), ""},
             nullptr};
    t.run = [](const std::string& input) {
        return classify<mdtune::mpi::RulesError>(
            {"fuzz.rules"}, [&] { return check_rules(input, mdtune::mpi::parse_rules(input, "fuzz.rules")); });
    };
    return t;
}

Target mdp_target(const std::string& corpus) {
    Target t{"mdp", ".mdp",
             {load_corpus(corpus + "/mdp"),
              words({"=", ";", "\n", " ", "-", "_", "dt", "nsteps = ", "rcoulomb = ", "rvdw = ", "pcoupl = C-rescale\n",
                     "tcoupl = V-rescale\n", "tc-grps = System\n", "tc-grps = A B\n", "tau-t = ", "ref-t = ",
                     "fourier-nx = ", "fourier_ny = ", "pme-order = ", "define = -D", "include = -I", "-DX=1", "yes",
                     "no", "Potential-shift", "nstlog = 10\n", "unknown-key = 1\n", "1e999", "nan", "-1"}),
              ""},
             nullptr};
    t.run = [](const std::string& input) {
        return classify<mdcore::InputError>(
            {"fuzz.mdp"}, [&] { return check_mdp(input, mdcore::parse_mdp_text(input, "fuzz.mdp")); });
    };
    return t;
}

namespace {

// What an md.log may yield: finite numbers, counts that are not negative, and a
// report (when the log has a speed) with a positive, finite time per step.
std::string check_md_log(const mdtune::gromacs::MdLog& log) {
    if (!std::isfinite(log.ns_per_day) || !std::isfinite(log.wall_s) || !std::isfinite(log.core_s))
        return "non-finite speed or time";
    if (log.ns_per_day < 0 || log.timed_steps() < 0) return "negative speed or step count";
    for (const auto& row : log.cycles)
        if (!std::isfinite(row.wall_s) || !std::isfinite(row.percent) || row.task.empty()) return "bad accounting row";
    for (const auto& f : log.frames)
        for (const auto& [name, v] : f.terms)
            if (!std::isfinite(v)) return "non-finite energy " + name;
    if (log.drift && !std::isfinite(*log.drift)) return "non-finite drift";
    const mdcore::RunReport rep = mdtune::gromacs::report_from_md_log(log, 400, 100);
    if (!(rep.ms_per_step > 0) || !std::isfinite(rep.ms_per_step)) return "report without a time per step";
    for (const auto& [task, t] : rep.timings)
        if (!std::isfinite(t)) return "non-finite timing " + task;
    if (!std::isfinite(rep.drift_per_atom_per_ps)) return "non-finite fitted drift";
    return "";
}

}  // namespace

Target md_log_target(const std::string& corpus) {
    Target t{"mdlog", ".log",
             {load_corpus(corpus + "/mdlog"),
              words({"\n", " ", "Performance:", "Time:", "Step           Time\n", "   Energies (kJ/mol)\n",
                     "Changing nstlist from 10 to ", "Fatal error:\n", "Source file: x (line 1)\n",
                     "R E A L   C Y C L E   A N D   T I M E   A C C O U N T I N G\n", "Input Parameters:\n",
                     "   dt = 0\n", "   dt = -1\n", " 1e999", " nan", " -0", " 99999999999999999999",
                     "Domain decomposition grid ", "Using 2 MPI threads\n", "Conserved energy drift: inf\n",
                     "-----------------------------------------------------------------------------\n"}),
              ""},
             nullptr};
    t.run = [](const std::string& input) {
        return classify<mdtune::gromacs::LogReportError>(
            {"md.log"}, [&] { return check_md_log(mdtune::gromacs::parse_md_log(input)); });
    };
    return t;
}

}  // namespace mdtest::fuzz
