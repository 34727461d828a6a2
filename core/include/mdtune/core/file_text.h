#pragma once
// A whole file read into memory (bytes as they are: no newline translation). Every
// layer above the engine reads its input files (spaces, rules, benchmark JSON, a
// user's .gro/.top) through it; each caller names the failure in its own error type,
// so the status says which step failed.
#include <string>

namespace mdtune::inline core {

struct FileText {
    enum class Status { Ok, CannotOpen, CannotRead };
    Status status = Status::Ok;
    std::string text;  // what was read (all of it when Ok; empty when CannotOpen)
};

FileText read_file_text(const std::string& path);

}  // namespace mdtune::core
