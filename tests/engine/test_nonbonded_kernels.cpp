// Every cluster shape and SIMD level against the double-precision reference kernel.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "md_runner.h"
#include "mdcore/engine.h"
#include "nonbonded/reference_kernel.h"
#include "test_systems.h"

namespace mdcore {
namespace {

struct Case {
    ClusterShape shape;
    SimdLevel simd;
};

std::vector<Case> all_cases() {
    std::vector<Case> cases;
    for (SimdLevel l : available_simd_levels())
        for (ClusterShape s : {ClusterShape::k4x4, ClusterShape::k4x8, ClusterShape::k8x4, ClusterShape::k1x1})
            cases.push_back({s, l});
    return cases;
}

std::string name(const Case& c) { return std::string(to_string(c.shape)) + "/" + std::string(to_string(c.simd)); }

// Per-pair sum of |F_ij| and |V_ij| in double: the scale of rounding errors.
struct Magnitudes {
    std::vector<double> force_abs;
    double energy_abs = 0.0;
};

Magnitudes magnitudes(const System& sys, double rc) {
    Magnitudes m;
    m.force_abs.assign(sys.natoms(), 0.0);
    const double rc6 = std::pow(rc, -6);
    for (std::size_t i = 0; i < sys.natoms(); ++i)
        for (std::size_t j = i + 1; j < sys.natoms(); ++j) {
            double r2 = 0;
            for (int k = 0; k < 3; ++k) {
                double d = sys.positions[i][k] - sys.positions[j][k];
                d -= sys.box.lengths[k] * std::round(d / sys.box.lengths[k]);
                r2 += d * d;
            }
            if (r2 >= rc * rc) continue;
            const double c6 = sys.lj.c6_at(sys.type[i], sys.type[j]);
            const double c12 = sys.lj.c12_at(sys.type[i], sys.type[j]);
            const double ri6 = 1.0 / (r2 * r2 * r2);
            const double f = std::abs(12 * c12 * ri6 * ri6 - 6 * c6 * ri6) / std::sqrt(r2);
            m.force_abs[i] += f;
            m.force_abs[j] += f;
            m.energy_abs += std::abs(c12 * (ri6 * ri6 - rc6 * rc6)) + std::abs(c6 * (ri6 - rc6));
        }
    return m;
}

// Float kernels: coordinates carry a relative error of ~6e-8 * box / r per
// difference; the r^-13 force amplifies it 13-fold. 1e-4 of the summed pair
// magnitudes covers that with room for accumulation order, and is still
// hundreds of times below any real bug (a missed or doubled pair).
constexpr double kForceTolerance = 1e-4;
constexpr double kEnergyTolerance = 1e-5;

// The force-only kernels (what every step but the energy steps runs) on the same
// single-list set-up as compute_forces().
std::vector<Vec3> force_only_forces(const System& sys, const RunConfig& cfg) {
    System copy = sys;
    RunControl control;
    control.steps = 0;
    EffectiveConfig ec = resolve_config(copy, cfg, control);
    ec.nstprune = ec.nstlist;
    ec.rlist_inner = ec.rlist;
    MdRunner md(copy, ec);
    md.search();
    md.compute_nonbonded(EnergyOutput::No);
    return md.forces_in_input_order();
}

void expect_matches_reference(const System& sys, const Case& c) {
    RunConfig cfg;
    cfg.cluster = c.shape;
    cfg.simd = c.simd;
    cfg.threads = 2;
    const ForceResult got = compute_forces(sys, cfg);
    const ReferenceResult ref = reference_lj_forces(sys, sys.rc);
    const Magnitudes mag = magnitudes(sys, sys.rc);
    EXPECT_NEAR(got.lj, ref.lj, kEnergyTolerance * mag.energy_abs + 1e-9) << name(c);
    auto expect_forces = [&](const std::vector<Vec3>& forces, const char* path) {
        int bad = 0;
        for (std::size_t a = 0; a < sys.natoms(); ++a)
            for (int k = 0; k < 3; ++k) {
                const double tol = kForceTolerance * mag.force_abs[a] + 1e-6;
                if (std::abs(forces[a][k] - ref.forces[a][k]) > tol && bad++ < 5)
                    ADD_FAILURE() << name(c) << " " << path << " atom " << a << " dim " << k << ": " << forces[a][k]
                                  << " vs " << ref.forces[a][k] << " (tol " << tol << ")";
            }
    };
    expect_forces(got.forces, "energy kernel");
    expect_forces(force_only_forces(sys, cfg), "force-only kernel");
}

TEST(NonbondedKernels, JitteredLatticeUnevenCount) {
    const System sys = testing::lj_system(997, 0.8442, 0.04, 11);
    for (const Case& c : all_cases()) expect_matches_reference(sys, c);
}

TEST(NonbondedKernels, PerfectLattice) {
    const System sys = testing::lj_system(864, 0.8442, 0.0);  // 6^3 fcc cells
    for (const Case& c : all_cases()) expect_matches_reference(sys, c);
}

TEST(NonbondedKernels, RandomDilutePositions) {
    // Random insertion with a minimum separation (no overlaps that overflow float).
    System sys = testing::lj_system(301, 0.3, 0.0);
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> u(0.0, sys.box.lengths[0]);
    for (std::size_t a = 0; a < sys.natoms(); ++a) {
        for (int attempt = 0; attempt < 1000; ++attempt) {
            Vec3 p{u(rng), u(rng), u(rng)};
            bool ok = true;
            for (std::size_t b = 0; b < a && ok; ++b) {
                double r2 = 0;
                for (int k = 0; k < 3; ++k) {
                    double d = p[k] - sys.positions[b][k];
                    d -= sys.box.lengths[k] * std::round(d / sys.box.lengths[k]);
                    r2 += d * d;
                }
                ok = r2 > 0.3 * 0.3;
            }
            if (ok) {
                sys.positions[a] = p;
                break;
            }
        }
    }
    for (const Case& c : all_cases()) expect_matches_reference(sys, c);
}

TEST(NonbondedKernels, SmallBoxJustAboveTwiceCutoff) {
    // 1.71 nm box with rc 0.85: images of the same pair within rlist, one within rc.
    System sys = testing::lj_system(108, 0.8442, 0.03);
    ASSERT_GT(sys.box.lengths[0], 2 * sys.rc);
    for (const Case& c : all_cases()) expect_matches_reference(sys, c);
}

TEST(NonbondedKernels, PairsExactlyAtCutoffAreExcluded) {
    // rc = 1 and separations of exactly 1.0 (representable in float and double):
    // both the kernels and the reference use r < rc, so these pairs contribute nothing.
    System sys = testing::lj_system(8, 0.1, 0.0);
    sys.box.lengths = {4.0, 4.0, 4.0};
    sys.rc = 1.0;
    sys.positions = {{0.5, 0.5, 0.5}, {1.5, 0.5, 0.5}, {0.5, 1.5, 0.5}, {0.5, 0.5, 1.5},
                     {2.5, 2.5, 2.5}, {2.5, 2.5, 3.5}, {3.5, 0.5, 2.0}, {3.5, 0.5, 2.5}};
    for (const Case& c : all_cases()) {
        expect_matches_reference(sys, c);
        RunConfig cfg;
        cfg.cluster = c.shape;
        cfg.simd = c.simd;
        const ForceResult got = compute_forces(sys, cfg);
        for (int a = 0; a < 6; ++a)
            for (int k = 0; k < 3; ++k) EXPECT_EQ(got.forces[a][k], 0.0) << name(c) << " atom " << a;
        EXPECT_NE(got.forces[6][2], 0.0);  // 0.5 nm apart: inside
    }
}

TEST(NonbondedKernels, LorentzBerthelotUsesTableKernels) {
    const System sys = testing::two_type_lb_system(500);
    ASSERT_FALSE(sys.lj.is_geometric());
    for (const Case& c : all_cases()) expect_matches_reference(sys, c);
}

TEST(NonbondedKernels, ExclusionsAreHonoured) {
    System sys = testing::lj_system(400, 0.8442, 0.03);
    sys.exclusions.assign(sys.natoms(), {});
    // Exclude each atom's nearest index partner, as in a chain of dimers.
    for (std::size_t a = 0; a + 1 < sys.natoms(); a += 2) {
        sys.exclusions[a].push_back(static_cast<int>(a + 1));
        sys.exclusions[a + 1].push_back(static_cast<int>(a));
    }
    for (const Case& c : all_cases()) expect_matches_reference(sys, c);
}

TEST(PruneKernels, EveryLevelKeepsExactlyTheEntriesWithAPairInside) {
    // The outer list of a jittered lattice with exclusions (masked entries) pruned to
    // 0.8 rlist by every shape's prune kernel at every SIMD level, against a double
    // check of the same float coordinates: an entry is kept when a listed pair
    // (interacting or excluded) lies inside, up to float rounding at the radius.
    System sys = testing::lj_system(997, 0.8442, 0.04, 11);
    sys.exclusions.assign(sys.natoms(), {});
    for (std::size_t a = 0; a + 1 < sys.natoms(); a += 2) {
        sys.exclusions[a].push_back(static_cast<int>(a + 1));
        sys.exclusions[a + 1].push_back(static_cast<int>(a));
    }
    for (const Case& c : all_cases()) {
        RunConfig rc;
        rc.cluster = c.shape;
        rc.simd = c.simd;
        rc.threads = 2;
        System copy = sys;
        const EffectiveConfig cfg = resolve_config(copy, rc, RunControl{});
        MdRunner md(copy, cfg);
        md.search();
        const PairList& list = md.outer_list();
        const std::size_t n = md.state().size();
        std::vector<float> x(n), y(n), z(n);
        for (std::size_t s = 0; s < n; ++s) {
            x[s] = static_cast<float>(md.state().x[s]);
            y[s] = static_cast<float>(md.state().y[s]);
            z[s] = static_cast<float>(md.state().z[s]);
        }
        float shift[kNumShifts][3];
        fill_shift_table(md.grid().box(), shift);
        const double r_inner = 0.8 * list.rlist;
        const PruneInput in{{x.data(), y.data(), z.data(), shift}, &list, static_cast<float>(r_inner * r_inner)};
        std::vector<unsigned char> keep(list.j.size(), 2);
        kernel_set(c.simd, c.shape).prune(in, 0, static_cast<int>(list.i.size()), keep.data());

        const int ni = list.cluster_i, nj = list.cluster_j;
        int bad = 0, kept = 0;
        for (const IEntry& ei : list.i)
            for (int e = ei.j_begin; e < ei.j_end; ++e) {
                const JEntry& je = list.j[e];
                double r2_min = 1e30;
                for (int p = 0; p < ni * nj; ++p) {
                    if (!((je.mask | je.excluded) >> p & 1u)) continue;
                    const int a = ei.ci * ni + p / nj, b = je.cj * nj + p % nj;
                    const double dx = double(x[a]) - (double(x[b]) + shift[je.shift][0]);
                    const double dy = double(y[a]) - (double(y[b]) + shift[je.shift][1]);
                    const double dz = double(z[a]) - (double(z[b]) + shift[je.shift][2]);
                    r2_min = std::min(r2_min, dx * dx + dy * dy + dz * dz);
                }
                const double ratio = r2_min / (r_inner * r_inner);
                const bool must_keep = ratio < 1 - 1e-5, must_drop = ratio > 1 + 1e-5;
                kept += keep[e] == 1;
                if ((keep[e] > 1 || (must_keep && keep[e] != 1) || (must_drop && keep[e] != 0)) && bad++ < 5)
                    ADD_FAILURE() << name(c) << " entry " << e << ": keep " << int(keep[e]) << ", closest pair at "
                                  << std::sqrt(ratio) << " r_inner";
            }
        // Both outcomes occur, so neither "keep all" nor "drop all" passes.
        EXPECT_GT(kept, 0) << name(c);
        EXPECT_LT(kept, static_cast<int>(list.j.size())) << name(c);
    }
}

}  // namespace
}  // namespace mdcore
