#pragma once
// Reading a user's text input with bounds: only a regular file (a device such as
// /dev/zero, a pipe or a socket would never end or would block), at most a limit of
// bytes (checked while reading, since a file may grow), lines at most a limit long;
// and an excerpt of a bad line for a message, short and printable, so a binary or
// megabyte-long line cannot flood the terminal. Every reader of a user's file
// (.gro, .top, .mdp, mdtune's spaces, rules and benchmark JSON) goes through it.
#include <cstddef>
#include <string>
#include <string_view>

namespace mdcore {

inline constexpr std::size_t kMaxInputLineBytes = std::size_t{1} << 20;       // one line of any text input
inline constexpr std::size_t kMaxTextFileBytes = std::size_t{256} << 20;      // one .top/.itp, space, rules file, JSON
inline constexpr std::size_t kMaxGroFileBytes = std::size_t{1} << 30;         // a .gro: some 15 million atoms
inline constexpr std::size_t kMaxMdpFileBytes = std::size_t{16} << 20;        // a .mdp

// Reads the regular file `path` whole into `text` if it holds at most max_bytes.
// Returns "" on success, else why not as the end of a sentence about the file
// ("does not exist", "is not a regular file (a device, pipe or socket?)", "is larger
// than the limit of 256 MiB", ...), for a message "FILE: cannot read ...: it " + why.
std::string read_text_file(const std::string& path, std::size_t max_bytes, std::string& text);

// The 1-based number of the first line of `text` longer than max_line_bytes (its
// '\n' not counted), 0 when there is none.
std::size_t first_long_line(std::string_view text, std::size_t max_line_bytes = kMaxInputLineBytes);

// At most max_chars characters of s, unprintable ones as '?', "..." when cut.
std::string printable_excerpt(std::string_view s, std::size_t max_chars = 80);
// The same between delimiters: 'abc'.
std::string quote_excerpt(std::string_view s, char delimiter = '\'');

// A limit as people read it: "256 MiB", "2 GiB", "64 KiB", "100 bytes".
std::string size_text(std::size_t bytes);

}  // namespace mdcore
