#pragma once
// The one way mdtune starts a child process (mdcore trials, MPI benchmarks under
// mpirun/srun, Google Benchmark suites): fork + exec without a shell, an optional
// own process group, a timeout and a stop request that take the whole group down
// (SIGTERM, a grace period, SIGKILL), stdout captured up to a cap (the rest is
// drained so the child never blocks) or streamed as lines, a bounded stderr tail,
// and PR_SET_PDEATHSIG so a child never outlives an mdtune that was SIGKILLed.
// The death signal fires when the launching *thread* exits: call launch() from a
// thread that lives at least as long as the child (it does: launch() waits).
#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace mdtune::process {

enum class StdoutMode {
    Capture,  // kept in LaunchResult::stdout_text, up to stdout_limit bytes
    Lines,    // each complete line passed to on_line as it arrives
    Inherit,  // the child writes to our stdout
    Discard,  // /dev/null
};

enum class StderrMode {
    Tail,     // the last stderr_tail_bytes kept in LaunchResult::stderr_tail
    Inherit,  // the child writes to our stderr
    File,     // written to stderr_file (truncated)
};

enum class ProcessGroup {
    Own,      // the child leads a new group: timeouts kill launcher and ranks together
    Inherit,  // stays in ours (Ctrl-C on a terminal reaches it directly)
};

inline constexpr std::size_t kDefaultStdoutLimit = 16u << 20;  // 16 MiB; an mdcore report is a few KiB

// Every member has an initialiser, so a designated initialiser such as
// {.timeout_s = 30} leaves nothing for -Wmissing-field-initializers.
struct LaunchOptions {
    std::vector<std::pair<std::string, std::string>> env{};  // set on top of ours
    std::string cwd{};                                       // "" = ours
    double timeout_s = 0;                                    // 0 = no limit
    double grace_s = 2;                                      // SIGTERM -> SIGKILL
    StdoutMode out = StdoutMode::Capture;
    std::size_t stdout_limit = kDefaultStdoutLimit;  // Capture: bytes kept; Lines: longest line kept
    std::function<void(const std::string&)> on_line{};       // Lines
    StderrMode err = StderrMode::Tail;
    std::size_t stderr_tail_bytes = 64u << 10;
    std::string stderr_file{};                               // File
    ProcessGroup group = ProcessGroup::Own;
    std::function<bool()> stop{};                            // polled; true stops the child
};

struct LaunchResult {
    int exit_code = -1;             // valid when the child exited (signal == 0, not stopped by us)
    int signal = 0;                 // the signal that ended it, or 0
    bool timed_out = false;
    bool interrupted = false;       // stopped because options.stop() said so
    bool stdout_overflow = false;   // more than stdout_limit bytes (Capture) or a longer line (Lines)
    std::size_t stdout_bytes = 0;   // everything the child wrote to stdout, kept or not
    std::string stdout_text;        // Capture
    std::string stderr_tail;        // Tail
    double wall_s = 0;
    bool exited_ok() const { return !timed_out && !interrupted && signal == 0 && exit_code == 0; }
    // "exit code 3", "killed by signal 11 (Segmentation fault)", "timed out after 5 s", ...
    std::string describe() const;
};

// Throws std::runtime_error naming the program when it cannot be started (not
// found, not executable, bad cwd); everything after exec is in the result.
LaunchResult launch(const std::vector<std::string>& argv, const LaunchOptions& options = {});

// The last `lines` lines of text (all of it when shorter).
std::string tail_lines(const std::string& text, int lines);

}  // namespace mdtune::process
