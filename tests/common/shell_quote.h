#pragma once
// POSIX single quotes around a word ('it'\''s'), for paths on the command lines
// the CLI tests hand to a shell.
#include <string>

namespace mdtest {

inline std::string sh_quoted(const std::string& word) {
    std::string out = "'";
    for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

}  // namespace mdtest
