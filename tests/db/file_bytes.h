#pragma once
// The database tests' view of files: whole contents, to show an open left a file
// byte-identical.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace mdtest {

inline std::string read_bytes(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::filesystem::path& p, const std::string& bytes) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out << bytes;
}

}  // namespace mdtest
