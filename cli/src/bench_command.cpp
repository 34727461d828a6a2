// mdtune bench: run the Google Benchmark suites into the database, ingest results
// produced elsewhere, compare two sets of runs with the regression gate, and show
// a benchmark's history.
#include <limits.h>
#include <unistd.h>

#include <algorithm>
#include <optional>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <functional>
#include <memory>
#include <iostream>
#include <regex>
#include <set>
#include <sstream>

#include "cli_options.h"
#include "commands.h"
#include "mdcore/output_file.h"
#include "mdtune/bench/compare.h"
#include "mdtune/bench/gbench_json.h"
#include "mdtune/bench/history.h"
#include "mdtune/bench/ingest.h"
#include "mdtune/bench/noise_floor.h"
#include "mdtune/bench/runner.h"
#include "mdtune/db/bench_store.h"
#include "mdtune/core/hardware.h"

namespace mdtune::cli {

using ArgMap = GivenFlags;
namespace fs = std::filesystem;

namespace {

std::string shell_output(const std::string& command) {
    std::string out;
    FILE* p = popen(command.c_str(), "r");
    if (!p) return out;
    char buf[256];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    if (pclose(p) != 0) return "";
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
    return out;
}

struct GitInfo {
    std::string commit;
    bool dirty = false;
};

GitInfo git_of_cwd() {
    GitInfo g;
    g.commit = shell_output("git rev-parse HEAD 2>/dev/null");
    if (!g.commit.empty())
        g.dirty = !shell_output("git status --porcelain --untracked-files=no 2>/dev/null").empty();
    return g;
}

std::string timestamp_label() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[40];
    std::strftime(buf, sizeof buf, "run-%Y%m%dT%H%M%SZ", &tm);
    return buf;
}

db::BenchMetric metric_of(const ArgMap& opts) {
    const std::string m = opts.text("metric").value_or("real_time");
    return *db::parse_bench_metric(m);  // checked by word_in when parsed
}

bench::GateOptions gate_options(const ArgMap& opts, db::BenchMetric metric) {
    bench::GateOptions o;
    o.alpha = opts.real("alpha").value_or(0.05);
    if (const auto t = opts.text("threshold")) {
        try {
            o.threshold = bench::parse_threshold(*t);
        } catch (const std::invalid_argument& e) {
            throw InputError(std::string("--threshold: ") + e.what());
        }
    }
    o.exact_counts = metric == db::BenchMetric::Instructions;
    o.min_runs = static_cast<int>(opts.integer("min-runs").value_or(o.exact_counts ? 1 : bench::kDefaultRuns));
    o.family_wise = !opts.has("per-benchmark-alpha");
    o.allow_inconclusive = opts.has("allow-inconclusive");
    return o;
}

std::string self_dir() {
    char buf[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return ".";
    const std::string self(buf, static_cast<std::size_t>(n));
    return self.substr(0, self.rfind('/'));
}

std::vector<std::string> split_commas(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream ss(text);
    for (std::string item; std::getline(ss, item, ',');)
        if (!item.empty()) out.push_back(item);
    return out;
}

// Commit and label for new runs: --commit or the cwd's HEAD; --label or the short
// commit (-dirty when the work tree has changes) or a timestamp.
std::pair<std::string, std::string> commit_and_label(const ArgMap& opts) {
    GitInfo git;
    if (const auto c = opts.text("commit")) git.commit = *c;
    else git = git_of_cwd();
    std::string label = opts.text("label").value_or("");
    if (label.empty())
        label = git.commit.empty() ? timestamp_label() : git.commit.substr(0, 12) + (git.dirty ? "-dirty" : "");
    return {git.commit, label};
}

void store_runs(const std::string& db, const HardwareInfo* hw, const std::vector<db::BenchRunRow>& rows) {
    db::Store store(db);
    if (hw) store.put_hardware(hw->id, hw->to_json());
    const std::vector<long> ids = db::BenchStore(store).insert(rows);
    std::size_t results = 0;
    std::set<std::string> names;
    for (const auto& r : rows) {
        results += r.results.size();
        for (const auto& x : r.results) names.insert(x.name);
    }
    std::printf("stored %zu result(s) of %zu benchmark(s) in %s as run(s)", results, names.size(), db.c_str());
    for (long id : ids) std::printf(" #%ld", id);
    std::printf(" (label %s, metric %s)\n", rows.front().label.c_str(), std::string(to_string(rows.front().metric)).c_str());
}

void warn_skipped(const std::vector<std::string>& skipped) {
    for (const auto& s : skipped) std::cerr << "mdtune bench: warning: not stored (benchmark reported an error): " << s << "\n";
}

// The bench_* executables of dir, or those --suites names (each must be there).
std::vector<std::string> suites_to_run(const std::string& dir, const std::optional<std::string>& wanted) {
    std::vector<std::string> suites = bench::find_suites(dir);
    if (!wanted) return suites;
    std::vector<std::string> picked;
    for (const auto& name : split_commas(*wanted)) {
        const auto it =
            std::find_if(suites.begin(), suites.end(), [&](const auto& s) { return fs::path(s).filename() == name; });
        if (it == suites.end()) throw InputError("--suites: no executable '" + name + "' in " + dir);
        picked.push_back(*it);
    }
    return picked;
}

// How the suites run: filter, repetitions, interleaving, valgrind (checked, not yet run).
bench::SuiteOptions suite_options(const ArgMap& opts, bool instructions) {
    bench::SuiteOptions so;
    so.filter = opts.text("filter").value_or("");
    if (!so.filter.empty()) {
        try {
            std::regex check(so.filter);
        } catch (const std::regex_error& e) {
            throw InputError("--filter: '" + so.filter + "' is not a regular expression: " + e.what());
        }
    }
    so.repetitions =
        static_cast<int>(opts.integer("repetitions").value_or(instructions ? 1 : bench::kDefaultRepetitionsPerRun));
    so.random_interleaving = !opts.has("no-interleave");
    if (opts.has("min-time")) so.min_time = *opts.text("min-time");
    if (instructions && opts.has("min-time")) throw InputError("--min-time: instruction counts run one iteration");
    so.valgrind = opts.text("valgrind").value_or("valgrind");
    // Built next to mdtune when valgrind's headers were found (benchmarks/regression).
    if (const std::string hooks = self_dir() + "/libmdtune_callgrind_hooks.so"; fs::exists(hooks))
        so.callgrind_hooks = hooks;
    so.quiet = opts.has("quiet");
    return so;
}

// The suites' work files: --out keeps them, otherwise a temporary directory removed at the end.
class WorkDir {
public:
    explicit WorkDir(const std::optional<std::string>& out) : keep_(out.has_value()) {
        if (out) {
            path_ = *out;
            fs::create_directories(path_);
        } else {
            std::string tmpl = (fs::temp_directory_path() / "mdtune_bench_XXXXXX").string();
            if (!mkdtemp(tmpl.data())) throw std::runtime_error("cannot create a temporary directory");
            path_ = tmpl;
        }
    }
    ~WorkDir() {
        std::error_code ec;
        if (!keep_) fs::remove_all(path_, ec);
    }
    WorkDir(const WorkDir&) = delete;
    WorkDir& operator=(const WorkDir&) = delete;
    const std::string& path() const { return path_; }
    bool keep() const { return keep_; }

private:
    bool keep_;
    std::string path_;
};

// The suites that have benchmarks matching the filter (each listed with its count).
std::vector<std::string> suites_with_benchmarks(const std::vector<std::string>& suites, const std::string& filter) {
    std::vector<std::string> out;
    for (const std::string& exe : suites) {
        const auto names = bench::list_benchmarks(exe, filter);
        std::printf("%s: ", fs::path(exe).filename().string().c_str());
        if (names.empty()) std::printf("no benchmark matches%s\n", filter.empty() ? "" : " the filter");
        else std::printf("%zu benchmark(s)\n", names.size());
        if (!names.empty()) out.push_back(exe);
    }
    return out;
}

// Each run is one process per suite, and the runs are interleaved across the
// suites (A1 B1 A2 B2 ...): a run's median per benchmark is one independent
// sample, and a slow spell of the machine touches one run of every suite rather
// than every run of one. One stored row per process.
std::vector<db::BenchRunRow> measure_interleaved(const std::vector<std::string>& suites, int runs,
                                                 bench::SuiteOptions so, const bench::RunMeta& meta, bool keep,
                                                 std::vector<std::string>& skipped) {
    std::vector<db::BenchRunRow> rows;
    for (int r = 1; r <= runs; ++r) {
        for (const std::string& exe : suites) {
            const std::string name = fs::path(exe).filename().string();
            if (runs > 1) std::printf("run %d/%d: %s\n", r, runs, name.c_str());
            std::fflush(stdout);
            so.tag = runs > 1 ? ".run" + std::to_string(r) : "";
            bench::GbenchReport report;
            try {
                report = bench::run_suite(exe, meta.metric, so, std::cout);
            } catch (const bench::GbenchError& e) {
                // A suite that crashes or writes garbage is a run-time failure (exit 1).
                throw std::runtime_error(std::string(e.what()) + "\nnothing was stored" +
                                         (keep ? "; the suites' JSON is in " + so.work_dir : ""));
            }
            if (meta.metric == db::BenchMetric::Instructions && keep)
                mdcore::write_text_file(so.work_dir + "/" + name + so.tag + ".instructions.json",
                                        bench::to_gbench_json(report));
            bench::Converted c = bench::to_run_row(report, meta);
            skipped.insert(skipped.end(), c.skipped.begin(), c.skipped.end());
            rows.push_back(std::move(c.row));
        }
    }
    return rows;
}

int run(const ArgMap& opts) {
    const db::BenchMetric metric = metric_of(opts);
    const bool instructions = metric == db::BenchMetric::Instructions;
    bench::SuiteOptions so = suite_options(opts, instructions);
    const int runs = static_cast<int>(opts.integer("runs").value_or(instructions ? 1 : bench::kDefaultRuns));
    const std::string db = opts.text("db").value_or("mdtune.db");
    const std::string dir = opts.text("bench-dir").value_or(self_dir());

    const std::vector<std::string> suites = suites_to_run(dir, opts.text("suites"));
    if (suites.empty())
        throw InputError("no bench_* executables in " + dir +
                         " (build them, e.g. cmake --build build --target bench_nonbonded, or pass --bench-dir)");
    if (instructions && std::system((so.valgrind + " --version >/dev/null 2>&1").c_str()) != 0)
        throw InputError("--metric instructions needs valgrind ('" + so.valgrind +
                         "' does not run; apt-get install valgrind or pass --valgrind PATH)");

    const WorkDir work_dir(opts.text("out"));
    const bool keep = work_dir.keep();
    so.work_dir = work_dir.path();

    const auto [commit, label] = commit_and_label(opts);
    const HardwareInfo hw = detect_hardware();
    std::printf("mdtune bench run: metric %s, %d run(s) x %d repetition(s)%s, label %s, commit %s, hardware %s, db %s\n",
                std::string(to_string(metric)).c_str(), runs, so.repetitions,
                instructions ? " under callgrind" : (so.random_interleaving ? ", randomly interleaved" : ""),
                label.c_str(), commit.empty() ? "(unknown)" : commit.c_str(), hw.id.c_str(), db.c_str());
    std::fflush(stdout);

    const std::vector<std::string> to_run = suites_with_benchmarks(suites, so.filter);
    if (to_run.empty()) throw InputError("--filter: '" + so.filter + "' matches no benchmark in " + dir);
    std::vector<std::string> skipped;
    const std::vector<db::BenchRunRow> rows =
        measure_interleaved(to_run, runs, so, {label, commit, hw.id, metric}, keep, skipped);
    warn_skipped(skipped);
    store_runs(db, &hw, rows);
    if (keep) std::printf("JSON kept in %s\n", so.work_dir.c_str());
    return 0;
}

int ingest(const std::vector<std::string>& files, const ArgMap& opts) {
    const db::BenchMetric metric = metric_of(opts);
    const auto [commit, label] = commit_and_label(opts);
    std::optional<HardwareInfo> hw;
    std::string hardware_id;
    if (const auto h = opts.text("hardware")) hardware_id = *h;
    else {
        hw = detect_hardware();
        hardware_id = hw->id;
    }
    // Everything is parsed and checked before the single insert: a bad file leaves
    // the database as it was.
    std::vector<db::BenchRunRow> rows;
    std::vector<std::string> skipped;
    for (const auto& f : files) {
        bench::Converted c = bench::to_run_row(bench::read_gbench_file(f), {label, commit, hardware_id, metric});
        skipped.insert(skipped.end(), c.skipped.begin(), c.skipped.end());
        rows.push_back(std::move(c.row));
    }
    warn_skipped(skipped);
    if (!opts.has("commit") && !commit.empty())
        std::printf("commit %s (HEAD of the current directory; --commit overrides)\n", commit.c_str());
    store_runs(opts.text("db").value_or("mdtune.db"), hw ? &*hw : nullptr, rows);
    return 0;
}

std::string describe(const std::string& selector, const std::vector<db::BenchRunRow>& runs) {
    std::set<std::string> commits;
    for (const auto& r : runs)
        if (!r.git_commit.empty()) commits.insert(r.git_commit.substr(0, 12));
    std::string s = selector + " [" + std::to_string(runs.size()) + " run(s)";
    if (commits.size() == 1) s += ", commit " + *commits.begin();
    else if (commits.size() > 1) s += ", " + std::to_string(commits.size()) + " commits";
    return s + "]";
}

// The historic drift per benchmark when the baseline was measured at another time
// than the candidate (not interleaved with it), from every other run on the
// candidate's hardware; `note` says which applies, for the report's header.
bench::NoiseFloors historic_floors(const db::BenchStore& bench, const std::vector<db::BenchRunRow>& base_runs,
                                   const std::vector<db::BenchRunRow>& cand_runs, const std::set<std::string>& hw_cand,
                                   std::string& note) {
    if (bench::measured_interleaved(base_runs, cand_runs)) {
        note = "baseline and candidate were measured interleaved: no historic drift applied";
        return {};
    }
    if (hw_cand.size() != 1) {
        note = "candidate runs come from several machines: no historic drift applied";
        return {};
    }
    std::set<long> cand_ids;
    for (const auto& r : cand_runs) cand_ids.insert(r.id);
    std::vector<db::BenchRunRow> history = bench.runs_on_hardware(*hw_cand.begin(), db::BenchMetric::RealTime);
    std::erase_if(history, [&](const auto& r) { return cand_ids.count(r.id) > 0; });
    bench::NoiseFloors floors = bench::historic_drift(history);
    note = "baseline measured at another time: a change must also exceed the benchmark's historic drift on this "
           "hardware (" + std::to_string(floors.size()) + " benchmark(s) with >= " +
           std::to_string(bench::kMinDriftLabels) + " past labels; the others have none)";
    return floors;
}

int compare(const ArgMap& opts) {
    const db::BenchMetric metric = metric_of(opts);
    const bench::GateOptions gate = gate_options(opts, metric);
    const std::string format_name = opts.text("format").value_or("table");
    bench::ReportFormat format;
    if (format_name == "table") format = bench::ReportFormat::Table;
    else if (format_name == "markdown") format = bench::ReportFormat::Markdown;
    else format = bench::ReportFormat::Json;  // checked by word_in when parsed
    const auto baseline = opts.text("baseline");  // required when parsed
    std::optional<std::regex> filter;
    if (const auto f = opts.text("filter")) {
        try {
            filter.emplace(*f);
        } catch (const std::regex_error& e) {
            throw InputError("--filter: '" + *f + "' is not a regular expression: " + e.what());
        }
    }

    const std::string db = opts.text("db").value_or("mdtune.db");
    if (!fs::exists(db)) throw InputError("--db: " + db + " does not exist");
    db::Store store(db, db::Store::Mode::ReadOnly);
    const db::BenchStore bench(store);
    const std::string m(to_string(metric));
    const auto base_runs = bench.runs_matching(*baseline, metric);
    if (base_runs.empty())
        throw InputError("--baseline: no " + m + " runs with label or commit '" + *baseline + "' in " + db +
                         " (mdtune bench list shows them)");
    std::string cand_sel;
    if (const auto c = opts.text("candidate")) cand_sel = *c;
    else {
        const auto latest = bench.latest_run(metric);
        cand_sel = latest ? latest->label : "";
    }
    const auto cand_runs = bench.runs_matching(cand_sel, metric);
    if (cand_runs.empty())
        throw InputError("--candidate: no " + m + " runs with label or commit '" + cand_sel + "' in " + db);
    std::set<long> base_ids;
    for (const auto& r : base_runs) base_ids.insert(r.id);
    for (const auto& r : cand_runs)
        if (base_ids.count(r.id))
            throw InputError("baseline '" + *baseline + "' and candidate '" + cand_sel + "' select the same run #" +
                             std::to_string(r.id) + (opts.has("candidate") ? "" : " (pass --candidate)"));

    std::set<std::string> hw_base, hw_cand;
    for (const auto& r : base_runs) hw_base.insert(r.hardware_id);
    for (const auto& r : cand_runs) hw_cand.insert(r.hardware_id);
    if (metric == db::BenchMetric::RealTime && hw_base != hw_cand)
        std::cerr << "mdtune bench: warning: baseline and candidate ran on different hardware; wall-time "
                     "differences may not be regressions\n";

    auto base = bench::run_medians_of(base_runs), cand = bench::run_medians_of(cand_runs);
    if (filter) {
        std::erase_if(base, [&](const auto& kv) { return !std::regex_search(kv.first, *filter); });
        std::erase_if(cand, [&](const auto& kv) { return !std::regex_search(kv.first, *filter); });
    }
    std::string floor_note;
    const bench::NoiseFloors floors =
        metric == db::BenchMetric::RealTime && !opts.has("no-history")
            ? historic_floors(bench, base_runs, cand_runs, hw_cand, floor_note)
            : bench::NoiseFloors{};
    bench::GateReport report = bench::run_gate(base, cand, gate, floors);
    report.baseline = describe(*baseline, base_runs);
    report.candidate = describe(cand_sel, cand_runs);
    report.metric = m;
    report.floor_note = floor_note;
    if (report.rows.empty())
        throw InputError("baseline and candidate have no benchmark in common" +
                         std::string(filter ? " (after --filter)" : ""));
    std::cout << bench::format_report(report, format);
    const bench::GateOutcome outcome = report.outcome();
    if (outcome == bench::GateOutcome::NoVerdict)
        std::cerr << "mdtune bench: no verdict: " << report.too_few_runs_text()
                  << " a side (each run is one process; mdtune bench run --runs " << gate.min_runs << ")\n";
    else if (outcome == bench::GateOutcome::Inconclusive)
        std::cerr << "mdtune bench: " << report.inconclusive_text() << "\n";
    return bench::exit_code(outcome);
}

int history(const std::string& benchmark, const ArgMap& opts) {
    const db::BenchMetric metric = metric_of(opts);
    const bench::GateOptions gate = gate_options(opts, metric);
    const std::string db = opts.text("db").value_or("mdtune.db");
    if (!fs::exists(db)) throw InputError("--db: " + db + " does not exist");
    db::Store store(db, db::Store::Mode::ReadOnly);
    const db::BenchStore bench(store);
    std::string name = benchmark;
    auto series = bench.series(name, metric);
    if (series.empty()) {
        // Not an exact name: accept a unique substring, else list candidates.
        std::vector<std::string> similar;
        for (const auto& n : bench.names(metric))
            if (n.find(name) != std::string::npos) similar.push_back(n);
        if (similar.size() != 1) {
            std::string msg = "no " + std::string(to_string(metric)) + " results for '" + name + "' in " + db;
            if (!similar.empty()) {
                msg += "; benchmarks whose name contains it:";
                for (std::size_t i = 0; i < similar.size() && i < 20; ++i) msg += "\n  " + similar[i];
                if (similar.size() > 20) msg += "\n  ... (" + std::to_string(similar.size() - 20) + " more)";
            }
            throw InputError(msg);
        }
        name = similar[0];
        series = bench.series(name, metric);
    }
    std::cout << bench::format_history(name, bench::build_history(series, gate), gate);
    return 0;
}

int list(const ArgMap& opts) {
    const db::BenchMetric metric = metric_of(opts);
    const std::string db = opts.text("db").value_or("mdtune.db");
    if (!fs::exists(db)) throw InputError("--db: " + db + " does not exist");
    db::Store store(db, db::Store::Mode::ReadOnly);
    const auto runs = db::BenchStore(store).runs(metric);
    std::printf("%-6s  %-24s  %-24s  %-12s  %-18s  %s\n", "run", "created", "label", "commit", "hardware", "build");
    for (const auto& r : runs)
        std::printf("%-6ld  %-24s  %-24s  %-12s  %-18s  %s\n", r.id, r.created_at.c_str(), r.label.c_str(),
                    r.git_commit.substr(0, 12).c_str(), r.hardware_id.substr(0, 18).c_str(), r.build_flags.c_str());
    std::printf("%zu %s run(s)\n", runs.size(), std::string(to_string(metric)).c_str());
    return 0;
}

// Bad benchmark output is bad input: a clear message and exit 2, nothing stored.
int guarded(const std::function<int()>& command) {
    try {
        return command();
    } catch (const bench::GbenchError& e) {
        std::cerr << "mdtune bench: error: " << e.what() << "\n";
        return 2;
    }
}

void add_common(CLI::App& cmd) {
    cmd.add_option("--db", "Trial database (default mdtune.db)")->type_name("TEXT");
    cmd.add_option("--metric", "real_time (default) or instructions")
        ->type_name("TEXT")
        ->check(word_in({"real_time", "instructions"}));
}

void add_gate_flags(CLI::App& cmd) {
    cmd.add_option("--alpha", "Significance level (default 0.05)")->type_name("NUMBER")->check(real_in(0.0, 0.5));
    cmd.add_option("--threshold", "Smallest change that counts, e.g. 3% (default)")->type_name("TEXT");
    cmd.add_option("--min-runs")
        ->description("Independent runs (processes) a side needed for a verdict (default " +
                      std::to_string(bench::kDefaultRuns) + " for real_time, 1 for instructions)")
        ->type_name("INT")
        ->check(integer_in(1, 100000));
}

void add_label_flags(CLI::App& cmd) {
    cmd.add_option("--label", "Run label (default: the short commit, -dirty when changed, else a timestamp)")
        ->type_name("TEXT");
    cmd.add_option("--commit", "Commit of the runs (default: HEAD of the current directory)")->type_name("TEXT");
}

void add_run(CLI::App& bench, int& exit_code) {
    CLI::App* cmd = bench.add_subcommand(
        "run", "Run the bench_* executables next to mdtune (or in --bench-dir) into the database");
    add_common(*cmd);
    add_label_flags(*cmd);
    cmd->add_option("--filter", "Benchmarks whose name matches this regular expression")->type_name("REGEX");
    cmd->add_option("--runs")
        ->description("Processes per suite, interleaved across suites; each is one independent sample (default " +
                      std::to_string(bench::kDefaultRuns) + " for real_time, 1 for instructions)")
        ->type_name("INT")
        ->check(integer_in(1, 1000));
    cmd->add_option("--repetitions")
        ->description("Repetitions inside each run (default " + std::to_string(bench::kDefaultRepetitionsPerRun) +
                      " for real_time, 1 for instructions)")
        ->type_name("INT")
        ->check(integer_in(1, 1000));
    cmd->add_option("--bench-dir", "Folder of the bench_* executables")->type_name("DIR");
    cmd->add_option("--suites", "bench_a,bench_b: only these executables")->type_name("TEXT");
    cmd->add_option("--min-time", "Google Benchmark's minimum time per benchmark, seconds")
        ->type_name("SECONDS")
        ->check(real_in(0.0, 3600.0));
    cmd->add_flag("--no-interleave")->description("Run repetitions in order, not randomly interleaved");
    cmd->add_option("--out", "Keep the suites' JSON in this folder")->type_name("DIR");
    cmd->add_option("--valgrind", "valgrind executable (--metric instructions)")->type_name("PATH");
    cmd->add_flag("--quiet")->description("Less output from the suites");
    cmd->callback([cmd, &exit_code] {
        const GivenFlags opts(*cmd);
        check_output_file("--db", opts.text("db").value_or("mdtune.db"));
        if (const auto out = opts.text("out")) check_output_folder("--out", *out);
        exit_code = guarded([&] { return run(opts); });
    });
}

void add_ingest(CLI::App& bench, int& exit_code) {
    CLI::App* cmd = bench.add_subcommand("ingest", "Store Google Benchmark JSON files produced elsewhere");
    auto files = std::make_shared<std::vector<std::string>>();
    cmd->add_option("FILE.json", *files, "Google Benchmark --benchmark_format=json output")->required();
    add_common(*cmd);
    add_label_flags(*cmd);
    cmd->add_option("--hardware", "Hardware id of the machine that ran them (default: this one)")->type_name("ID");
    cmd->callback([cmd, files, &exit_code] {
        const GivenFlags opts(*cmd);
        check_output_file("--db", opts.text("db").value_or("mdtune.db"));
        exit_code = guarded([&] { return ingest(*files, opts); });
    });
}

void add_compare(CLI::App& bench, int& exit_code) {
    CLI::App* cmd = bench.add_subcommand(
        "compare", "The regression gate: exit 1 when a benchmark regressed significantly beyond the threshold");
    cmd->footer("Each run (one process of a suite) gives one value per benchmark: the median of its repetitions.\n"
                "Fewer than --min-runs a side: no verdict (exit 2). A benchmark too noisy to resolve the threshold\n"
                "makes the comparison inconclusive (exit 3; --allow-inconclusive: exit 0), unless another regressed\n"
                "(exit 1). Instruction counts (--metric instructions) are exact. Wall-time p-values are Holm-corrected over the\n"
                "benchmarks compared, so alpha bounds the chance of any false alarm in one comparison\n"
                "(--per-benchmark-alpha: each benchmark tested at alpha alone). Against a baseline measured at\n"
                "another time a change must also exceed the benchmark's historic drift on this hardware.");
    cmd->add_option("--baseline", "LABEL|COMMIT of the baseline runs")->type_name("TEXT")->required();
    cmd->add_option("--candidate", "LABEL|COMMIT of the candidate runs (default: the latest run)")->type_name("TEXT");
    add_common(*cmd);
    add_gate_flags(*cmd);
    cmd->add_option("--filter", "Only benchmarks whose name matches this regular expression")->type_name("REGEX");
    cmd->add_option("--format", "table (default), markdown or json")
        ->type_name("TEXT")
        ->check(word_in({"table", "markdown", "json"}));
    cmd->add_flag("--per-benchmark-alpha")->description("Test each benchmark at alpha alone (no Holm correction)");
    cmd->add_flag("--allow-inconclusive")
        ->description("Pass (exit 0) when some benchmark is too noisy to resolve the threshold and none regressed");
    cmd->add_flag("--no-history")
        ->description("Ignore the benchmarks' historic drift on this hardware (wall time, baseline from another time)");
    cmd->callback([cmd, &exit_code] { exit_code = guarded([&] { return compare(GivenFlags(*cmd)); }); });
}

void add_history(CLI::App& bench, int& exit_code) {
    CLI::App* cmd = bench.add_subcommand("history", "One benchmark's results over the runs, with change points");
    auto name = std::make_shared<std::string>();
    cmd->add_option("NAME", *name, "Benchmark name (or a unique part of it)")->required();
    add_common(*cmd);
    add_gate_flags(*cmd);
    cmd->callback([cmd, name, &exit_code] { exit_code = guarded([&] { return history(*name, GivenFlags(*cmd)); }); });
}

void add_list(CLI::App& bench, int& exit_code) {
    CLI::App* cmd = bench.add_subcommand("list", "The stored benchmark runs");
    add_common(*cmd);
    cmd->callback([cmd, &exit_code] { exit_code = guarded([&] { return list(GivenFlags(*cmd)); }); });
}

}  // namespace

void add_bench_command(CLI::App& app, int& exit_code) {
    add_command_group(app, "bench", "Performance regression: run, ingest, compare, history, list", exit_code,
                      {add_run, add_ingest, add_compare, add_history, add_list});
}

}  // namespace mdtune::cli
