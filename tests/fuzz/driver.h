#pragma once
// The fuzzing driver: runs a parser on deterministic mutants in child processes
// (a batch per child), so a crash or a hang is caught, counted and its input saved
// as a reproducer file, and the run goes on with the next case.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mutator.h"

namespace mdtest::fuzz {

enum class Verdict : std::uint8_t {
    Accepted,  // parsed, and the result is what the format allows
    Rejected,  // the parser's own exception type, with a message naming the input
    Untyped,   // another exception, or a message without the input's name
    Garbage,   // accepted although the input breaks the format ("exit 0 on garbage")
};

struct CaseResult {
    Verdict verdict = Verdict::Accepted;
    std::string detail;  // why, for Untyped and Garbage
};

struct Target {
    std::string name;       // also the reproducer folder's name
    std::string extension;  // of reproducer files, e.g. ".toml"
    MutationSpace space;
    std::function<CaseResult(const std::string& input)> run;  // called in the child
};

struct FuzzOptions {
    std::uint64_t seed = 17;
    std::uint64_t cases = 2000;
    std::uint64_t batch = 500;          // cases per child process
    unsigned case_timeout_s = 10;       // longer is a hang
    std::uint64_t memory_limit = 2ULL << 30;  // address space of a child, bytes
    std::string reproducer_dir;         // crashes, hangs and findings are written here
};

struct FuzzStats {
    std::uint64_t cases = 0, accepted = 0, rejected = 0, crashes = 0, hangs = 0, untyped = 0, garbage = 0;
    std::vector<std::string> findings;  // "kind case N: detail (reproducer path)", the first few
    std::string summary(const std::string& name) const;
};

FuzzStats run_fuzz(const Target& target, const FuzzOptions& options);

// The files of a corpus folder, in name order.
std::vector<std::string> load_corpus(const std::string& dir);

}  // namespace mdtest::fuzz
