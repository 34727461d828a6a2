// The nonbonded thread split adapted to measured speeds (nonbonded/thread_balance.h),
// and a run that uses it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "mdcore/engine.h"
#include "mdcore/generators.h"
#include "pme/pme.h"
#include "util/thread_balance.h"
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

TEST(ThreadShares, EvenUnlessAdaptingAndRangesCoverEveryItemOnce) {
    mdcore::ThreadShares even;
    even.reset(3, false);
    for (int t = 0; t < 3; ++t) {  // n t / nt, the split every task used before
        EXPECT_EQ(even.range(t, 3, 100).first, 100u * t / 3);
        EXPECT_EQ(even.range(t, 3, 100).second, 100u * (t + 1) / 3);
    }
    mdcore::ThreadShares adapted;
    adapted.reset(2, true);
    for (int call = 0; call < 30; ++call) {  // thread 1 three times slower
        adapted.record(0, 1.0, 1.0);
        adapted.record(1, 1.0, 3.0);
        adapted.rebalance();
    }
    EXPECT_NEAR(adapted.shares()[0], 0.75, 1e-3);
    const auto first = adapted.range(0, 2, 1000, 64), second = adapted.range(1, 2, 1000, 64);
    EXPECT_EQ(first.first, 0u);
    EXPECT_EQ(first.second % 64, 0u);  // on the granule
    EXPECT_EQ(first.second, second.first);
    EXPECT_EQ(second.second, 1000u);
    EXPECT_NEAR(static_cast<double>(first.second), 750.0, 64.0);
    // A team of another size than the shares': the even split, and its extra
    // threads are not recorded.
    EXPECT_EQ(adapted.range(1, 4, 100).first, 25u);
    adapted.record(3, 1.0, 1.0);
    EXPECT_EQ(adapted.threads(), 2);
    // Not adapting: timings are recorded but move nothing.
    even.record(0, 1.0, 1.0);
    even.record(1, 1.0, 9.0);
    even.record(2, 1.0, 1.0);
    even.rebalance();
    EXPECT_EQ(even.range(1, 3, 100).first, 33u);
}

TEST(ThreadBalance, BalancedPmeAgreesWithTheEvenSplitToFloatRounding) {
    // The splines, spread planes and gather atoms move between threads from call
    // to call; the grid sums in another order, nothing else changes. The charges
    // sit in the first third of the box in x, the first thread's planes of an even
    // split, so its spread takes far longer and the plane split must move.
    mdcore::WaterSpec spec;
    spec.nwater = 200;
    spec.relax_steps = 0;
    const mdcore::System sys = mdcore::make_water_system(spec);
    const std::size_t n = sys.natoms();
    std::vector<double> x(n), y(n), z(n), q(sys.charge.begin(), sys.charge.end());
    for (std::size_t i = 0; i < n; ++i) {
        x[i] = sys.positions[i][0] / 3.0;
        y[i] = sys.positions[i][1];
        z[i] = sys.positions[i][2];
    }
    auto forces = [&](bool balance, int calls) {
        mdcore::Pme pme(sys.box, {20, 20, 20}, 4, 3.12, 1.0, 3);  // 20 planes over 3 threads
        pme.set_thread_balance(balance);
        std::vector<float> fx(n), fy(n), fz(n);
        for (int c = 0; c < calls; ++c) {
            std::fill(fx.begin(), fx.end(), 0.0f);
            std::fill(fy.begin(), fy.end(), 0.0f);
            std::fill(fz.begin(), fz.end(), 0.0f);
            pme.compute_forces(n, x.data(), y.data(), z.data(), q.data(), fx.data(), fy.data(), fz.data());
        }
        return fx;
    };
    const std::vector<float> even = forces(false, 1), balanced = forces(true, 8);
    double worst = 0, rms = 0;
    for (std::size_t i = 0; i < n; ++i) {
        worst = std::max(worst, std::abs(static_cast<double>(balanced[i]) - even[i]));
        rms += static_cast<double>(even[i]) * even[i];
    }
    rms = std::sqrt(rms / n);
    EXPECT_LT(worst, 1e-5 * rms);
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
