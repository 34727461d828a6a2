#pragma once
// Instruction counts per benchmark iteration from callgrind, without touching
// the benchmark code: callgrind zeroes its counters when Google Benchmark enters
// State::StartKeepRunning (the start of the timed loop) and dumps them when it
// enters State::FinishKeepRunning (its end), so each dump holds exactly one
// timed loop: the instructions of all its iterations, in all threads.
// Two ways to get there:
//  - hooks (preferred): libmdtune_callgrind_hooks.so, preloaded, wraps both
//    functions with callgrind client requests and keeps instrumentation off
//    outside timed loops, so set-up runs fast;
//  - options: --zero-before / --dump-before on the two functions, everything
//    instrumented (for suites that link Google Benchmark statically).
#include <string>
#include <vector>

#include "mdtune/bench/gbench_json.h"

namespace mdtune::bench {

struct CallgrindDump {
    std::string file;
    int part = 0;             // dump sequence number within the process
    std::string trigger;      // e.g. "Dump Before benchmark::State::FinishKeepRunning()"
    long long instructions = 0;  // Ir total of the dump
};

// valgrind options that produce one dump per timed loop into out_pattern
// (callgrind expands %p to the pid; dumps get ".N" appended).
enum class LoopMarking { Hooks, Options };
std::vector<std::string> callgrind_options(const std::string& out_pattern, LoopMarking marking);

// Environment for reproducible counts: OpenMP threads that sleep instead of
// spinning (spin loops add a scheduling-dependent number of instructions), and
// symbols bound at start-up rather than on first call.
std::vector<std::pair<std::string, std::string>> deterministic_openmp_env();

// Reads a callgrind output file's header; throws GbenchError when it has no total.
CallgrindDump read_callgrind_dump(const std::string& path);

// The loop dumps (triggered at FinishKeepRunning, or by the hooks' client
// request) among the files in `dir` whose names start with `prefix`, in order.
std::vector<CallgrindDump> loop_dumps(const std::string& dir, const std::string& prefix);

// Sets counters["instructions"] = dump / iterations on each iteration run without
// error, matching dumps to runs in order. Returns false (changing nothing) when
// the numbers differ, e.g. when a benchmark skipped with an error before or
// inside its loop; the caller then measures benchmarks one by one.
bool attach_instructions(GbenchReport& report, const std::vector<CallgrindDump>& dumps);

}  // namespace mdtune::bench
