// The statistics unit of models: the U test against independent oracles (textbook
// values, brute-force enumeration of all rank assignments), order statistics, Holm.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "mdtune/models/statistics.h"

namespace mdtune::stats {
namespace {

// U of a vs b by definition: pairs a > b, ties 1/2.
double u_by_pairs(const std::vector<double>& a, const std::vector<double>& b) {
    double u = 0;
    for (double x : a)
        for (double y : b) u += x > y ? 1.0 : (x == y ? 0.5 : 0.0);
    return u;
}

// Every way to split the pooled values into groups of |a| and |b|.
std::vector<double> permutation_u(const std::vector<double>& a, const std::vector<double>& b) {
    std::vector<double> pooled(a);
    pooled.insert(pooled.end(), b.begin(), b.end());
    std::vector<bool> pick(pooled.size(), false);
    std::fill(pick.begin(), pick.begin() + static_cast<long>(a.size()), true);
    std::vector<double> us;
    do {
        std::vector<double> x, y;
        for (std::size_t i = 0; i < pooled.size(); ++i) (pick[i] ? x : y).push_back(pooled[i]);
        us.push_back(u_by_pairs(x, y));
    } while (std::prev_permutation(pick.begin(), pick.end()));
    return us;
}

TEST(MannWhitney, TextbookExample) {
    // scipy.stats.mannwhitneyu documentation: males vs females, U1 = 17,
    // exact p = 0.1111, asymptotic (continuity-corrected) p = 0.1113.
    const std::vector<double> males{19, 22, 16, 29, 24}, females{20, 11, 17, 12};
    const models::stats::MannWhitney r = models::stats::mann_whitney_u(males, females);
    EXPECT_DOUBLE_EQ(r.u, 17.0);
    EXPECT_TRUE(r.exact);
    EXPECT_NEAR(r.p_value, 14.0 / 126.0, 1e-12);
}

TEST(MannWhitney, CompleteSeparationGivesTheSmallestPValue) {
    const std::vector<double> a{1, 2, 3, 4, 5}, b{6, 7, 8, 9, 10};
    const models::stats::MannWhitney r = models::stats::mann_whitney_u(a, b);
    EXPECT_DOUBLE_EQ(r.u, 0.0);
    EXPECT_NEAR(r.p_value, 2.0 / 252.0, 1e-12);
    EXPECT_NEAR(models::stats::mann_whitney_u(b, a).p_value, 2.0 / 252.0, 1e-12);  // two-sided: symmetric
    const std::vector<double> c{1, 2, 3}, d{4, 5, 6};
    EXPECT_NEAR(models::stats::mann_whitney_u(c, d).p_value, 0.1, 1e-12);  // 3 vs 3 can never reach 0.05
}

TEST(MannWhitney, ExactDistributionMatchesEnumeration) {
    const std::vector<double> a{0.3, 1.7, 2.2, 5.1, 6.0, 7.5}, b{0.9, 1.1, 3.3, 4.0, 8.8};
    const std::vector<double> us = permutation_u(a, b);
    ASSERT_EQ(us.size(), 462u);  // C(11, 6)
    for (double u = 0; u <= 30; u += 1) {
        const double cdf = static_cast<double>(std::count_if(us.begin(), us.end(), [u](double x) { return x <= u; })) /
                           static_cast<double>(us.size());
        EXPECT_NEAR(models::stats::mann_whitney_exact_cdf(6, 5, u), cdf, 1e-12) << "u=" << u;
    }
    const models::stats::MannWhitney r = models::stats::mann_whitney_u(a, b);
    EXPECT_DOUBLE_EQ(r.u, u_by_pairs(a, b));
    const double mu = 15.0, dev = std::abs(r.u - mu);
    const double p = static_cast<double>(std::count_if(us.begin(), us.end(), [&](double x) {
                         return std::abs(x - mu) >= dev - 1e-9;
                     })) / static_cast<double>(us.size());
    EXPECT_NEAR(r.p_value, p, 1e-12);
}

TEST(MannWhitney, TiesUseTheTieCorrectedNormalApproximation) {
    // Quantised timings tie. The tie-corrected variance is the exact variance of
    // U over all rank assignments, so check it against enumeration.
    const std::vector<double> a{10, 11, 11, 12, 12, 12, 13}, b{11, 12, 13, 13, 14, 14};
    const models::stats::MannWhitney r = models::stats::mann_whitney_u(a, b);
    EXPECT_TRUE(r.ties);
    EXPECT_FALSE(r.exact);
    EXPECT_DOUBLE_EQ(r.u, u_by_pairs(a, b));
    const std::vector<double> us = permutation_u(a, b);
    const double mean = std::accumulate(us.begin(), us.end(), 0.0) / static_cast<double>(us.size());
    double var = 0;
    for (double u : us) var += (u - mean) * (u - mean);
    var /= static_cast<double>(us.size());
    EXPECT_NEAR(mean, 21.0, 1e-9);
    const double z = (std::abs(r.u - mean) - 0.5) / std::sqrt(var);
    EXPECT_NEAR(r.p_value, std::erfc(z / std::sqrt(2.0)), 1e-12);
}

TEST(MannWhitney, DegenerateInputs) {
    const std::vector<double> same{1, 1, 1, 1, 1}, empty;
    EXPECT_DOUBLE_EQ(models::stats::mann_whitney_u(same, same).p_value, 1.0);
    EXPECT_DOUBLE_EQ(models::stats::mann_whitney_u(same, empty).p_value, 1.0);
    const std::vector<double> one{5}, other{6};
    EXPECT_DOUBLE_EQ(models::stats::mann_whitney_u(one, other).p_value, 1.0);
}

TEST(MannWhitney, LargeSamplesUseTheNormalApproximation) {
    std::vector<double> a, b;
    for (int i = 0; i < 60; ++i) {
        a.push_back(i);
        b.push_back(i + 0.5 + 10);
    }
    const models::stats::MannWhitney r = models::stats::mann_whitney_u(a, b);
    EXPECT_FALSE(r.exact);
    EXPECT_LT(r.p_value, 0.01);
    EXPECT_GT(r.p_value, 0.0);
}

TEST(OrderStatistics, MediansAndSpread) {
    const std::vector<double> v{5, 1, 3, 2, 4};
    EXPECT_DOUBLE_EQ(models::stats::median(v), 3.0);
    EXPECT_DOUBLE_EQ(models::stats::relative_spread(v), 2.0 / 3.0);  // IQR 4 - 2
    const std::vector<double> even{1, 2, 3, 4};
    EXPECT_DOUBLE_EQ(models::stats::median(even), 2.5);
    EXPECT_NEAR(models::stats::normal_two_sided_quantile(0.05), 1.959964, 1e-5);
}

TEST(MannWhitney, SmallestPValueIsCompleteSeparation) {
    const std::vector<double> a{1, 2, 3, 4, 5}, b{6, 7, 8, 9, 10};
    EXPECT_NEAR(models::stats::mann_whitney_min_p(5, 5), models::stats::mann_whitney_u(a, b).p_value, 1e-12);
    EXPECT_DOUBLE_EQ(models::stats::mann_whitney_min_p(1, 1), 1.0);
}

// Holm by hand: sorted 0.01, 0.02, 0.04 (x3, x2, x1) -> 0.03, 0.04, 0.04 (kept
// non-decreasing), returned in the input's order; capped at 1.
TEST(Holm, StepDownAdjustmentInInputOrder) {
    const std::vector<double> p{0.04, 0.01, 0.02};
    const std::vector<double> adjusted = models::stats::holm_adjust(p);
    ASSERT_EQ(adjusted.size(), 3u);
    EXPECT_NEAR(adjusted[0], 0.04, 1e-15);
    EXPECT_NEAR(adjusted[1], 0.03, 1e-15);
    EXPECT_NEAR(adjusted[2], 0.04, 1e-15);
    const std::vector<double> big{0.6, 0.5};
    EXPECT_EQ(models::stats::holm_adjust(big), (std::vector<double>{1.0, 1.0}));
    EXPECT_TRUE(models::stats::holm_adjust(std::vector<double>{}).empty());
}

TEST(Bootstrap, MedianIntervalHoldsTheMedianAndIsReproducible) {
    const std::vector<double> v{1.0, 1.2, 0.9, 1.1, 1.05, 0.95, 1.3};
    const auto a = models::stats::bootstrap_median(v, 0.95, 3);
    EXPECT_DOUBLE_EQ(a.estimate, 1.05);
    EXPECT_LE(a.lo, a.estimate);
    EXPECT_GE(a.hi, a.estimate);
    EXPECT_GE(a.lo, 0.9);  // medians of resamples lie within the data
    EXPECT_LE(a.hi, 1.3);
    EXPECT_LT(a.lo, a.hi);
    const auto b = models::stats::bootstrap_median(v, 0.95, 3);
    EXPECT_EQ(a.lo, b.lo);
    EXPECT_EQ(a.hi, b.hi);
    // A wider confidence never gives a narrower interval.
    const auto wide = models::stats::bootstrap_median(v, 0.99, 3);
    EXPECT_LE(wide.lo, a.lo);
    EXPECT_GE(wide.hi, a.hi);
}

TEST(Bootstrap, RatioOfMediansSeparatesOnlyWhatIsApart) {
    const std::vector<double> slow{1.21, 1.19, 1.2, 1.22, 1.18};
    const std::vector<double> fast{1.0, 1.01, 0.99, 1.02, 0.98};
    const auto apart = models::stats::bootstrap_median_ratio(slow, fast, 0.95);
    EXPECT_NEAR(apart.estimate, 1.2, 1e-12);
    EXPECT_GT(apart.lo, 1.0);
    const std::vector<double> overlapping{1.03, 0.97, 1.0, 1.02, 0.98};
    const auto together = models::stats::bootstrap_median_ratio(overlapping, fast, 0.95);
    EXPECT_LE(together.lo, 1.0);
    EXPECT_GE(together.hi, 1.0);
}

TEST(Bootstrap, EdgeCasesAndBadSettings) {
    const std::vector<double> one{2.5};
    const auto single = models::stats::bootstrap_median(one, 0.95);
    EXPECT_EQ(single.lo, 2.5);
    EXPECT_EQ(single.hi, 2.5);
    EXPECT_TRUE(std::isnan(models::stats::bootstrap_median(std::vector<double>{}, 0.95).estimate));
    EXPECT_TRUE(std::isnan(models::stats::bootstrap_median_ratio(one, std::vector<double>{}, 0.95).lo));
    EXPECT_THROW(models::stats::bootstrap_median(one, 1.5), std::invalid_argument);
    EXPECT_THROW(models::stats::bootstrap_median(one, 0.95, 1, 2), std::invalid_argument);
}

}  // namespace
}  // namespace mdtune::stats
