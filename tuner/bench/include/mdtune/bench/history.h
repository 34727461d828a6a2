#pragma once
// A benchmark's trend over commits: the stored runs grouped by git commit (runs
// of one commit pooled), each compared with the previous commit by the gate's
// test; a "step" is a significant change beyond the threshold between two
// consecutive commits.
#include <string>
#include <vector>

#include "mdtune/bench/compare.h"
#include "mdtune/db/bench_store.h"

namespace mdtune::bench {

struct HistoryEntry {
    std::string commit;      // git commit ("" when unknown: grouped by label instead)
    std::string label;       // label of the first run of the group
    std::string first_seen;  // created_at of its first run
    long runs = 0;
    std::vector<double> values;  // pooled repetitions, in seconds or instructions
    double median = 0, spread = 0;
    bool has_previous = false;
    BenchComparison vs_previous;  // valid when has_previous
    bool step = false;            // vs_previous is a regression or an improvement
};

// Groups consecutive-in-time runs of the same commit (a commit measured again
// later, after others, starts a new group), converts time units to seconds.
std::vector<HistoryEntry> build_history(const std::vector<db::BenchSeriesPoint>& points, const GateOptions& options);

std::string format_history(const std::string& name, const std::vector<HistoryEntry>& history,
                           const GateOptions& options);

}  // namespace mdtune::bench
