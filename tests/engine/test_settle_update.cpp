// The fused, vectorised leap-frog + SETTLE (settle_update.h) against the plain
// reference (leapfrog_update + settle_positions) on SPC/E water with NaCl, atoms
// in shuffled slots with padding, wrapped one by one so molecules straddle the box.
#include "integrate/settle_update.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "md_runner.h"
#include "mdcore/engine.h"
#include "mdcore/generators.h"

namespace mdcore {
namespace {

constexpr double kLambda = 0.985;  // v-rescale scaling, so lambda is exercised

// A sorted-state layout as the engine's: slot -> atom (or -1 padding) in shuffled order.
struct Layout {
    System sys;
    std::vector<int> order, slot_of;
    SortedState state;
    int straddling = 0;  // molecules with an H in another periodic image than its O
};

Layout make_layout(std::uint64_t seed) {
    WaterSpec spec;
    spec.nwater = 500;
    spec.nacl_molar = 0.5;  // ions: atoms outside any SETTLE
    spec.relax_steps = 0;
    spec.threads = 2;
    Layout l{make_water_system(spec), {}, {}, {}, 0};
    System& sys = l.sys;
    std::mt19937_64 rng(seed);
    const int n = static_cast<int>(sys.natoms());
    l.order.resize(n);
    std::iota(l.order.begin(), l.order.end(), 0);
    for (int k = 0; k < n / 10; ++k) l.order.push_back(-1);
    std::shuffle(l.order.begin(), l.order.end(), rng);
    l.slot_of.assign(n, -1);
    std::normal_distribution<double> force(0.0, 800.0);  // kJ/mol/nm, water-like
    l.state.resize(l.order.size());
    SortedState& s = l.state;
    for (std::size_t slot = 0; slot < l.order.size(); ++slot) {
        const int a = l.order[slot];
        if (a < 0) {
            s.x[slot] = s.y[slot] = s.z[slot] = -1.0e4;
            continue;
        }
        l.slot_of[a] = static_cast<int>(slot);
        s.set_atom(slot, sys.positions[a], sys.velocities[a], sys.mass[a]);
        double* x[3] = {&s.x[slot], &s.y[slot], &s.z[slot]};
        for (int d = 0; d < 3; ++d) {
            const double L = sys.box.lengths[d];
            *x[d] -= L * std::floor(*x[d] / L);  // each atom into the box
        }
        s.fx[slot] = static_cast<float>(force(rng));
        s.fy[slot] = static_cast<float>(force(rng));
        s.fz[slot] = static_cast<float>(force(rng));
    }
    for (const Settle& m : sys.settles) {
        const int o = l.slot_of[m.o];
        bool split = false;
        for (int h : {l.slot_of[m.h1], l.slot_of[m.h2]})
            split |= std::abs(s.x[h] - s.x[o]) > 0.5 || std::abs(s.y[h] - s.y[o]) > 0.5 ||
                     std::abs(s.z[h] - s.z[o]) > 0.5;
        l.straddling += split;
    }
    return l;
}

// The oracle: plain leap-frog over every slot, then the reference SETTLE.
double reference_update(const Layout& l, SortedState& s) {
    const AlignedVector<double> xr = s.x, yr = s.y, zr = s.z;
    leapfrog_update(s, l.sys.dt, kLambda, 1);
    std::vector<SettleTriple> mols;
    for (const Settle& m : l.sys.settles) mols.push_back({l.slot_of[m.o], l.slot_of[m.h1], l.slot_of[m.h2]});
    settle_positions(settle_parameters(l.sys), mols,
                     {xr.data(), yr.data(), zr.data(), s.x.data(), s.y.data(), s.z.data(), s.vx.data(), s.vy.data(),
                      s.vz.data(), l.sys.box.lengths.data()},
                     l.sys.dt, 1);
    return twice_kinetic_energy(s, 1);
}

double max_abs_diff(const AlignedVector<double>& a, const AlignedVector<double>& b) {
    double worst = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
    return worst;
}

TEST(SettleUpdate, AnUnevenThreadSplitMovesNoAtomDifferently) {
    // Shares adapted to a thread that ran 4 times slower: 0.8 / 0.2 of the
    // molecules. Positions and velocities are per molecule, so they stay bit for
    // bit those of the even split; the kinetic energy is summed per thread.
    const Layout l = make_layout(7);
    SettleUpdateList list;
    build_settle_update_list(l.order, l.slot_of, settle_atom_roles(l.sys.natoms(), l.sys.settles), l.sys.settles,
                             list);
    const SettleParameters p = settle_parameters(l.sys);
    ThreadShares shares;
    shares.reset(2, true);
    for (int call = 0; call < 12; ++call) {
        shares.record(0, 500.0, 1.0);
        shares.record(1, 500.0, 4.0);
        shares.rebalance();
    }
    ASSERT_NEAR(shares.shares()[0], 0.8, 1e-3);
    SortedState even = l.state, uneven = l.state;
    const double* box = l.sys.box.lengths.data();
    const double ke_even = leapfrog_settle_update(p, list, even, {}, box, l.sys.dt, kLambda, SimdLevel::None, 2);
    ThreadShares frozen = shares;  // the call below records its own times and moves `shares`
    const auto [m0, m1] = frozen.range(0, 2, list.molecules.size());
    EXPECT_EQ(m0, 0u);
    EXPECT_NEAR(static_cast<double>(m1) / list.molecules.size(), 0.8, 0.01);
    const double ke_uneven =
        leapfrog_settle_update(p, list, uneven, {}, box, l.sys.dt, kLambda, SimdLevel::None, 2, nullptr, &shares);
    EXPECT_EQ(max_abs_diff(even.x, uneven.x) + max_abs_diff(even.y, uneven.y) + max_abs_diff(even.z, uneven.z), 0.0);
    EXPECT_EQ(max_abs_diff(even.vx, uneven.vx) + max_abs_diff(even.vy, uneven.vy) + max_abs_diff(even.vz, uneven.vz),
              0.0);
    EXPECT_NEAR(ke_uneven, ke_even, 1e-12 * ke_even);
}

TEST(SettleUpdate, MatchesReferenceAtEverySimdLevelAndThreadCount) {
    const Layout l = make_layout(5);
    ASSERT_GT(l.straddling, 10) << "the box must have molecules across its boundary";
    SettleUpdateList list;
    build_settle_update_list(l.order, l.slot_of, settle_atom_roles(l.sys.natoms(), l.sys.settles), l.sys.settles,
                             list);
    ASSERT_EQ(list.molecules.size(), l.sys.settles.size());
    ASSERT_GT(list.free_slots.size(), 0u);  // the ions
    SortedState ref = l.state;
    const double ke_ref = reference_update(l, ref);
    const SettleParameters p = settle_parameters(l.sys);

    SortedState first;  // the first level's result, 1 thread
    for (SimdLevel level : available_simd_levels())
        for (int threads : {1, 2}) {
            SCOPED_TRACE(std::string(to_string(level)) + ", threads " + std::to_string(threads));
            SortedState s = l.state;
            AlignedVector<float> fx(s.size(), 7.0f), fy(s.size(), 7.0f), fz(s.size(), 7.0f);
            const double ke = leapfrog_settle_update(p, list, s, {fx.data(), fy.data(), fz.data()},
                                                     l.sys.box.lengths.data(), l.sys.dt, kLambda, level, threads);
            // SETTLE solves in float and only its correction (~1e-3 nm) is added in
            // double: against the all-double reference, positions agree to float
            // rounding of ~0.1 nm vectors, velocities to that over dt.
            const double dx = std::max({max_abs_diff(s.x, ref.x), max_abs_diff(s.y, ref.y), max_abs_diff(s.z, ref.z)});
            const double dv =
                std::max({max_abs_diff(s.vx, ref.vx), max_abs_diff(s.vy, ref.vy), max_abs_diff(s.vz, ref.vz)});
            EXPECT_LT(dx, 1e-7);  // nm
            EXPECT_LT(dv, 1e-7 / l.sys.dt);  // nm/ps
            EXPECT_LT(std::abs(ke - ke_ref), 1e-6 * ke_ref);
            // The same float and double operations in the same order without FMA:
            // every level and thread count gives the same bits.
            if (first.size() == 0) {
                first = s;
            } else {
                EXPECT_EQ(std::max({max_abs_diff(s.x, first.x), max_abs_diff(s.y, first.y), max_abs_diff(s.z, first.z),
                                    max_abs_diff(s.vx, first.vx), max_abs_diff(s.vy, first.vy),
                                    max_abs_diff(s.vz, first.vz)}),
                          0.0);
            }
            // Distances between nearest images: float SETTLE's accuracy; between stored images: the split molecules.
            const double* box = l.sys.box.lengths.data();
            EXPECT_LT(settle_max_deviation(p, list.molecules, s.x.data(), s.y.data(), s.z.data(), box), 1e-6);
            EXPECT_GT(settle_max_deviation(p, list.molecules, s.x.data(), s.y.data(), s.z.data()), 1.0);
            for (std::size_t slot = 0; slot < s.size(); ++slot) {
                if (l.order[slot] < 0) ASSERT_EQ(s.x[slot], l.state.x[slot]);  // padding: not moved
                ASSERT_EQ(fx[slot], static_cast<float>(s.x[slot])) << "slot " << slot;
                ASSERT_EQ(fy[slot], static_cast<float>(s.y[slot])) << "slot " << slot;
                ASSERT_EQ(fz[slot], static_cast<float>(s.z[slot])) << "slot " << slot;
            }
            std::printf("[ settle   ] %s, %d threads: max |dx| %.1e nm, |dv| %.1e nm/ps vs reference\n",
                        std::string(to_string(level)).c_str(), threads, dx, dv);
        }
}

TEST(SettleUpdate, UnsolvableMoleculeIsNamedForEveryThreadCount) {
    Layout l = make_layout(9);
    SettleUpdateList list;
    build_settle_update_list(l.order, l.slot_of, settle_atom_roles(l.sys.natoms(), l.sys.settles), l.sys.settles,
                             list);
    // Molecules 37 and 301 (System::settles order): oxygens 0.5 nm out of their plane in one step.
    SortedState& st = l.state;
    for (int m : {301, 37}) {
        const Settle& w = l.sys.settles[m];
        const int o = l.slot_of[w.o];
        double b[3], c[3];
        for (int d = 0; d < 3; ++d) {
            const double* x = d == 0 ? st.x.data() : d == 1 ? st.y.data() : st.z.data();
            const double L = l.sys.box.lengths[d];
            b[d] = x[l.slot_of[w.h1]] - x[o];
            c[d] = x[l.slot_of[w.h2]] - x[o];
            b[d] -= L * std::round(b[d] / L);
            c[d] -= L * std::round(c[d] / L);
        }
        const double n[3] = {b[1] * c[2] - b[2] * c[1], b[2] * c[0] - b[0] * c[2], b[0] * c[1] - b[1] * c[0]};
        const double scale = 0.5 / (l.sys.dt * std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]));
        st.vx[o] += scale * n[0];
        st.vy[o] += scale * n[1];
        st.vz[o] += scale * n[2];
    }
    for (SimdLevel level : available_simd_levels())
        for (int threads : {1, 2}) {
            SortedState s = l.state;
            try {
                leapfrog_settle_update(settle_parameters(l.sys), list, s, {}, l.sys.box.lengths.data(), l.sys.dt,
                                       1.0, level, threads);
                ADD_FAILURE() << "no exception";
            } catch (const std::runtime_error& e) {
                EXPECT_NE(std::string(e.what()).find("molecule 37 "), std::string::npos) << e.what();
            }
            for (double v : s.x) ASSERT_TRUE(std::isfinite(v));  // the failed molecule is left unconstrained
        }
}

// In the MD runner the update writes the kernels' float coordinates itself: the
// forces after it must be those of a full refresh, and the cached kinetic energy
// that of the velocities.
TEST(SettleUpdate, RunnerForcesAndKineticEnergyFollowTheFusedUpdate) {
    WaterSpec spec;
    spec.nwater = 400;
    spec.nacl_molar = 0.5;
    spec.relax_steps = 20;
    spec.threads = 2;
    System sys = make_water_system(spec);
    RunConfig rc;
    rc.threads = 2;
    const EffectiveConfig cfg = resolve_config(sys, rc, RunControl{});
    MdRunner md(sys, cfg);
    md.set_thread_balance(false);  // the same thread split in both force calls below
    md.search();
    for (int step = 0; step < 3; ++step) {
        md.compute_forces(EnergyOutput::No);
        md.update(cfg.dt, 1.0);
    }
    const double cached = md.twice_kinetic_energy();
    md.compute_forces(EnergyOutput::No);
    const std::vector<Vec3> fused = md.forces_in_input_order();
    const double fresh = twice_kinetic_energy(md.state(), cfg.threads);  // state(): refresh from scratch
    EXPECT_NEAR(cached, fresh, 1e-12 * fresh);
    md.compute_forces(EnergyOutput::No);
    const std::vector<Vec3> refreshed = md.forces_in_input_order();
    for (std::size_t a = 0; a < fused.size(); ++a)
        for (int d = 0; d < 3; ++d) ASSERT_EQ(fused[a][d], refreshed[a][d]) << "atom " << a;
    EXPECT_LT(md.max_constraint_deviation(), 1e-6);  // SETTLE solves in float
}

}  // namespace
}  // namespace mdcore
