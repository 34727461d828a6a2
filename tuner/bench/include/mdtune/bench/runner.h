#pragma once
// Runs the Google Benchmark suites (the bench_* executables of a build) and
// returns their parsed JSON; for the instruction metric under callgrind.
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "mdtune/bench/gbench_json.h"
#include "mdtune/db/bench_store.h"

namespace mdtune::bench {

struct SuiteOptions {
    std::string filter;             // --benchmark_filter regex ("" = every benchmark)
    int repetitions = 5;            // wall time; instructions default to 1 (deterministic)
    bool random_interleaving = true;  // wall time only
    std::string min_time;           // --benchmark_min_time when non-empty (wall time)
    std::string valgrind = "valgrind";
    std::string callgrind_hooks;    // libmdtune_callgrind_hooks.so ("" = instrument everything)
    std::string work_dir;           // existing directory for JSON and callgrind files
    bool quiet = false;             // hide the suites' console output
};

// Regular executable files named bench_* in dir, sorted by name.
std::vector<std::string> find_suites(const std::string& dir);

// Names the suite would run for the filter (--benchmark_list_tests).
std::vector<std::string> list_benchmarks(const std::string& exe, const std::string& filter);

// Runs one suite and parses its JSON. Real time: all repetitions with random
// interleaving. Instructions: under callgrind with --benchmark_min_time=0 (one
// iteration per repetition), the counter "instructions" added to every run.
// Throws GbenchError when the suite fails or its output is unusable.
GbenchReport run_suite(const std::string& exe, db::BenchMetric metric, const SuiteOptions& options, std::ostream& log);

// Escaped regex matching exactly these benchmark names.
std::string exact_filter(const std::string& name);
std::string exact_filter_any(const std::vector<std::string>& names);

}  // namespace mdtune::bench
