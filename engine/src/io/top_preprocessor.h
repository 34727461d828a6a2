#pragma once
// The topology preprocessor: grompp's cpp subset (#include, #define, #undef,
// #ifdef/#ifndef/#else/#endif, macro substitution) applied to a .top and the
// files it includes, yielding the logical lines the .top parser reads.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "io/text_input.h"
#include "mdcore/text_file.h"

namespace mdcore::input {

// Limits that keep hostile or mistaken input from exhausting the stack or memory.
inline constexpr int kMaxIncludeDepth = 64;                                 // files open at once, the .top included
inline constexpr std::size_t kMaxTopologyLineBytes = kMaxInputLineBytes;    // a line, also after joining and expansion
inline constexpr std::size_t kMaxTopologyFileBytes = kMaxTextFileBytes;     // one file
inline constexpr std::size_t kMaxTopologyTotalBytes = std::size_t{1} << 30;   // all files read, repeats counted
inline constexpr int kMaxMacroRounds = 100;                                   // expansion rounds on one line

struct PreprocessOptions {
    std::vector<std::string> include_dirs;                     // searched after the including file's folder
    std::vector<std::pair<std::string, std::string>> defines;  // from the run (-DNAME or -DNAME=VALUE)
};

// One logical line of the expanded topology: continuation lines ('\' at the end) joined, the ';' comment
// removed, whitespace trimmed, macros substituted; preprocessor lines consumed; empty lines dropped.
struct PreprocessedLine {
    Where where;  // file and line where the logical line starts, with the include chain in where.context
    std::string text;
};

// Throws InputError "FILE:LINE: message (included from ...)" on any error. The
// include chain runs from the top file inward: " (included from a.top:3, b.itp:7)"
// means a.top line 3 includes b.itp, whose line 7 includes FILE.
//
// #include "f" and <f> search alike: an absolute f as is; else the including
// file's folder, then options.include_dirs, then default_topology_dirs().
// A macro with an empty value (#define FLEXIBLE, -DPOSRES) is not substituted,
// as in grompp; it only serves #ifdef.
std::vector<PreprocessedLine> preprocess_topology(const std::string& path, const PreprocessOptions& options);

// The directories searched after --include dirs: GMXLIB (colon-separated), then $GMXDATA/top, then
// /usr/share/gromacs/top.
std::vector<std::string> default_topology_dirs();

}  // namespace mdcore::input
