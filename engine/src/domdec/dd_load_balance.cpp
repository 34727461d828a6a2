#include "domdec/dd_load_balance.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

namespace mdcore {

std::vector<double> balanced_bounds(const std::vector<double>& bounds, const std::vector<double>& load,
                                    double min_width) {
    const std::size_t n = load.size();
    if (bounds.size() != n + 1 || n == 0) throw std::invalid_argument("balanced_bounds: need one load per cell");
    const double length = bounds.back() - bounds.front();
    if (min_width * static_cast<double>(n) > length)
        throw std::invalid_argument("balanced_bounds: " + std::to_string(n) + " cells of at least " +
                                    std::to_string(min_width) + " nm do not fit " + std::to_string(length) + " nm");
    std::vector<double> width(n), target(n);
    double speed_sum = 0;
    for (std::size_t k = 0; k < n; ++k) {
        width[k] = bounds[k + 1] - bounds[k];
        if (!(load[k] > 0)) return bounds;  // no measurement (an empty interval): keep
        target[k] = width[k] / load[k];      // nm per second: the slab's speed
        speed_sum += target[k];
    }
    // Equal time for all: widths in proportion to speed; half way there.
    for (std::size_t k = 0; k < n; ++k) target[k] = 0.5 * (width[k] + length * target[k] / speed_sum);
    // Raise the slabs below the minimum, take the difference from the others in
    // proportion to their spare width; repeat until none is below.
    std::vector<char> fixed(n, 0);
    for (std::size_t round = 0; round < n; ++round) {
        double deficit = 0, spare = 0;
        for (std::size_t k = 0; k < n; ++k)
            if (!fixed[k] && target[k] < min_width) {
                deficit += min_width - target[k];
                target[k] = min_width;
                fixed[k] = 1;
            }
        if (deficit == 0) break;
        for (std::size_t k = 0; k < n; ++k)
            if (!fixed[k]) spare += target[k] - min_width;
        for (std::size_t k = 0; k < n; ++k)
            if (!fixed[k]) target[k] = spare > deficit ? target[k] - deficit * (target[k] - min_width) / spare : min_width;
    }
    std::vector<double> out(n + 1);
    out[0] = bounds.front();
    for (std::size_t k = 0; k < n; ++k) out[k + 1] = out[k] + target[k];
    out[n] = bounds.back();  // no drift from the sums
    return out;
}

}  // namespace mdcore
