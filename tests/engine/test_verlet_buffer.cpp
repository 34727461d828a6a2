// Tests for the Verlet-buffer estimate (pairlist/verlet_buffer.h).
#include "pairlist/verlet_buffer.h"

#include "mdcore/run_config.h"
#include "mdcore/units.h"
#include "nonbonded/interaction_modifiers.h"
#include "nonbonded/reference_kernel.h"
#include "pairlist/list_intervals.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <string>

namespace mdcore {
namespace {

// Argon-like LJ fluid: sigma 0.34 nm, eps 0.996 kJ/mol, 32000 atoms at 21.48 nm^-3.
VerletBufferParams argon_params() {
    const double sigma = 0.34;
    const double eps = 0.996;
    const double natoms = 32000.0;
    VerletBufferParams p;
    p.classes = {BufferAtomClass{39.948, natoms, 0, 0.0}};
    p.num_lj_types = 1;
    p.c6 = {4.0 * eps * std::pow(sigma, 6)};
    p.c12 = {4.0 * eps * std::pow(sigma, 12)};
    p.volume = natoms / 21.48;
    p.temperature = 360.0;
    p.dt = 0.010766;
    p.rc = 0.85;
    p.drift_tolerance = 0.005;
    p.cluster_i = 4;
    p.cluster_j = 4;
    return p;
}

// SPC/E water, 1000 molecules at 33.4 nm^-3, PME real space with ewald_rtol 1e-5 at rc 1.0.
VerletBufferParams spce_params() {
    const double sigma = 0.316557;
    const double eps = 0.650194;
    const double nwater = 1000.0;
    VerletBufferParams p;
    p.classes = {BufferAtomClass{15.9994, nwater, 0, -0.8476},
                 BufferAtomClass{1.008, 2.0 * nwater, 1, 0.4238}};
    p.num_lj_types = 2;
    p.c6 = {4.0 * eps * std::pow(sigma, 6), 0.0, 0.0, 0.0};
    p.c12 = {4.0 * eps * std::pow(sigma, 12), 0.0, 0.0, 0.0};
    p.volume = nwater / 33.4;
    p.temperature = 300.0;
    p.dt = 0.002;
    p.rc = 1.0;
    p.ewald_beta = 3.12341;
    p.epsilon_r = 1.0;
    p.drift_tolerance = 0.005;
    return p;
}

TEST(VerletBuffer, DriftDecreasesWithRlist) {
    for (const auto& p : {argon_params(), spce_params()}) {
        double prev = estimate_verlet_drift(p, 19, p.rc);
        EXPECT_GT(prev, 0.0);
        for (int k = 1; k <= 300; ++k) {
            const double d = estimate_verlet_drift(p, 19, p.rc + 0.001 * k);
            EXPECT_LE(d, prev) << "rlist " << p.rc + 0.001 * k;
            prev = d;
        }
    }
}

TEST(VerletBuffer, DriftIncreasesWithLifetimeAndTemperature) {
    auto p = argon_params();
    const double rlist = p.rc + 0.05;
    EXPECT_EQ(estimate_verlet_drift(p, 0, rlist), 0.0);
    // After one step no atom gets 0.05 nm past the list (beyond 8 sigma the tail
    // counts as 0, as in GROMACS): no drift yet, then a strictly growing one.
    EXPECT_EQ(estimate_verlet_drift(p, 1, rlist), 0.0);
    double prev = 0.0;
    for (int lifetime : {2, 5, 9, 19, 39, 79}) {
        const double d = estimate_verlet_drift(p, lifetime, rlist);
        EXPECT_GT(d, prev) << "lifetime " << lifetime;
        prev = d;
    }
    prev = 0.0;
    for (double temperature : {50.0, 100.0, 200.0, 360.0, 600.0}) {
        p.temperature = temperature;
        const double d = estimate_verlet_drift(p, 19, rlist);
        EXPECT_GT(d, prev) << "T " << temperature;
        prev = d;
    }
}

TEST(VerletBuffer, RlistGrowsWithNstlist) {
    for (const auto& p : {argon_params(), spce_params()}) {
        EXPECT_DOUBLE_EQ(estimate_rlist(p, 0), p.rc);
        double prev = p.rc;
        for (int nstlist = 2; nstlist <= 100; ++nstlist) {
            const double rl = estimate_rlist(p, nstlist - 1);
            EXPECT_GE(rl, prev) << "nstlist " << nstlist;
            prev = rl;
        }
        EXPECT_GT(prev, p.rc);
    }
}

TEST(VerletBuffer, RlistIsSmallestMeetingTolerance) {
    for (const auto& p : {argon_params(), spce_params()}) {
        for (int lifetime : {4, 9, 19, 39}) {
            const double rl = estimate_rlist(p, lifetime);
            EXPECT_LE(estimate_verlet_drift(p, lifetime, rl), p.drift_tolerance);
            if (rl > p.rc + 0.0005) {
                EXPECT_GT(estimate_verlet_drift(p, lifetime, rl - 0.001), p.drift_tolerance);
            }
        }
    }
}

TEST(VerletBuffer, TighterToleranceGivesLargerBuffer) {
    auto p = argon_params();
    const double loose = estimate_rlist(p, 19);
    p.drift_tolerance = 1e-4;
    const double tight = estimate_rlist(p, 19);
    EXPECT_GT(tight, loose);
    EXPECT_LE(estimate_verlet_drift(p, 19, tight), p.drift_tolerance);
}

TEST(VerletBuffer, LargerClustersNeedNoLargerBuffer) {
    for (auto p : {argon_params(), spce_params()}) {
        for (int lifetime : {9, 19, 39}) {
            p.cluster_i = 1;
            p.cluster_j = 1;
            const double r11 = estimate_rlist(p, lifetime);
            p.cluster_i = 2;
            p.cluster_j = 2;
            const double r22 = estimate_rlist(p, lifetime);
            p.cluster_i = 4;
            p.cluster_j = 4;
            const double r44 = estimate_rlist(p, lifetime);
            p.cluster_j = 8;  // treated as 4
            const double r48 = estimate_rlist(p, lifetime);
            EXPECT_LE(r22, r11);
            EXPECT_LE(r44, r22);
            EXPECT_DOUBLE_EQ(r48, r44);
        }
    }
}

TEST(VerletBuffer, SplittingAClassDoesNotChangeDrift) {
    // Identical pairs within a class are counted n(n-1)/2 times, so two halves
    // of the same class must give exactly the same pair count.
    const auto whole = argon_params();
    auto split = whole;
    split.classes = {whole.classes[0], whole.classes[0]};
    split.classes[0].count = split.classes[1].count = whole.classes[0].count / 2.0;
    const double a = estimate_verlet_drift(whole, 19, whole.rc + 0.02);
    const double b = estimate_verlet_drift(split, 19, whole.rc + 0.02);
    EXPECT_NEAR(a, b, 1e-12 * a);
}

TEST(VerletBuffer, CoulombAddsDrift) {
    auto p = spce_params();
    const double with_q = estimate_verlet_drift(p, 9, p.rc + 0.02);
    p.ewald_beta = 0.0;
    const double lj_only = estimate_verlet_drift(p, 9, p.rc + 0.02);
    EXPECT_GT(with_q, lj_only);
    EXPECT_GE(estimate_rlist(spce_params(), 9), estimate_rlist(p, 9));
}

// The GROMACS water benchmark box (benchmarks/data/water-24k: 8051 SPC/E, 6.26 nm,
// rc 1.0, ewald_rtol 1e-5, 300 K, 2 fs, SETTLE with d_OH 0.1 nm).
VerletBufferParams water24k_params(int cluster_i, int cluster_j) {
    const double sigma = 0.316557;
    const double eps = 0.650194;
    const double nwater = 8051.0;
    VerletBufferParams p;
    p.classes = {BufferAtomClass{15.9994, nwater, 0, -0.8476, 1.008, 0.1},
                 BufferAtomClass{1.008, 2.0 * nwater, 1, 0.4238, 15.9994, 0.1}};
    p.num_lj_types = 2;
    p.c6 = {4.0 * eps * std::pow(sigma, 6), 0.0, 0.0, 0.0};
    p.c12 = {4.0 * eps * std::pow(sigma, 12), 0.0, 0.0, 0.0};
    p.volume = 6.26 * 6.26 * 6.26;
    p.temperature = 300.0;
    p.dt = 0.002;
    p.rc = 1.0;
    p.ewald_beta = 3.12341;
    p.cluster_i = cluster_i;
    p.cluster_j = cluster_j;
    return p;
}

TEST(VerletBuffer, ConstrainedWaterMatchesGromacsOnItsBenchmarkBox) {
    // GROMACS 2024.6's md.log for this box (gmx mdrun -ntomp 2, nstlist raised to 50,
    // pruning every 10 steps): "outer list: updated every 50 steps, buffer 0.120 nm",
    // "inner list: updated every 10 steps, buffer 0.000 nm" for its 4x8 list, and for
    // the equivalent 1x1 list 0.248 and 0.036 nm. GROMACS weights the density by
    // ~1 nm cells (a few per mille above N/V here); 0.003 nm covers that.
    const VerletBufferParams p48 = water24k_params(4, 8), p11 = water24k_params(1, 1);
    EXPECT_NEAR(estimate_rlist(p48, 49), 1.120, 0.003);
    EXPECT_NEAR(estimate_rlist(p48, 9), 1.000, 0.003);
    EXPECT_NEAR(estimate_rlist(p11, 49), 1.248, 0.003);
    EXPECT_NEAR(estimate_rlist(p11, 9), 1.036, 0.003);
    std::printf("water-24k 4x8: rlist %.3f (nstlist 50), %.3f (10); 1x1: %.3f, %.3f\n", estimate_rlist(p48, 49),
                estimate_rlist(p48, 9), estimate_rlist(p11, 49), estimate_rlist(p11, 9));
}

TEST(VerletBuffer, ConstraintsShrinkTheBufferAndLightPartnersDoNotCount) {
    const VerletBufferParams constrained = water24k_params(4, 8);
    VerletBufferParams free_atoms = constrained;
    for (BufferAtomClass& c : free_atoms.classes) c.constraint_mass = c.constraint_length = 0.0;
    for (int lifetime : {9, 19, 49}) EXPECT_LT(estimate_rlist(constrained, lifetime), estimate_rlist(free_atoms, lifetime));
    // O is constrained only to H, lighter than 0.4x its mass: it moves freely, so
    // dropping its constraint changes nothing.
    VerletBufferParams o_free = constrained;
    o_free.classes[0].constraint_mass = o_free.classes[0].constraint_length = 0.0;
    EXPECT_DOUBLE_EQ(estimate_verlet_drift(o_free, 19, 1.05), estimate_verlet_drift(constrained, 19, 1.05));
}

TEST(ListIntervals, WaterBenchmarkBoxGetsGromacsIntervals) {
    // GROMACS 2024.6 on this box under v-rescale: "Changing nstlist from 10 to 50,
    // rlist from 1 to 1.12" and "inner list: updated every 10 steps".
    const VerletBufferParams p = water24k_params(4, 8);
    const double density = 24153.0 / p.volume;
    EXPECT_EQ(default_nstlist(p, density, 0.5 * 6.26), 50);
    EXPECT_EQ(default_nstprune(p, 50, estimate_rlist(p, 49), density), 10);
    // A box whose half edge rlist must stay below stops the growth earlier.
    const int capped = default_nstlist(p, density, 1.1);
    EXPECT_LT(capped, 50);
    EXPECT_LT(estimate_rlist(p, capped - 1), 1.1);
}

TEST(ListIntervals, GpuNonbondedsGetGromacsGpuIntervals) {
    // GROMACS 2024.6 on this box with its GPU list emulated (GMX_EMULATE_GPU=1,
    // v-rescale): "Changing nstlist from 10 to 100, rlist from 1 to 1.173" and
    // "inner list: updated every 10 steps, buffer 0.003 nm". mdcore's GPU list is
    // built from the 8x4 search.
    const VerletBufferParams p = water24k_params(8, 4);
    const double density = 24153.0 / p.volume;
    const int nstlist = default_nstlist(p, density, 0.5 * 6.26, /*gpu_nonbonded=*/true);
    EXPECT_EQ(nstlist, 100);
    EXPECT_GT(nstlist, default_nstlist(p, density, 0.5 * 6.26, /*gpu_nonbonded=*/false));
    EXPECT_NEAR(estimate_rlist(p, nstlist - 1), 1.173, 0.01);
    EXPECT_EQ(default_nstprune(p, nstlist, estimate_rlist(p, nstlist - 1), density), 10);
}

TEST(ListIntervals, PruningIsLeftOutWhereItCannotPay) {
    const VerletBufferParams p = water24k_params(4, 8);
    const double density = 24153.0 / p.volume;
    for (int nstlist : {1, 2, 5}) EXPECT_EQ(default_nstprune(p, nstlist, estimate_rlist(p, nstlist - 1), density), nstlist);
    for (int nstlist : {8, 12, 20, 40, 100}) {
        const int nstprune = default_nstprune(p, nstlist, estimate_rlist(p, nstlist - 1), density);
        EXPECT_GE(nstprune, 4);
        EXPECT_LE(nstprune, nstlist);
        if (nstprune < nstlist) EXPECT_LT(nstprune, nstlist - 1);
    }
    // With the outer list already unbuffered, an inner list cannot be shorter.
    EXPECT_EQ(default_nstprune(p, 20, p.rc, density), 20);
    EXPECT_GT(cluster_rlist_increase(4, 8, density), cluster_rlist_increase(4, 4, density));
}

TEST(VerletBuffer, ArgonSanity) {
    const auto p = argon_params();
    double prev = p.rc;
    for (int nstlist : {10, 20, 40}) {
        const double rl = estimate_rlist(p, nstlist - 1);
        std::printf("argon 4x4 nstlist %2d: rlist %.3f nm (buffer %.3f nm)\n", nstlist, rl,
                    rl - p.rc);
        EXPECT_GT(rl - p.rc, 0.0);
        EXPECT_LT(rl - p.rc, 0.3);
        EXPECT_GT(rl, prev);
        prev = rl;
    }
}

TEST(VerletBuffer, WaterSanity) {
    // No constraint correction: the H atoms move as free particles, so this is
    // somewhat larger than GROMACS (which treats H as rotating around O).
    const auto p = spce_params();
    for (int nstlist : {10, 20, 40}) {
        const double rl = estimate_rlist(p, nstlist - 1);
        std::printf("SPC/E 4x4 nstlist %2d: rlist %.3f nm (buffer %.3f nm)\n", nstlist, rl,
                    rl - p.rc);
        if (nstlist == 10) {
            EXPECT_GE(rl - p.rc, 0.0);
            EXPECT_LE(rl - p.rc, 0.15);
        }
    }
}

// The derivatives the estimate uses at rc, against finite differences of the
// reference kernel's LJ pair forces (per unit C6 and C12) and of the reaction field.
TEST(VerletBuffer, CutoffDerivativesOfTheModifiersMatchTheirPotentials) {
    VerletBufferParams p = argon_params();  // rc 0.85
    p.rvdw_switch = 0.6;
    const double h = 1e-3;
    for (VdwModifier vdw : {VdwModifier::PotentialShift, VdwModifier::ForceSwitch, VdwModifier::PotentialSwitch}) {
        p.vdw_modifier = vdw;
        ReferenceInteraction in;
        in.rc = p.rc;
        in.vdw = vdw;
        in.rvdw_switch = p.rvdw_switch;
        const CutoffDerivatives want = cutoff_derivatives(p);
        for (int term = 0; term < 2; ++term) {
            const double c6 = term == 0 ? 1.0 : 0.0, c12 = term == 0 ? 0.0 : 1.0;
            const PotentialDerivatives& d = term == 0 ? want.dispersion : want.repulsion;
            // F = -V' at rc - k h, inside the cut-off: one-sided second-order
            // differences give V'' = -F' and -V''' = F'' at rc.
            double f[4];
            for (int k = 0; k < 4; ++k) f[k] = reference_lj_pair(p.rc - k * h, c6, c12, in).f;
            const double d2 = -(3 * f[0] - 4 * f[1] + f[2]) / (2 * h);
            const double md3 = (2 * f[0] - 5 * f[1] + 4 * f[2] - f[3]) / (h * h);
            const std::string what = std::string(to_string(vdw)) + (term == 0 ? " dispersion" : " repulsion");
            // The differences' error is of order h^2 times the next derivative.
            const double scale = std::abs(d.md1) + std::abs(d.d2) * p.rc + std::abs(d.md3) * p.rc * p.rc;
            EXPECT_NEAR(d.md1, f[0], 1e-9 * scale) << what;
            EXPECT_NEAR(d.d2, d2, 1e-3 * scale / p.rc) << what;
            EXPECT_NEAR(d.md3, md3, 2e-2 * scale / (p.rc * p.rc)) << what;
            if (vdw != VdwModifier::PotentialShift) {
                EXPECT_EQ(d.md1, 0.0) << what;
                EXPECT_EQ(d.d2, 0.0) << what;
            }
        }
    }
    // Reaction field, per unit charge product: elfac (1/r + k_rf r^2 - c_rf).
    VerletBufferParams w = spce_params();
    w.coulomb_type = CoulombType::ReactionField;
    const double elfac = units::kCoulomb / w.epsilon_r;
    for (double eps_rf : {62.0, 0.0, 1.0}) {
        w.epsilon_rf = eps_rf;
        const ReactionFieldTerms rf = reaction_field_terms(w.epsilon_r, eps_rf, w.rc);
        auto force = [&](double r) { return elfac * (1 / (r * r) - 2 * rf.k_rf * r); };
        const PotentialDerivatives d = cutoff_derivatives(w).coulomb;
        EXPECT_NEAR(d.md1, force(w.rc), 1e-9 * elfac) << eps_rf;
        EXPECT_NEAR(d.d2, -(force(w.rc + h) - force(w.rc - h)) / (2 * h), 1e-4 * elfac) << eps_rf;
        EXPECT_NEAR(1 / w.rc + rf.k_rf * w.rc * w.rc - rf.c_rf, 0.0, 1e-12);  // V(rc) = 0
    }
    w.epsilon_rf = 0.0;  // conducting boundary: no force at rc
    EXPECT_NEAR(cutoff_derivatives(w).coulomb.md1, 0.0, 1e-9 * elfac);
}

// Switching removes the force at rc, the term that dominates the drift of a
// potential-shifted LJ fluid: a shorter buffer for the same tolerance. For
// water a reaction field needs more buffer than Ewald, whose real-space terms
// are small at rc, and less the more the field cancels the force at rc
// (epsilon_rf = epsilon_r is the plain shifted cut-off, infinity none at all).
TEST(VerletBuffer, SwitchedLjAndReactionFieldNeedShorterBuffers) {
    VerletBufferParams p = argon_params();
    const double shifted = estimate_rlist(p, 19);
    p.rvdw_switch = 0.6;
    p.vdw_modifier = VdwModifier::ForceSwitch;
    const double force_switched = estimate_rlist(p, 19);
    p.vdw_modifier = VdwModifier::PotentialSwitch;
    const double potential_switched = estimate_rlist(p, 19);
    std::printf("  argon rlist: potential-shift %.3f, force-switch %.3f, potential-switch %.3f nm\n", shifted,
                force_switched, potential_switched);
    EXPECT_LT(force_switched, shifted);
    EXPECT_LT(potential_switched, shifted);
    EXPECT_GE(force_switched, p.rc);
    EXPECT_GE(potential_switched, p.rc);

    VerletBufferParams w = spce_params();
    const double ewald = estimate_rlist(w, 19);
    w.coulomb_type = CoulombType::ReactionField;
    double rf[3];
    for (int k = 0; k < 3; ++k) {
        w.epsilon_rf = std::array{1.0, 62.0, 0.0}[k];
        rf[k] = estimate_rlist(w, 19);
    }
    std::printf("  SPC/E rlist: Ewald %.3f, reaction field eps_rf 1 %.3f, 62 %.3f, infinity %.3f nm\n", ewald, rf[0],
                rf[1], rf[2]);
    EXPECT_GT(rf[2], ewald);
    EXPECT_LT(rf[1], rf[0]);
    EXPECT_LT(rf[2], rf[0]);
}

}  // namespace
}  // namespace mdcore
