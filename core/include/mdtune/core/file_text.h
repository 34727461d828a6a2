#pragma once
// A whole file read into memory (bytes as they are: no newline translation). Every
// layer above the engine reads its input files (spaces, rules, benchmark JSON, a
// user's .gro/.top) through it, with the engine's bounds (mdcore/text_file.h): a
// regular file only, at most a limit of bytes. Each caller names the failure in its
// own error type.
#include <cstddef>
#include <string>

#include "mdcore/text_file.h"

namespace mdtune::inline core {

struct FileText {
    // "" when the file was read whole; else why not, as the end of a sentence about
    // the file ("does not exist", "is not a regular file (a device, pipe or socket?)",
    // "is larger than the limit of 256 MiB"): "PATH: cannot read ...: it " + error.
    std::string error;
    std::string text;  // all of it when error is ""
    bool ok() const { return error.empty(); }
};

FileText read_file_text(const std::string& path, std::size_t max_bytes = mdcore::kMaxTextFileBytes);

}  // namespace mdtune::core
