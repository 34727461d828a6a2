#pragma once
// Internal: run a child process (no shell), optionally capturing its stdout.
#include <string>
#include <utility>
#include <vector>

namespace mdtune::bench {

struct ProcessResult {
    int exit_code = -1;    // valid when signal == 0
    int signal = 0;        // the signal that killed it, or 0
    std::string output;    // stdout when captured
    bool ok() const { return signal == 0 && exit_code == 0; }
    std::string describe() const;  // "exit code 3" / "killed by signal 11 (Segmentation fault)"
};

enum class Stdout { Inherit, Capture, Discard };

struct ProcessOptions {
    std::vector<std::pair<std::string, std::string>> env;  // set on top of ours
    Stdout out = Stdout::Inherit;
    std::string stderr_file;  // "" = inherit, "/dev/null" to discard
    std::string cwd;          // "" = ours
};

// Throws std::runtime_error when the program cannot be started.
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

}  // namespace mdtune::bench
