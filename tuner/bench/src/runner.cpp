#include "mdtune/bench/runner.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <tuple>
#include <ostream>
#include <set>
#include <sstream>

#include "mdtune/bench/callgrind.h"
#include "mdtune/core/file_text.h"
#include "mdtune/process/launcher.h"

namespace mdtune::bench {
namespace fs = std::filesystem;

namespace {

std::string stem(const std::string& exe) { return fs::path(exe).filename().string(); }

std::string tail_of_file(const std::string& path, std::size_t max_chars = 2000) {
    const std::string s = read_file_text(path).text;  // what there is: a log cut short still helps
    return s.size() > max_chars ? "..." + s.substr(s.size() - max_chars) : s;
}

void remove_with_prefix(const std::string& dir, const std::string& prefix) {
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().filename().string().rfind(prefix, 0) == 0) fs::remove(e.path());
}

// Stderr of a suite: shown live, or (quiet) kept in a file and shown on failure.
std::string stderr_file(const SuiteOptions& o, const std::string& name) {
    return o.quiet ? o.work_dir + "/" + name + ".stderr" : "";
}

// A suite's output is shown (or discarded when quiet); it stays in our process
// group so Ctrl-C on a terminal reaches it, and dies with us if we are killed.
process::LaunchOptions suite_launch(bool quiet, const std::string& err_file) {
    process::LaunchOptions po;
    po.out = quiet ? process::StdoutMode::Discard : process::StdoutMode::Inherit;
    po.err = err_file.empty() ? process::StderrMode::Inherit : process::StderrMode::File;
    po.stderr_file = err_file;
    po.group = process::ProcessGroup::Inherit;
    return po;
}

std::string failure_text(const std::string& what, const process::LaunchResult& r, const std::string& err_file) {
    std::string msg = what + ": " + r.describe();
    if (!err_file.empty()) msg += "\n" + err_file + ":\n" + tail_of_file(err_file);
    return msg;
}

// One callgrind process over the benchmarks matching `filter`; returns its
// report and loop dumps. The suite runs in the work directory through a link
// with a fixed name and only relative paths: heap layout depends on the length
// of argv, and layout changes instruction counts (alignment peeling, memcpy
// paths) by up to ~1 %, so both sides of a comparison must see identical argv.
std::pair<GbenchReport, std::vector<CallgrindDump>> callgrind_pass(const std::string& exe, const std::string& filter,
                                                                    int repetitions, const SuiteOptions& o,
                                                                    LoopMarking marking, const std::string& tag,
                                                                    std::ostream& log) {
    const std::string name = stem(exe);
    const std::string prefix = name + "." + tag + ".cg";
    remove_with_prefix(o.work_dir, prefix);
    const std::string link = o.work_dir + "/" + name;
    std::error_code ec;
    fs::remove(link, ec);
    fs::create_symlink(fs::absolute(exe), link);
    const std::string json = name + "." + tag + ".json";
    const std::string vlog = name + "." + tag + ".valgrind.log";
    // The child runs in work_dir: a valgrind given as a relative path must still resolve.
    const bool relative = o.valgrind.find('/') != std::string::npos && o.valgrind.front() != '/';
    std::vector<std::string> argv{relative ? fs::absolute(o.valgrind).string() : o.valgrind};
    for (auto& a : callgrind_options(prefix + ".%p", marking)) argv.push_back(a);
    argv.push_back("--log-file=" + vlog);
    argv.insert(argv.end(), {"./" + name, "--benchmark_min_time=0",
                             "--benchmark_repetitions=" + std::to_string(repetitions), "--benchmark_out=" + json,
                             "--benchmark_out_format=json"});
    if (!filter.empty()) argv.push_back("--benchmark_filter=" + filter);
    process::LaunchOptions po = suite_launch(o.quiet, stderr_file(o, name + "." + tag));
    po.env = deterministic_openmp_env();
    if (const char* cap = std::getenv("MDCORE_SIMD_CAP"); !cap || !*cap) po.env.emplace_back("MDCORE_SIMD_CAP", kCallgrindSimdCap);
    if (marking == LoopMarking::Hooks) {
        const char* preload = std::getenv("LD_PRELOAD");
        po.env.emplace_back("LD_PRELOAD", o.callgrind_hooks + (preload && *preload ? std::string(":") + preload : ""));
    }
    po.cwd = o.work_dir;
    const process::LaunchResult r = process::launch(argv, po);
    if (!r.exited_ok()) {
        const std::string vtail = tail_of_file(o.work_dir + "/" + vlog);
        std::string hint;
        if (vtail.find("unhandled instruction") != std::string::npos ||
            vtail.find("Unrecognised instruction") != std::string::npos)
            hint = "\nvalgrind cannot execute one of the suite's instructions (valgrind has no AVX-512; mdcore caps "
                   "itself at MDCORE_SIMD_CAP, default avx2 under callgrind, but code outside mdcore's dispatch, "
                   "e.g. a suite built with -march=native, is not capped): build the suites for instruction counts "
                   "with -DMDT_SIMD=none, or try MDCORE_SIMD_CAP=none";
        throw GbenchError(failure_text(exe + " under callgrind", r, po.stderr_file) + hint + "\nvalgrind log " +
                          o.work_dir + "/" + vlog + ":\n" + vtail);
    }
    GbenchReport report = read_gbench_file(o.work_dir + "/" + json);
    std::vector<CallgrindDump> dumps = loop_dumps(o.work_dir, prefix);
    log << "  " << name << ": " << dumps.size() << " timed loop(s) counted under callgrind\n";
    return {std::move(report), std::move(dumps)};
}

std::size_t healthy_runs(const GbenchReport& r) {
    std::size_t n = 0;
    for (const GbenchRun& x : r.runs) n += x.type == RunType::Iteration && !x.error;
    return n;
}

GbenchReport run_instructions(const std::string& exe, const SuiteOptions& o, std::ostream& log) {
    const int reps = std::max(1, o.repetitions);
    LoopMarking marking = o.callgrind_hooks.empty() ? LoopMarking::Options : LoopMarking::Hooks;
    auto [report, dumps] = callgrind_pass(exe, o.filter, reps, o, marking, "all", log);
    if (marking == LoopMarking::Hooks && dumps.empty() && healthy_runs(report) > 0) {
        // The hooks never ran: Google Benchmark is linked statically into the suite.
        log << "  " << stem(exe) << ": the callgrind hooks did not take effect (Google Benchmark linked "
            << "statically?); instrumenting the whole run instead\n";
        marking = LoopMarking::Options;
        std::tie(report, dumps) = callgrind_pass(exe, o.filter, reps, o, marking, "all", log);
    }
    if (attach_instructions(report, dumps)) return std::move(report);

    // Some benchmark skipped with an error inside or before its loop, so loops and
    // runs cannot be matched by order. Measure the healthy ones again without it,
    // and if that still does not match, one benchmark per process.
    std::vector<std::string> names;
    std::set<std::string> seen;
    for (const GbenchRun& r : report.runs)
        if (r.type == RunType::Iteration && !r.error && seen.insert(r.run_name).second) names.push_back(r.run_name);
    GbenchReport merged = report;
    merged.runs.clear();
    for (const GbenchRun& r : report.runs)
        if (r.type == RunType::Iteration && r.error) merged.runs.push_back(r);
    auto take = [&](GbenchReport& part) {
        for (GbenchRun& r : part.runs)
            if (r.type == RunType::Iteration && !r.error) merged.runs.push_back(std::move(r));
    };
    if (names.empty()) return merged;
    log << "  " << stem(exe) << ": " << dumps.size() << " timed loops for " << report.iteration_runs()
        << " runs (a benchmark reported an error); measuring the others again without it\n";
    auto [healthy, healthy_dumps] = callgrind_pass(exe, exact_filter_any(names), reps, o, marking, "healthy", log);
    if (attach_instructions(healthy, healthy_dumps)) {
        take(healthy);
        return merged;
    }
    log << "  " << stem(exe) << ": still no match; measuring benchmarks one at a time\n";
    for (std::size_t i = 0; i < names.size(); ++i) {
        auto [one, one_dumps] = callgrind_pass(exe, exact_filter(names[i]), reps, o, marking, "one" + std::to_string(i), log);
        if (!attach_instructions(one, one_dumps))
            throw GbenchError(exe + ": '" + names[i] + "' ran " + std::to_string(one.iteration_runs()) +
                              " repetition(s) but callgrind counted " + std::to_string(one_dumps.size()) +
                              " timed loop(s)");
        take(one);
    }
    return merged;
}

}  // namespace

std::string exact_filter(const std::string& name) { return exact_filter_any({name}); }

std::string exact_filter_any(const std::vector<std::string>& names) {
    std::string out = "^(";
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (i) out += '|';
        for (char c : names[i]) {
            if (std::string_view(".^$|()[]{}*+?\\").find(c) != std::string_view::npos) out += '\\';
            out += c;
        }
    }
    return out + ")$";
}

std::vector<std::string> find_suites(const std::string& dir) {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        if (name.rfind("bench_", 0) != 0 || !e.is_regular_file()) continue;
        if (access(e.path().c_str(), X_OK) != 0) continue;
        out.push_back(e.path().string());
    }
    if (ec) throw GbenchError(dir + ": " + ec.message());
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<std::string> list_benchmarks(const std::string& exe, const std::string& filter) {
    std::vector<std::string> argv{exe, "--benchmark_list_tests=true"};
    if (!filter.empty()) argv.push_back("--benchmark_filter=" + filter);
    // A filter matching nothing makes Google Benchmark complain on stderr: not an error here.
    process::LaunchOptions po = suite_launch(false, "/dev/null");
    po.out = process::StdoutMode::Capture;
    const process::LaunchResult r = process::launch(argv, po);
    if (r.signal) throw GbenchError(exe + " --benchmark_list_tests: " + r.describe());
    std::vector<std::string> names;
    std::istringstream in(r.stdout_text);
    for (std::string line; std::getline(in, line);)
        if (!line.empty()) names.push_back(line);
    return names;
}

GbenchReport run_suite(const std::string& exe, db::BenchMetric metric, const SuiteOptions& o, std::ostream& log) {
    if (metric == db::BenchMetric::Instructions) return run_instructions(exe, o, log);
    const std::string json = o.work_dir + "/" + stem(exe) + o.tag + ".json";
    std::vector<std::string> argv{exe, "--benchmark_repetitions=" + std::to_string(std::max(1, o.repetitions)),
                                  "--benchmark_out=" + json, "--benchmark_out_format=json"};
    if (o.random_interleaving) argv.push_back("--benchmark_enable_random_interleaving=true");
    if (!o.filter.empty()) argv.push_back("--benchmark_filter=" + o.filter);
    if (!o.min_time.empty()) argv.push_back("--benchmark_min_time=" + o.min_time);
    const process::LaunchOptions po = suite_launch(o.quiet, stderr_file(o, stem(exe)));
    const process::LaunchResult r = process::launch(argv, po);
    if (!r.exited_ok()) throw GbenchError(failure_text(exe, r, po.stderr_file));
    return read_gbench_file(json);
}

}  // namespace mdtune::bench
