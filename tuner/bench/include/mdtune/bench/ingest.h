#pragma once
// From parsed Google Benchmark reports to database rows, and from stored rows to
// the gate's samples.
#include <string>
#include <vector>

#include "mdtune/bench/compare.h"
#include "mdtune/bench/gbench_json.h"
#include "mdtune/db/bench_store.h"

namespace mdtune::bench {

// The counter `mdtune bench run --metric instructions` adds to each run of its
// JSON output: instructions per iteration, measured under callgrind.
inline constexpr const char* kInstructionsCounter = "instructions";

struct RunMeta {
    std::string label;
    std::string git_commit;
    std::string hardware_id;
    db::BenchMetric metric = db::BenchMetric::RealTime;
};

struct Converted {
    db::BenchRunRow row;
    std::vector<std::string> skipped;  // "name: error message" of runs that reported an error
};

// Every repetition of every iteration run (aggregates are dropped: the gate
// needs the repetitions). Real time: value = real_time in its time unit;
// instructions: value = the "instructions" counter. Throws GbenchError when the
// report has no usable repetition or a run lacks the instructions counter.
Converted to_run_row(const GbenchReport& report, const RunMeta& meta);

// Pools repetitions per benchmark over runs; seconds for real time.
Samples samples_of(const std::vector<db::BenchRunRow>& runs);

}  // namespace mdtune::bench
