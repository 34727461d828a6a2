#pragma once
// Splits a command prefix written as on a shell command line ("mpirun -np 2
// --mca btl 'self,vader'") into words, never handing it to a shell: whitespace
// separates words, '...' is literal, "..." allows \" \\ \$ \` escapes, a backslash
// outside quotes escapes the next character. No expansion of any kind.
#include <stdexcept>
#include <string>
#include <vector>

namespace mdtune::process {

// An unbalanced quote or a trailing backslash; the message gives the position.
struct CommandLineError : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

std::vector<std::string> split_command_line(const std::string& text);

}  // namespace mdtune::process
