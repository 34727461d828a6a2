#pragma once
// Drawing points of a search space by index, without building the space: a
// seeded sample of distinct indices that pass a predicate (feasibility).
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

namespace mdtune::tuner {

// At or below this many indices a sample checks every one (exact, space order
// known); above it, distinct indices are drawn until enough pass.
inline constexpr std::uint64_t kDenseSampleLimit = std::uint64_t{1} << 16;
// The most indices "every one that passes" may be asked of (8 bytes each).
inline constexpr std::uint64_t kMaxDenseIndices = std::uint64_t{1} << 24;

// A uniform draw from [0, n), n > 0, by rejection: the standard distributions
// differ between library implementations, and a seed must draw the same on every build.
std::uint64_t uniform_below(std::mt19937_64& rng, std::uint64_t n);

// Fisher-Yates with uniform_below.
void seeded_shuffle(std::vector<std::uint64_t>& v, unsigned long seed);

struct IndexSample {
    std::vector<std::uint64_t> indices;  // distinct, in random (seeded) order
    bool examined_all = false;           // accept() was asked of every index in [0, n)
};

// Up to `count` distinct indices of [0, n) for which accept() holds, uniformly
// without replacement (count 0: all of them; n must then be at most
// kMaxDenseIndices, else std::invalid_argument). Same seed, same sample.
// Large n: gives up after max(100000, 16 x count) draws, so a space with almost
// nothing feasible ends with fewer indices rather than never.
IndexSample sample_indices(std::uint64_t n, std::uint64_t count, unsigned long seed,
                           const std::function<bool(std::uint64_t)>& accept);

}  // namespace mdtune::tuner
