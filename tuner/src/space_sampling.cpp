// Seeded sampling of space indices: dense (check all, shuffle) for small spaces,
// rejection over drawn indices for large ones, so memory follows the sample.
#include "space_sampling.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <unordered_set>

namespace mdtune::tuner {

std::uint64_t uniform_below(std::mt19937_64& rng, std::uint64_t n) {
    const std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
    const std::uint64_t limit = max - max % n;
    std::uint64_t x;
    do x = rng();
    while (x >= limit);
    return x % n;
}

void seeded_shuffle(std::vector<std::uint64_t>& v, unsigned long seed) {
    std::mt19937_64 rng(seed);
    for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[uniform_below(rng, i)]);
}

namespace {

IndexSample dense_sample(std::uint64_t n, std::uint64_t count, unsigned long seed,
                         const std::function<bool(std::uint64_t)>& accept) {
    IndexSample out;
    for (std::uint64_t k = 0; k < n; ++k)
        if (accept(k)) out.indices.push_back(k);
    out.examined_all = true;
    seeded_shuffle(out.indices, seed);
    if (count > 0 && count < out.indices.size()) out.indices.resize(count);
    return out;
}

IndexSample sparse_sample(std::uint64_t n, std::uint64_t count, unsigned long seed,
                          const std::function<bool(std::uint64_t)>& accept) {
    IndexSample out;
    const std::uint64_t max_draws = std::min(n, std::max<std::uint64_t>(100000, 16 * count));
    std::unordered_set<std::uint64_t> drawn;
    std::mt19937_64 rng(seed);
    while (out.indices.size() < count && drawn.size() < max_draws) {
        const std::uint64_t k = uniform_below(rng, n);
        if (drawn.insert(k).second && accept(k)) out.indices.push_back(k);
    }
    out.examined_all = drawn.size() == n;
    return out;
}

}  // namespace

IndexSample sample_indices(std::uint64_t n, std::uint64_t count, unsigned long seed,
                           const std::function<bool(std::uint64_t)>& accept) {
    if (n <= kDenseSampleLimit) return dense_sample(n, count, seed, accept);
    if (count == 0) {
        if (n > kMaxDenseIndices)
            throw std::invalid_argument("cannot take every feasible point of " + std::to_string(n) +
                                        " points (at most " + std::to_string(kMaxDenseIndices) + "): give a budget");
        return dense_sample(n, count, seed, accept);
    }
    return sparse_sample(n, count, seed, accept);
}

}  // namespace mdtune::tuner
