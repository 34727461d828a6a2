#include "mdtune/mpi/sweep.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>

#include "mdtune/mpi/rules_file.h"
#include "sweep_text.h"
#include "mdtune/process/launcher.h"

namespace mdtune::mpi {
namespace {

std::string join_sizes(const std::vector<std::uint64_t>& sizes) {
    std::string s;
    for (auto b : sizes) {
        if (!s.empty()) s += ',';
        s += std::to_string(b);
    }
    return s;
}

std::string selection_text(Selection s) {
    switch (s) {
        case Selection::Forced: return "forced";
        case Selection::Default: return "default";
        case Selection::Rules: return "rules";
    }
    return "default";
}

std::vector<std::pair<std::string, std::string>> mca_for(const Job& job) {
    const std::string c(name(job.collective));
    std::vector<std::pair<std::string, std::string>> mca;
    switch (job.selection) {
        case Selection::Forced: {
            mca.emplace_back("coll_tuned_use_dynamic_rules", "1");
            mca.emplace_back("coll_tuned_" + c + "_algorithm", std::to_string(job.variant.algorithm));
            mca.emplace_back("coll_tuned_" + c + "_algorithm_segmentsize", std::to_string(job.variant.segsize));
            if (job.variant.faninout > 0)
                mca.emplace_back("coll_tuned_" + c + "_algorithm_chain_fanout", std::to_string(job.variant.faninout));
            break;
        }
        case Selection::Default: mca.emplace_back("coll_tuned_use_dynamic_rules", "0"); break;
        case Selection::Rules:
            mca.emplace_back("coll_tuned_use_dynamic_rules", "1");
            mca.emplace_back("coll_tuned_dynamic_rules_filename", job.rules_path);
            break;
    }
    return mca;
}

Command base_command(const LaunchContext& ctx, int ranks, const std::vector<std::pair<std::string, std::string>>& mca) {
    Command cmd;
    if (ctx.as_root) {
        cmd.env.emplace_back("OMPI_ALLOW_RUN_AS_ROOT", "1");
        cmd.env.emplace_back("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
    }
    auto all_mca = mca;
    all_mca.insert(all_mca.end(), ctx.extra_mca.begin(), ctx.extra_mca.end());
    cmd.argv.push_back(ctx.launcher);
    if (ctx.kind == LauncherKind::Srun) {
        // srun has no --mca: Open MPI reads OMPI_MCA_* from the environment.
        cmd.argv.insert(cmd.argv.end(), {"-n", std::to_string(ranks)});
        if (ctx.ppn > 0) cmd.argv.push_back("--ntasks-per-node=" + std::to_string(ctx.ppn));
        for (const auto& [k, v] : all_mca) cmd.env.emplace_back("OMPI_MCA_" + k, v);
    } else {
        cmd.argv.insert(cmd.argv.end(), {"-np", std::to_string(ranks)});
        if (!ctx.hostfile.empty()) {
            cmd.argv.insert(cmd.argv.end(), {"--hostfile", ctx.hostfile});
        } else if (ranks > ctx.local_cores) {
            // Bound round-robin: unbound oversubscribed ranks migrate, and their
            // latency jumps between modes from one launch to the next.
            cmd.argv.insert(cmd.argv.end(), {"--oversubscribe", "--bind-to", "core:overload-allowed"});
        }
        if (ctx.ppn > 0) cmd.argv.insert(cmd.argv.end(), {"--map-by", "ppr:" + std::to_string(ctx.ppn) + ":node"});
        for (const auto& [k, v] : all_mca) cmd.argv.insert(cmd.argv.end(), {"--mca", k, v});
    }
    return cmd;
}

int usable_cores() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
    return static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
}

bool on_path(const std::string& prog) {
    const char* path = std::getenv("PATH");
    if (!path) return false;
    std::stringstream in(path);
    for (std::string dir; std::getline(in, dir, ':');)
        if (!dir.empty() && access((dir + "/" + prog).c_str(), X_OK) == 0) return true;
    return false;
}

db::MpiMeasurement failed_row(const Job& job, const LaunchOutput& out, std::uint64_t bytes, const std::string& error) {
    db::MpiMeasurement m;
    m.mpi_library = out.mpi_library;
    m.nodes = out.nodes;
    m.ppn = out.ppn;
    m.ranks = out.ranks;
    m.collective = std::string(name(job.collective));
    m.selection = job.selection == Selection::Default ? "default" : "forced";
    m.algorithm = job.variant.algorithm;
    m.segsize = job.variant.segsize;
    m.faninout = job.variant.faninout;
    m.bytes = static_cast<long>(bytes);
    m.status = "failed";
    m.error = error;
    return m;
}

std::string last_line(const std::string& text) {
    std::string t = text;
    while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
    const auto nl = t.rfind('\n');
    return nl == std::string::npos ? t : t.substr(nl + 1);
}

}  // namespace

std::string fmt(double v, const char* f) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

std::string launch_problem(const LaunchResult& r) {
    if (r.timed_out) return "timed out";
    if (r.interrupted) return "interrupted";
    if (!r.output.error.empty()) return r.output.error;
    if (!r.output.have_header)
        return "no output from mpi_collectives (exit code " + std::to_string(r.exit_code) + "): " +
               last_line(r.stderr_tail);
    return "exit code " + std::to_string(r.exit_code);
}

double median_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

LaunchContext detect_launch_context(const std::string& choice, const std::string& hostfile, int ppn) {
    LaunchContext ctx;
    const bool in_slurm = std::getenv("SLURM_JOB_ID") != nullptr;
    if (choice == "srun" || (choice == "auto" && in_slurm && on_path("srun"))) {
        ctx.kind = LauncherKind::Srun;
        ctx.launcher = "srun";
        if (!hostfile.empty()) throw std::invalid_argument("--hostfile is for mpirun; srun uses the Slurm allocation");
    } else if (choice == "mpirun" || choice == "auto") {
        ctx.kind = LauncherKind::Mpirun;
        ctx.launcher = "mpirun";
    } else {
        throw std::invalid_argument("launcher '" + choice + "' (auto, mpirun, srun)");
    }
    ctx.hostfile = hostfile;
    ctx.ppn = ppn;
    ctx.local_cores = usable_cores();
    ctx.as_root = geteuid() == 0;
    return ctx;
}

BenchSettings default_measure(bool quick) {
    BenchSettings m;
    const std::uint64_t top = 4ull << 20;
    // Iterations: budget_bytes / (bytes moved per rank), within [min, max], then
    // capped so one size takes about max_seconds (oversubscribed ranks are slow).
    if (quick) {
        for (std::uint64_t b = 8; b < top; b *= 32) m.sizes.push_back(b);
        m.budget_bytes = 4.0 * (1 << 20);
        m.max_iters = 100;
        m.max_seconds = 0.15;
        m.min_iters = 5;
    } else {
        for (std::uint64_t b = 8; b < top; b *= 4) m.sizes.push_back(b);
        m.budget_bytes = 16.0 * (1 << 20);
        m.max_iters = 300;
        m.max_seconds = 0.4;
        m.min_iters = 8;  // a 10th percentile of large messages needs a few
    }
    m.sizes.push_back(top);
    return m;
}

std::vector<std::uint64_t> parse_sizes(const std::string& text) {
    const auto one = [&](std::string s) -> std::uint64_t {
        std::uint64_t mult = 1;
        if (!s.empty()) {
            const char u = static_cast<char>(std::toupper(static_cast<unsigned char>(s.back())));
            if (u == 'K') mult = 1ull << 10;
            if (u == 'M') mult = 1ull << 20;
            if (u == 'G') mult = 1ull << 30;
            if (mult > 1) s.pop_back();
        }
        std::uint64_t v = 0;
        const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (s.empty() || ec != std::errc{} || p != s.data() + s.size())
            throw std::invalid_argument("size '" + s + "' is not a number (8, 64K, 4M)");
        v *= mult;
        if (v < 4 || v > (1ull << 30)) throw std::invalid_argument("size " + std::to_string(v) + " is outside [4 B, 1 GiB]");
        return v;
    };
    std::vector<std::uint64_t> out;
    const auto dash = text.find('-');
    if (dash != std::string::npos) {
        std::string hi_text = text.substr(dash + 1);
        std::uint64_t factor = 4;
        if (const auto colon = hi_text.find(':'); colon != std::string::npos) {
            const std::string f = hi_text.substr(colon + 1);
            const auto [p, ec] = std::from_chars(f.data(), f.data() + f.size(), factor);
            if (f.empty() || ec != std::errc{} || p != f.data() + f.size())
                throw std::invalid_argument("sizes '" + text + "': the factor after ':' must be an integer");
            hi_text = hi_text.substr(0, colon);
        }
        const std::uint64_t lo = one(text.substr(0, dash)), hi = one(hi_text);
        if (lo > hi) throw std::invalid_argument("sizes '" + text + "': the range is empty");
        if (factor < 2) throw std::invalid_argument("sizes '" + text + "': the factor must be at least 2");
        for (std::uint64_t b = lo; b < hi; b *= factor) out.push_back(b);
        out.push_back(hi);
    } else {
        std::stringstream in(text);
        for (std::string item; std::getline(in, item, ',');)
            if (!item.empty()) out.push_back(one(item));
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    if (out.empty()) throw std::invalid_argument("no message sizes given");
    return out;
}

std::string Command::display() const {
    std::string s;
    for (const auto& [k, v] : env) s += k + "=" + v + " ";
    for (const auto& a : argv) s += (a.find(' ') != std::string::npos ? "'" + a + "'" : a) + " ";
    if (!s.empty()) s.pop_back();
    return s;
}

Command make_command(const LaunchContext& ctx, const std::string& binary, const Job& job, const BenchSettings& m) {
    Command cmd = base_command(ctx, job.ranks, mca_for(job));
    cmd.argv.insert(cmd.argv.end(), {binary, "--collective", std::string(name(job.collective)), "--sizes",
                                     join_sizes(m.sizes), "--selection", selection_text(job.selection)});
    if (job.selection == Selection::Forced)
        cmd.argv.insert(cmd.argv.end(), {"--algorithm", std::to_string(job.variant.algorithm), "--segsize",
                                         std::to_string(job.variant.segsize)});
    cmd.argv.insert(cmd.argv.end(),
                    {"--budget-bytes", fmt(m.budget_bytes, "%.0f"), "--min-iters", std::to_string(m.min_iters),
                     "--max-iters", std::to_string(m.max_iters), "--warmup-frac", fmt(m.warmup_frac),
                     "--max-seconds", fmt(m.max_seconds)});
    return cmd;
}

Command make_probe_command(const LaunchContext& ctx, const std::string& binary, int ranks) {
    Command cmd = base_command(ctx, ranks, {});
    cmd.argv.insert(cmd.argv.end(), {binary, "--probe"});
    return cmd;
}

void parse_output_line(const std::string& line, LaunchOutput& out) {
    if (line.empty() || line[0] != '{') return;
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(line);
    } catch (const std::exception&) {
        return;  // a stray line from the launcher, not ours
    }
    const std::string type = j.value("type", "");
    if (type == "header") {
        out.have_header = true;
        out.mpi_library = j.value("mpi_version", "");
        out.nodes = j.value("nodes", 0);
        out.ppn = j.value("ppn", 0);
        out.ranks = j.value("ranks", 0);
        out.mca_check = j.value("mca_check", "");
    } else if (type == "result") {
        db::MpiMeasurement m;
        m.mpi_library = out.mpi_library;
        m.nodes = j.value("nodes", out.nodes);
        m.ppn = j.value("ppn", out.ppn);
        m.ranks = j.value("ranks", out.ranks);
        m.collective = j.value("collective", "");
        m.selection = j.value("selection", "default");
        m.algorithm = j.value("algorithm", 0);
        m.segsize = j.value("segsize", 0L);
        m.bytes = j.value("bytes", 0L);
        m.iterations = j.value("iterations", 0L);
        m.warmup = j.value("warmup", 0L);
        m.lat_min_us = j.value("lat_min_us", 0.0);
        m.lat_avg_us = j.value("lat_avg_us", 0.0);
        m.lat_max_us = j.value("lat_max_us", 0.0);
        m.lat_median_us = j.value("lat_median_us", 0.0);
        m.lat_p10_us = j.value("lat_p10_us", 0.0);
        m.status = j.value("status", "failed");
        m.error = j.value("error", "");
        out.results.push_back(m);
    } else if (type == "error") {
        out.error = j.value("message", "error");
    } else if (type == "done") {
        out.done = true;
    }
}

LaunchResult launch(const Command& cmd, double timeout_s, const std::function<bool()>& stop) {
    LaunchResult r;
    process::LaunchOptions options;
    options.env = cmd.env;
    options.timeout_s = timeout_s;
    options.grace_s = 1;  // mpirun forwards SIGTERM to its ranks
    options.out = process::StdoutMode::Lines;
    options.on_line = [&](const std::string& line) { parse_output_line(line, r.output); };
    options.stderr_tail_bytes = 4000;
    options.stop = stop;
    process::LaunchResult p;
    try {
        p = process::launch(cmd.argv, options);
    } catch (const std::runtime_error& e) {  // launcher not found: as a shell would report it
        r.exit_code = 127;
        r.stderr_tail = e.what();
        return r;
    }
    r.exit_code = p.exit_code;
    r.timed_out = p.timed_out;
    r.interrupted = p.interrupted;
    r.stderr_tail = std::move(p.stderr_tail);
    r.wall_s = p.wall_s;
    return r;
}

std::vector<models::mpi::Variant> sweep_variants(models::mpi::Collective c, int ranks, const std::vector<long>& segsizes) {
    std::vector<models::mpi::Variant> out{models::mpi::Variant{}};
    for (const auto& a : info(c).algorithms) {
        if (!models::mpi::valid_for_ranks(c, a.id, ranks)) continue;  // two_proc at 3+ ranks: known to fail, not worth a launch
        if (!a.segmented) {
            out.push_back({a.id, 0, a.faninout});
            continue;
        }
        std::set<long> sizes;
        for (long s : segsizes) sizes.insert(s == 0 && a.segsize_if_zero > 0 ? a.segsize_if_zero : s);
        for (long s : sizes) out.push_back({a.id, s, a.faninout});
    }
    return out;
}

namespace {

// A communicator size as the probe found it: its layout keys resumption, its library the rows.
struct Probe {
    int nodes = 0, ppn = 0;
    std::string library;
};

// Probes each communicator size once; sizes that cannot start are counted and skipped.
std::map<int, Probe> probe_sizes(const LaunchContext& ctx, const SweepOptions& opt, SweepReport& rep,
                                 const std::function<void(const std::string&)>& say,
                                 const std::function<bool()>& stop) {
    std::map<int, Probe> probes;
    for (const int ranks : opt.ranks) {
        if (stop && stop()) break;
        const LaunchResult r = launch(make_probe_command(ctx, opt.binary, ranks), std::min(opt.timeout_s, 120.0), stop);
        if (!r.usable()) {
            ++rep.failed_launches;
            say("cannot start " + std::to_string(ranks) + " ranks: " + launch_problem(r));
            continue;
        }
        probes[ranks] = {r.output.nodes, r.output.ppn, r.output.mpi_library};
        rep.mpi_library = r.output.mpi_library;
    }
    return probes;
}

// The sweep's settings as the sweeps table records them.
std::string sweep_settings_json(const LaunchContext& ctx, const SweepOptions& opt) {
    nlohmann::json settings = {{"ranks", opt.ranks},
                               {"sizes", opt.measure.sizes},
                               {"segsizes", opt.segsizes},
                               {"budget_bytes", opt.measure.budget_bytes},
                               {"min_iters", opt.measure.min_iters},
                               {"max_iters", opt.measure.max_iters},
                               {"max_seconds", opt.measure.max_seconds},
                               {"hostfile", ctx.hostfile},
                               {"ppn", ctx.ppn}};
    for (const models::mpi::Collective c : opt.collectives) settings["collectives"].push_back(std::string(name(c)));
    return settings.dump();
}

// True when every message size of the job is recorded for this machine, library and layout.
bool already_recorded(db::MpiStore& store, const std::string& hardware_id, const Probe& probe, const Job& job,
                      const SweepOptions& opt) {
    db::MpiFilter f;
    f.hardware_id = hardware_id;
    f.mpi_library = probe.library;
    f.collective = std::string(name(job.collective));
    f.ranks = job.ranks;
    f.selection = job.selection == Selection::Default ? "default" : "forced";
    std::set<long> have;
    for (const auto& m : store.measurements(f))
        if (m.nodes == probe.nodes && m.ppn == probe.ppn && m.algorithm == job.variant.algorithm &&
            m.segsize == job.variant.segsize && m.faninout == job.variant.faninout)
            have.insert(m.bytes);
    bool complete = true;
    for (auto b : opt.measure.sizes) complete = complete && have.count(static_cast<long>(b));
    return complete;
}

// Writes one launch's rows (sizes it never reached as failures) and says how it went.
std::string record_launch(db::MpiStore& store, const std::string& hardware_id, long sweep_id, const Job& job,
                          const LaunchResult& r, const SweepOptions& opt, int round) {
    std::vector<db::MpiMeasurement> rows = r.output.results;
    std::set<long> got;
    for (auto& m : rows) {
        got.insert(m.bytes);
        m.faninout = job.variant.faninout;
    }
    // Sizes the run never reached are failures of this variant (a hang, a crash).
    for (auto b : opt.measure.sizes)
        if (!got.count(static_cast<long>(b)))
            rows.push_back(failed_row(job, r.output, b,
                                      r.timed_out ? "timed out after " + fmt(opt.timeout_s) + " s" : launch_problem(r)));
    for (auto& m : rows) {
        m.hardware_id = hardware_id;
        m.sweep_id = sweep_id;
    }
    store.put_measurements(rows, round == 0 ? db::MpiStore::Upsert::Replace : db::MpiStore::Upsert::KeepFaster);
    std::size_t ok = 0;
    for (const auto& m : rows) ok += m.status == "ok";
    std::string msg = std::to_string(ok) + "/" + std::to_string(rows.size()) + " sizes ok, " + fmt(r.wall_s, "%.1f") + " s";
    if (round > 0) msg += " (round " + std::to_string(round + 1) + ")";
    for (const auto& m : rows)
        if (m.status != "ok") {
            msg += "; " + m.status + (m.error.empty() ? "" : ": " + m.error);
            break;
        }
    return msg;
}

}  // namespace

SweepReport run_sweep(db::MpiStore& store, const std::string& hardware_id, const LaunchContext& ctx,
                      const SweepOptions& opt, const std::function<void(const SweepProgress&)>& progress,
                      const std::function<bool()>& stop) {
    const auto t0 = std::chrono::steady_clock::now();
    SweepReport rep;
    const auto say = [&](std::size_t done, std::size_t planned, const Job* job, const std::string& msg) {
        if (progress) progress({done, planned, job, msg});
    };
    const std::map<int, Probe> probes =
        probe_sizes(ctx, opt, rep, [&](const std::string& msg) { say(0, 0, nullptr, msg); }, stop);
    if (probes.empty()) {
        rep.interrupted = stop && stop();
        return rep;
    }

    std::vector<Job> jobs;
    for (const auto& [ranks, probe] : probes)
        for (const models::mpi::Collective c : opt.collectives)
            for (const models::mpi::Variant& v : sweep_variants(c, ranks, opt.segsizes))
                jobs.push_back({ranks, c, v.is_default() ? Selection::Default : Selection::Forced, v, ""});
    rep.sweep_id = store.begin_sweep(hardware_id, rep.mpi_library, ctx.kind == LauncherKind::Srun ? "srun" : "mpirun",
                                     sweep_settings_json(ctx, opt));

    std::size_t done = 0;
    const std::size_t planned = jobs.size() * static_cast<std::size_t>(std::max(1, opt.rounds));
    for (int round = 0; round < std::max(1, opt.rounds) && !rep.interrupted; ++round) {
        std::vector<Job> order = jobs;
        if (round % 2 == 1) std::reverse(order.begin(), order.end());
        for (const Job& job : order) {
            if (stop && stop()) {
                rep.interrupted = true;
                break;
            }
            if (round == 0 && !opt.remeasure && already_recorded(store, hardware_id, probes.at(job.ranks), job, opt)) {
                ++rep.reused;
                say(++done, planned, &job, "recorded");
                continue;
            }
            const LaunchResult r = launch(make_command(ctx, opt.binary, job, opt.measure), opt.timeout_s, stop);
            ++rep.launches;
            if (r.interrupted) {
                rep.interrupted = true;
                break;
            }
            if (!r.usable()) {
                ++rep.failed_launches;
                say(++done, planned, &job, "launch failed: " + launch_problem(r));
                continue;
            }
            say(++done, planned, &job, record_launch(store, hardware_id, rep.sweep_id, job, r, opt, round));
        }
    }
    store.finish_sweep(rep.sweep_id, rep.interrupted ? "interrupted" : "done");
    rep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return rep;
}

}  // namespace mdtune::mpi
