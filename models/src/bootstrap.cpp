// Percentile bootstrap intervals of medians (declared in statistics.h). The
// generator is seeded by the caller and indices are drawn as rng() % n, so an
// interval is the same on every platform for the same input.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "mdtune/models/statistics.h"

namespace mdtune::models::stats {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void check_settings(double confidence, int resamples) {
    if (!(confidence >= 0.5 && confidence <= 0.999))
        throw std::invalid_argument("confidence " + std::to_string(confidence) + " is outside [0.5, 0.999]");
    if (resamples < 10) throw std::invalid_argument("bootstrap needs at least 10 resamples");
}

// Median of a resample (with replacement) of `values`, drawn into `scratch`.
double resampled_median(std::span<const double> values, std::mt19937_64& rng, std::vector<double>& scratch) {
    scratch.resize(values.size());
    for (double& x : scratch) x = values[rng() % values.size()];
    return median(scratch);
}

// The (1 - confidence) / 2 and (1 + confidence) / 2 quantiles of the bootstrap distribution.
Interval percentile_interval(double estimate, std::vector<double> replicates, double confidence) {
    const double tail = (1.0 - confidence) / 2.0;
    const double lo = quantile(replicates, tail);
    const double hi = quantile(std::move(replicates), 1.0 - tail);
    return Interval{estimate, lo, hi};
}

}  // namespace

Interval bootstrap_median(std::span<const double> values, double confidence, unsigned long seed, int resamples) {
    check_settings(confidence, resamples);
    if (values.empty()) return Interval{kNaN, kNaN, kNaN};
    const double estimate = median(values);
    if (values.size() == 1) return Interval{estimate, estimate, estimate};
    std::mt19937_64 rng(seed);
    std::vector<double> scratch, replicates(static_cast<std::size_t>(resamples));
    for (double& r : replicates) r = resampled_median(values, rng, scratch);
    return percentile_interval(estimate, std::move(replicates), confidence);
}

Interval bootstrap_median_ratio(std::span<const double> a, std::span<const double> b, double confidence,
                                unsigned long seed, int resamples) {
    check_settings(confidence, resamples);
    if (a.empty() || b.empty()) return Interval{kNaN, kNaN, kNaN};
    const double estimate = median(a) / median(b);
    std::mt19937_64 rng(seed);
    std::vector<double> scratch, replicates(static_cast<std::size_t>(resamples));
    for (double& r : replicates) {
        const double num = resampled_median(a, rng, scratch);
        r = num / resampled_median(b, rng, scratch);
    }
    return percentile_interval(estimate, std::move(replicates), confidence);
}

}  // namespace mdtune::models::stats
