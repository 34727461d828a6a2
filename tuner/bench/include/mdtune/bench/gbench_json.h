#pragma once
// Google Benchmark's JSON output (--benchmark_format=json or --benchmark_out),
// parsed strictly: every field the gate relies on is checked, and an error names
// the file and either the byte offset (syntax, truncation) or the JSON path of
// the offending field.
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mdtune::bench {

struct GbenchError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

enum class RunType { Iteration, Aggregate };

struct GbenchRun {
    std::string name;            // as written; aggregates carry a suffix ("..._median")
    std::string run_name;        // the benchmark itself (equals name for iteration runs)
    RunType type = RunType::Iteration;
    std::string aggregate_name;  // mean | median | stddev | cv | ... (aggregates only)
    int repetitions = 1;
    int repetition_index = 0;    // iteration runs; assigned in file order when absent
    int threads = 1;
    long iterations = 0;
    double real_time = 0.0;      // per iteration, in time_unit
    double cpu_time = 0.0;
    std::string time_unit;       // ns | us | ms | s
    std::map<std::string, double> counters;  // user counters (NaN where the file had NaN)
    std::string label;
    bool error = false;          // error_occurred (SkipWithError)
    std::string error_message;
};

struct GbenchReport {
    std::string source;          // file name or "<stdin>", for messages
    std::string context_json;    // the "context" object, re-serialised
    std::map<std::string, std::string> context;  // its string-valued fields
    std::vector<GbenchRun> runs; // in file order
    std::size_t iteration_runs() const;
};

// Throws GbenchError on malformed or truncated input, wrong types, missing
// fields, unknown time units, negative times or duplicate repetitions.
GbenchReport parse_gbench_json(std::string_view text, const std::string& source);
GbenchReport read_gbench_file(const std::string& path);

// The report as Google Benchmark JSON again (NaN counters as null), e.g. with
// instruction counters added, so `mdtune bench ingest` can read it elsewhere.
std::string to_gbench_json(const GbenchReport& report);

// Seconds per `unit` (ns, us, ms, s); throws GbenchError for anything else.
double seconds_per_unit(std::string_view unit);

// Build flags recorded by the suites (mdcore_compiler + mdcore_flags custom
// context), else Google Benchmark's library_build_type.
std::string build_flags_of(const GbenchReport& report);

}  // namespace mdtune::bench
