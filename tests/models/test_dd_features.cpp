// Features of decomposed runs (mpirun, --dd, --npme): ranks, PME ranks, cells, the halo a
// cell receives and the PP<->PME volume, from the layout mdcore resolves.
#include <gtest/gtest.h>

#include <cmath>

#include "mdtune/models/cost_model.h"
#include "mdtune/models/features.h"
#include "model_test_util.h"

namespace mdtune {
namespace {

TEST(DdFeatures, HaloFractionIsTheEighthShellOverTheCell) {
    // Slabs of a 6 nm cube, 1.2 nm communication distance: one face grown by 1.2 nm.
    EXPECT_NEAR(models::dd_halo_fraction({6, 6, 6}, {2, 1, 1}, 1.2), 1.2 / 3.0, 1e-12);
    // 2x2x1: (3 + 1.2)^2 x 6 / (3 x 3 x 6) - 1.
    EXPECT_NEAR(models::dd_halo_fraction({6, 6, 6}, {2, 2, 1}, 1.2), 4.2 * 4.2 / 9.0 - 1.0, 1e-12);
    EXPECT_EQ(models::dd_halo_fraction({6, 6, 6}, {1, 1, 1}, 1.2), 0.0);
}

TEST(DdFeatures, ComputedFromTheResolvedLayout) {
#ifndef MDCORE_HAVE_MPI
    GTEST_SKIP() << "mdcore built without MPI: one rank only";
#endif
    const auto hw = test::test_hardware("hw-test", 4);
    const SystemDescriptor water{mdcore::SystemKind::Water, 24000, 1};
    const models::SystemModel sys(water);
    Config two;
    two.set(Param::Ranks, 2L);
    two.set(Param::Threads, 2L);
    const mdcore::EffectiveConfig eff = sys.resolve(two, hw);
    const models::Features f = models::compute_features(hw, sys.features(), eff);
    EXPECT_EQ(f.ranks, 2);
    EXPECT_EQ(f.pp_ranks, 2);
    EXPECT_EQ(f.npme, 0);
    EXPECT_EQ(f.pp_workers(), 4);
    EXPECT_EQ(f.dd[0] * f.dd[1] * f.dd[2], 2);
    EXPECT_NEAR(f.halo_fraction, models::dd_halo_fraction(sys.features().box, eff.dd, eff.dd_comm_distance), 1e-12);
    EXPECT_GT(f.halo_fraction, 0.1);
    EXPECT_EQ(f.pp_pme_atoms, 0.0);
    // One rank: nothing decomposed.
    const models::Features one = models::compute_features(hw, sys.features(), sys.resolve(Config{}, hw));
    EXPECT_EQ(one.ranks, 1);
    EXPECT_EQ(one.halo_fraction, 0.0);
    // A PME-only rank receives the charged atoms.
    Config pme = two;
    pme.set(Param::Ranks, 3L);
    pme.set(Param::Threads, 1L);
    pme.set(Param::Npme, 1L);
    const models::Features p = models::compute_features(hw, sys.features(), sys.resolve(pme, hw));
    EXPECT_EQ(p.npme, 1);
    EXPECT_EQ(p.pp_ranks, 2);
    EXPECT_EQ(p.pme_workers(), 1);
    EXPECT_NEAR(p.pp_pme_atoms, 24000.0, 1e-9);  // every SPC/E atom carries a charge
}

// The cost model's PP work divides over all PP ranks' threads: 2 ranks x 1 thread
// carries the same per-core pair work as 1 rank x 2 threads.
TEST(DdFeatures, CostTermsDivideWorkOverTheRanks) {
#ifndef MDCORE_HAVE_MPI
    GTEST_SKIP() << "mdcore built without MPI: one rank only";
#endif
    const auto hw = test::test_hardware("hw-test", 4);
    const models::SystemModel sys({mdcore::SystemKind::Lj, 8000, 1});
    Config one, two;
    one.set(Param::Threads, 2L);
    two.set(Param::Threads, 1L);
    two.set(Param::Ranks, 2L);
    const models::Features a = models::compute_features(hw, sys.features(), sys.resolve(one, hw));
    const models::Features b = models::compute_features(hw, sys.features(), sys.resolve(two, hw));
    std::size_t nonbonded = 0;
    for (std::size_t t = 0; t < models::cost_tasks().size(); ++t)
        if (models::cost_tasks()[t].name == "nonbonded") nonbonded = t;
    // The per-lane-per-core LJ terms (one per cluster shape, the first four).
    EXPECT_GT(models::cost_terms(nonbonded, a).head(4).sum(), 0.0);
    EXPECT_NEAR(models::cost_terms(nonbonded, a).head(4).sum(), models::cost_terms(nonbonded, b).head(4).sum(), 1e-9);
    EXPECT_GT(b.halo_fraction, 0.0);
}

}  // namespace
}  // namespace mdtune
