// Leap-frog NVE energy conservation, thermostat, and reproducibility.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "integrate/leapfrog.h"
#include "mdcore/engine.h"
#include "test_systems.h"

namespace mdcore {
namespace {

// The vectorised update (8 slots a pass, a scalar tail) against leapfrog_atom slot
// by slot, with the float copies of every slot, for sizes with and without a tail.
TEST(Integrator, LeapfrogUpdateMatchesThePerAtomStepOnEverySlot) {
    for (std::size_t n : {std::size_t{5}, std::size_t{16}, std::size_t{37}}) {
        for (int threads : {1, 2}) {
            SortedState s;
            s.resize(n);
            for (std::size_t i = 0; i < n; ++i) {
                const double u = static_cast<double>(i);
                s.set_atom(i, {0.1 * u, 1.0 - 0.05 * u, 0.3 + 0.01 * u}, {0.2 - 0.01 * u, 0.03 * u, -0.1},
                           i % 3 == 0 ? 0.0 : 1.0 + u);  // every third a padding slot (mass 0)
                s.fx[i] = static_cast<float>(10.0 - u);
                s.fy[i] = static_cast<float>(0.5 * u);
                s.fz[i] = -3.0f;
            }
            SortedState want = s;
            double want_ke = 0.0;
            for (std::size_t i = 0; i < n; ++i) want_ke += leapfrog_atom(want, i, 0.002, 0.99);
            std::vector<float> fx(n, -1.0f), fy(n, -1.0f), fz(n, -1.0f);
            const double ke = leapfrog_update(s, 0.002, 0.99, threads, {fx.data(), fy.data(), fz.data()});
            EXPECT_NEAR(ke, want_ke, 1e-12 * want_ke) << n << " slots, " << threads << " threads";
            for (std::size_t i = 0; i < n; ++i) {
                EXPECT_EQ(s.x[i], want.x[i]);
                EXPECT_EQ(s.vz[i], want.vz[i]);
                EXPECT_EQ(fx[i], static_cast<float>(want.x[i])) << "slot " << i;
                EXPECT_EQ(fy[i], static_cast<float>(want.y[i])) << "slot " << i;
                EXPECT_EQ(fz[i], static_cast<float>(want.z[i])) << "slot " << i;
            }
        }
    }
}

TEST(Integrator, NveDriftBelowDefaultTolerance) {
    // Liquid argon (Rahman's state point), default buffer and list settings, 2000
    // steps of 5 fs = 10 ps, after the lattice has melted.
    LjFluidSpec spec = argon_spec();
    spec.natoms = 2048;
    System sys = make_lj_fluid(spec, "argon");
    RunConfig cfg;
    cfg.threads = 2;
    RunControl control;
    control.steps = 500;
    run(sys, cfg, control);  // melt and equilibrate
    control.steps = 2000;
    const RunReport rep = run(sys, cfg, control);
    EXPECT_LT(std::abs(rep.drift_per_atom_per_ps), sys.drift_tolerance) << rep.drift_per_atom_per_ps;
    EXPECT_GT(rep.energy_samples, 10);
    EXPECT_NEAR(rep.end.conserved, rep.start.conserved, 1e-3 * std::abs(rep.start.potential));
}

TEST(Integrator, VRescaleHoldsTemperature) {
    System sys = testing::lj_system(1000, 0.8442, 0.03, 5, 150.0);
    sys.temperature = 120.0;
    RunConfig cfg;
    cfg.threads = 2;
    RunControl control;
    control.steps = 1500;
    control.thermostat = Thermostat::VRescale;
    control.tau_t = 0.1;
    control.nstcalcenergy = 10;
    const RunReport rep = run(sys, cfg, control);
    EXPECT_NEAR(rep.end.temperature, 120.0, 15.0);
    // The conserved quantity includes the thermostat's work.
    EXPECT_LT(std::abs(rep.drift_per_atom_per_ps), sys.drift_tolerance);
}

TEST(Integrator, SameSeedSameThreadsIsBitIdentical) {
    for (int threads : {1, 2}) {
        auto once = [&] {
            System sys = testing::lj_system(700, 0.8442, 0.03, 9, 200.0);
            RunConfig cfg;
            cfg.threads = threads;
            cfg.nstlist = 10;
            cfg.nstprune = 5;
            RunControl control;
            control.steps = 120;
            control.thermostat = Thermostat::VRescale;
            control.seed = 42;
            control.thread_balance = false;  // the split by measured speeds differs between runs
            run(sys, cfg, control);
            return sys;
        };
        const System a = once(), b = once();
        for (std::size_t i = 0; i < a.natoms(); ++i)
            for (int k = 0; k < 3; ++k) {
                ASSERT_EQ(a.positions[i][k], b.positions[i][k]) << "threads " << threads;
                ASSERT_EQ(a.velocities[i][k], b.velocities[i][k]) << "threads " << threads;
            }
    }
}

TEST(Integrator, StepsZeroEvaluatesStartOnly) {
    System sys = testing::lj_system(500);
    const System before = sys;
    RunControl control;
    control.steps = 0;
    const RunReport rep = run(sys, RunConfig{}, control);
    EXPECT_LT(rep.start.lj, 0.0);
    EXPECT_EQ(rep.start.lj, rep.end.lj);
    EXPECT_NEAR(rep.start.temperature, 120.0, 1e-6);
    for (std::size_t i = 0; i < sys.natoms(); ++i) EXPECT_EQ(sys.velocities[i], before.velocities[i]);
}

}  // namespace
}  // namespace mdcore
