#pragma once
// The Mann-Whitney U test (Wilcoxon rank-sum), two-sided: does one sample tend
// to be larger than the other? Distribution-free, so it suits benchmark timings,
// which are skewed and have outliers from a noisy machine.
#include <span>

namespace mdtune::bench {

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

}  // namespace mdtune::bench
