#pragma once
// Runs a shell command line for the command-line tests: exit code and the
// combined stdout + stderr.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace mdtest {

struct CommandResult {
    int exit_code;       // -1 when the command did not exit normally or could not start
    std::string output;  // stdout + stderr
};

inline CommandResult run_command(const std::string& command_line) {
    FILE* pipe = popen((command_line + " 2>&1").c_str(), "r");
    if (!pipe) return {-1, "popen failed"};
    std::string out;
    std::array<char, 4096> buf;
    while (fgets(buf.data(), static_cast<int>(buf.size()), pipe)) out += buf.data();
    const int status = pclose(pipe);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

}  // namespace mdtest
