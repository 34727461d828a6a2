#pragma once
// A file's whole contents (empty when it cannot be read), for the tests that compare
// what a program wrote or read.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace mdtest {

inline std::string file_text(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace mdtest
