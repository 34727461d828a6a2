#pragma once
// Google Benchmark results in the trial database (tables bench_runs and
// bench_results, schema v3): what the performance-regression gate compares.
// The only place with SQL for them is db/src/bench_store.cpp.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mdtune/db/store.h"

namespace mdtune::db {

// What a result's value measures: wall time per iteration, or instructions per
// iteration counted under valgrind (deterministic).
enum class BenchMetric { RealTime, Instructions };
std::string_view to_string(BenchMetric m);  // "real_time" | "instructions" (as stored)
std::optional<BenchMetric> parse_bench_metric(std::string_view text);

// One repetition of one benchmark.
struct BenchResultRow {
    std::string name;        // Google Benchmark run name, e.g. "BM_Settle/1000/threads:1/real_time"
    int repetition = 0;      // repetition index within its run
    double value = 0.0;      // per iteration, in `unit`
    std::string unit;        // ns | us | ms | s | instructions
    long iterations = 0;
    std::string extra_json;  // cpu_time, counters, label, ... ("" = none)
};

struct BenchRunRow {
    long id = 0;             // set by the store
    std::string label;
    std::string git_commit;  // "" when unknown
    std::string build_flags;
    std::string hardware_id;
    BenchMetric metric = BenchMetric::RealTime;
    std::string created_at;  // ISO 8601 UTC, set by the store
    std::string context_json;
    std::vector<BenchResultRow> results;  // empty when listed without results
};

// A benchmark's values in one run, for history and comparisons.
struct BenchSeriesPoint {
    long run_id = 0;
    std::string label, git_commit, hardware_id, created_at;
    std::vector<double> values;  // all repetitions, in `unit`
    std::string unit;
};

class BenchStore {
public:
    explicit BenchStore(Store& store) : store_(store) {}

    // Inserts the runs and all their results in ONE transaction: on any failure
    // nothing is written and DbError is thrown. Returns the new run ids.
    std::vector<long> insert(const std::vector<BenchRunRow>& runs);

    // Runs of `metric` whose label equals `selector`, or, when no label matches,
    // whose git_commit starts with it (at least 4 characters). Oldest first.
    std::vector<BenchRunRow> runs_matching(const std::string& selector, BenchMetric metric,
                                           bool with_results = true) const;
    // All runs of a metric without their results, oldest first.
    std::vector<BenchRunRow> runs(BenchMetric metric) const;
    // The most recent run of a metric (highest id).
    std::optional<BenchRunRow> latest_run(BenchMetric metric) const;

    // Every run that has results for `name`, oldest first.
    std::vector<BenchSeriesPoint> series(const std::string& name, BenchMetric metric) const;
    // Distinct benchmark names stored for a metric, sorted.
    std::vector<std::string> names(BenchMetric metric) const;

    long run_count() const;
    long result_count() const;

private:
    Store& store_;
};

}  // namespace mdtune::db
