#pragma once
// Deterministic mutations of small valid inputs: case i of seed s is always the
// same bytes, so a failure is reproduced from its index alone.
#include <cstdint>
#include <string>
#include <vector>

namespace mdtest::fuzz {

struct MutationSpace {
    std::vector<std::string> seeds;     // valid inputs (the corpus)
    std::vector<std::string> tokens;    // the format's words, spliced in and swapped
    std::string open_nesting;           // what deep nesting repeats, e.g. "[" or "{\"a\": ["
    std::size_t max_size = 1 << 20;     // mutants are cut to this many bytes
};

// Case `index` of `seed`: one corpus entry with 1 to 4 mutations (bit flips, byte
// insertion and deletion, token splices, numbers swapped for extremes such as
// 2147483647, -1, 1e999 or nan, a line repeated thousands of times, deep nesting).
std::string mutant(const MutationSpace& space, std::uint64_t seed, std::uint64_t index);

}  // namespace mdtest::fuzz
