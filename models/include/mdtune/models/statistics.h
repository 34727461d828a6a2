#pragma once
// Statistics of repeated measurements: order statistics, the Mann-Whitney U test
// (Wilcoxon rank-sum, two-sided), Holm's step-down correction and percentile
// bootstrap intervals of medians. Distribution-free, so they suit benchmark
// timings, which are skewed and have outliers from a noisy machine. Used by the
// performance-regression gate (tuner/bench) and the sweep's verdicts (tuner/verdict).
#include <cstddef>
#include <span>
#include <vector>

namespace mdtune::models::stats {

// Quantile with linear interpolation between order statistics (NaN when empty).
double quantile(std::vector<double> values, double q);
double median(std::span<const double> values);
double relative_spread(std::span<const double> values);  // IQR / median (0 for fewer than 2 values)

// Two-sided standard normal quantile: z with P(|Z| > z) = alpha.
double normal_two_sided_quantile(double alpha);

struct MannWhitney {
    double u = 0.0;        // U of the first sample: pairs (a, b) with a > b, ties count 1/2
    double p_value = 1.0;  // two-sided
    bool exact = false;    // exact null distribution (else normal approximation)
    bool ties = false;     // any tied values across both samples
};

// Largest n1 * n2 for which the exact distribution is computed (it needs
// O(n1 n2 (n1 n2)) work); above, and whenever there are ties, the normal
// approximation with tie correction and continuity correction is used.
inline constexpr long kMannWhitneyExactMaxProduct = 2500;

// Either sample empty: p = 1.
MannWhitney mann_whitney_u(std::span<const double> a, std::span<const double> b);

// P(U <= u) under the null hypothesis for sample sizes n1, n2 without ties.
double mann_whitney_exact_cdf(int n1, int n2, double u);

// Smallest two-sided p-value a U test with these sizes can give (complete separation).
double mann_whitney_min_p(std::size_t n1, std::size_t n2);

// Holm (1979): sort the m p-values, multiply the i-th smallest by m - i, keep the
// sequence non-decreasing (capped at 1). Controls the family-wise error rate with no
// assumption about how the tests depend on each other. Returned in the input's order.
std::vector<double> holm_adjust(std::span<const double> p_values);

// A point estimate with a two-sided interval (NaN everywhere when there is no data).
struct Interval {
    double estimate, lo, hi;
};

// Percentile bootstrap of the median at `confidence` (0.5-0.999): `resamples`
// resamples with replacement, drawn from a generator seeded with `seed`, so the
// same input gives the same interval. One value: the value itself, no spread.
Interval bootstrap_median(std::span<const double> values, double confidence, unsigned long seed = 1,
                          int resamples = 2000);

// Of median(a) / median(b), resampling a and b independently (unpaired samples:
// the configs' ratios to their rounds' reference). Empty a or b: NaN.
Interval bootstrap_median_ratio(std::span<const double> a, std::span<const double> b, double confidence,
                                unsigned long seed = 1, int resamples = 2000);

}  // namespace mdtune::models::stats
