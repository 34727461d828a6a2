// The nonbonded thread split adapted to measured speeds (nonbonded/thread_balance.h),
// and a run that uses it.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "mdcore/engine.h"
#include "nonbonded/thread_balance.h"
#include "test_systems.h"

namespace {

using mdcore::rebalance_shares;

TEST(ThreadBalance, ASlowerThreadGetsLessWorkUntilBothTakeEqualTime) {
    // Thread 1 runs at 0.8 of thread 0's speed (a slow vCPU): the split moves
    // towards 5/9 : 4/9, where both threads take the same time.
    std::vector<double> shares{0.5, 0.5};
    const double speed[2] = {1.0, 0.8};
    for (int call = 0; call < 20; ++call) {
        std::vector<double> work{shares[0] * 1000.0, shares[1] * 1000.0};
        std::vector<double> seconds{work[0] / speed[0], work[1] / speed[1]};
        rebalance_shares(shares, work, seconds);
        EXPECT_NEAR(shares[0] + shares[1], 1.0, 1e-12);
        EXPECT_GE(shares[0], 0.5 - 1e-12) << "call " << call;
    }
    EXPECT_NEAR(shares[0], 5.0 / 9.0, 1e-4);
    EXPECT_NEAR(shares[1], 4.0 / 9.0, 1e-4);
}

TEST(ThreadBalance, OneOutlierMovesTheSplitByHalfAndNeverBelowAQuarter) {
    std::vector<double> shares{0.5, 0.5};
    // One preempted call: thread 1 took 100 times as long.
    rebalance_shares(shares, {500.0, 500.0}, {1.0, 100.0});
    EXPECT_GT(shares[1], 0.25);  // half of the step towards ~0.01
    EXPECT_NEAR(shares[0] + shares[1], 1.0, 1e-12);
    std::vector<double> skewed{0.5, 0.5};
    for (int call = 0; call < 30; ++call) rebalance_shares(skewed, {500.0, 500.0}, {1.0, 1e6});
    EXPECT_GT(skewed[1], 0.11);  // the floor of 0.125, then normalised
    EXPECT_LT(skewed[1], 0.125);
}

TEST(ThreadBalance, MissingWorkOrTimeKeepsTheShares) {
    std::vector<double> shares{0.6, 0.4};
    rebalance_shares(shares, {0.0, 400.0}, {0.0, 1.0});
    EXPECT_EQ(shares, (std::vector<double>{0.6, 0.4}));
    rebalance_shares(shares, {600.0, 400.0}, {1.0, 0.0});
    EXPECT_EQ(shares, (std::vector<double>{0.6, 0.4}));
    std::vector<double> one{1.0};
    rebalance_shares(one, {10.0}, {1.0});
    EXPECT_EQ(one, std::vector<double>{1.0});
}

TEST(ThreadBalance, ABalancedRunAgreesWithAnEvenSplitToFloatRounding) {
    // The split only moves which thread buffer a j-entry's forces go to.
    auto once = [](bool balance) {
        mdcore::System sys = mdcore::testing::lj_system(700, 0.8442, 0.03, 9, 200.0);
        mdcore::RunConfig cfg;
        cfg.threads = 2;
        mdcore::RunControl control;
        control.steps = 40;
        control.thread_balance = balance;
        return mdcore::run(sys, cfg, control);
    };
    const mdcore::RunReport even = once(false), balanced = once(true);
    EXPECT_NEAR(balanced.end.potential, even.end.potential, 1e-3 * std::abs(even.end.potential));
    EXPECT_NEAR(balanced.end.total, even.end.total, 1e-3 * std::abs(even.end.total));
}

}  // namespace
