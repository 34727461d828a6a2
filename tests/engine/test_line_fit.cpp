// The drift estimate: slope and its standard error for white and correlated noise.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "mdcore/line_fit.h"

namespace {

using mdcore::fit_line;

// Share of draws whose 2-sigma interval holds the true slope; noise is AR(1)
// with coefficient phi (0 = white).
double coverage(double phi, int draws) {
    std::mt19937_64 rng(7);
    std::normal_distribution<double> normal(0.0, 1.0);
    const double true_slope = 0.3;
    int hit = 0;
    for (int d = 0; d < draws; ++d) {
        std::vector<double> t(400), y(400);
        double e = 0;
        for (std::size_t i = 0; i < t.size(); ++i) {
            e = phi * e + std::sqrt(1 - phi * phi) * normal(rng);
            t[i] = 0.01 * double(i);
            y[i] = 5.0 + true_slope * t[i] + e;
        }
        const auto f = fit_line(t, y);
        if (std::abs(f.slope - true_slope) <= 2 * f.slope_stderr) ++hit;
    }
    return double(hit) / draws;
}

TEST(LineFit, ExactLineHasNoError) {
    const std::vector<double> t{0, 1, 2, 3}, y{1, 3, 5, 7};
    const auto f = fit_line(t, y);
    EXPECT_DOUBLE_EQ(f.slope, 2.0);
    EXPECT_NEAR(f.slope_stderr, 0.0, 1e-12);
}

TEST(LineFit, TooFewSamples) {
    EXPECT_EQ(fit_line({1.0}, {2.0}).slope, 0.0);
    const auto two = fit_line({0.0, 1.0}, {0.0, 3.0});
    EXPECT_DOUBLE_EQ(two.slope, 3.0);
    EXPECT_EQ(two.slope_stderr, 0.0);
}

TEST(LineFit, TwoSigmaCoversTheTrueSlopeForWhiteNoise) {
    const double c = coverage(0.0, 400);
    EXPECT_GT(c, 0.90);
    EXPECT_LT(c, 0.99);
}

TEST(LineFit, CorrelatedNoiseWidensTheError) {
    // Strongly correlated fluctuations (like a conserved energy sampled every
    // few steps): an error from independent samples would cover far too rarely.
    EXPECT_GT(coverage(0.9, 400), 0.85);
}

}  // namespace
