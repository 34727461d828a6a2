// Pair-list coverage. The buffer estimate (GROMACS' tolerance-based method) bounds
// the energy error of pairs that enter the cut-off during a list's lifetime; it
// does not promise zero such pairs (the potential shift makes shallow entries
// nearly free, so the estimate rightly allows them). So we test:
//  - exactly: every atom pair within rlist when the outer list is built (and
//    within rlist_inner when it is pruned) is listed, once;
//  - during the lifetime at the estimated buffer: the energy carried by pairs
//    inside rc that the list misses stays below the drift tolerance, as the
//    estimate promises.
#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <vector>
#include <string>
#include <utility>

#include "md_runner.h"
#include "pairlist/cluster_pair_search.h"
#include "mdcore/engine.h"
#include "test_systems.h"

namespace mdcore {
namespace {

using AtomPair = std::pair<int, int>;

using testing::min_image_r2;

// Pair sets as sorted vectors: fast enough to compare every step.
struct PairSet {
    std::vector<AtomPair> v;
    bool count(const AtomPair& p) const { return std::binary_search(v.begin(), v.end(), p); }
};

PairSet reference_pairs_within(const System& sys, double r) {
    PairSet pairs;
    for (int a = 0; a < static_cast<int>(sys.natoms()); ++a)
        for (int b = a + 1; b < static_cast<int>(sys.natoms()); ++b)
            if (min_image_r2(sys, a, b) < r * r) pairs.v.push_back({a, b});
    return pairs;
}

// Atom pairs of the list's unmasked lanes (order: the grid's slots).
PairSet listed_pairs(const std::vector<int>& order, const PairList& list) {
    PairSet pairs;
    for (const IEntry& ei : list.i)
        for (int e = ei.j_begin; e < ei.j_end; ++e) {
            const JEntry& je = list.j[e];
            for (int i = 0; i < list.cluster_i; ++i)
                for (int j = 0; j < list.cluster_j; ++j) {
                    if (!(je.mask >> (i * list.cluster_j + j) & 1u)) continue;
                    const int a = order[ei.ci * list.cluster_i + i], b = order[je.cj * list.cluster_j + j];
                    EXPECT_TRUE(a >= 0 && b >= 0);
                    const AtomPair p{std::min(a, b), std::max(a, b)};
                    // Different images of one pair can both be listed in small boxes;
                    // the shift distinguishes them, so only count unique pairs here.
                    pairs.v.push_back(p);
                }
        }
    std::sort(pairs.v.begin(), pairs.v.end());
    pairs.v.erase(std::unique(pairs.v.begin(), pairs.v.end()), pairs.v.end());
    return pairs;
}

PairSet listed_pairs(const MdRunner& md, const PairList& list) { return listed_pairs(md.grid().order(), list); }

System argon(long natoms) {
    LjFluidSpec spec = argon_spec();
    spec.natoms = natoms;
    spec.jitter = 0.02;
    return make_lj_fluid(spec, "argon");
}

class PairListShapes : public ::testing::TestWithParam<ClusterShape> {};

TEST_P(PairListShapes, ListsEveryPairWithinRlistAtBuildAndPrune) {
    System sys = argon(900);
    RunConfig rc;
    rc.cluster = GetParam();
    rc.nstlist = 40;
    rc.nstprune = 5;
    rc.rlist = 0.95;  // explicit outer radius, so outer and inner radii differ
    rc.threads = 2;
    const EffectiveConfig cfg = resolve_config(sys, rc, RunControl{});
    ASSERT_GT(cfg.rlist, cfg.rlist_inner);
    MdRunner md(sys, cfg);
    md.search();
    md.scatter_to_system();
    const auto outer = listed_pairs(md, md.outer_list());
    for (const AtomPair& p : reference_pairs_within(sys, cfg.rlist).v)
        ASSERT_TRUE(outer.count(p)) << "outer list misses " << p.first << "-" << p.second;
    // Move the atoms a little, prune, and check the inner list.
    for (int step = 0; step < 5; ++step) {
        md.compute_forces(EnergyOutput::No);
        leapfrog_update(md.state(), sys.dt, 1.0, cfg.threads);
    }
    md.prune();
    md.scatter_to_system();
    const auto inner = listed_pairs(md, md.inner_list());
    for (const AtomPair& p : reference_pairs_within(sys, cfg.rlist_inner).v)
        ASSERT_TRUE(inner.count(p)) << "inner list misses " << p.first << "-" << p.second;
}

TEST_P(PairListShapes, MissedPairEnergyWithinToleranceDuringLifetime) {
    System sys = argon(1500);
    RunConfig rc;
    rc.cluster = GetParam();
    rc.nstlist = 20;
    rc.nstprune = 10;
    rc.threads = 2;
    const EffectiveConfig cfg = resolve_config(sys, rc, RunControl{});
    MdRunner md(sys, cfg);
    const double rc2 = sys.rc * sys.rc, rc6 = 1.0 / (rc2 * rc2 * rc2);
    const double c6 = sys.lj.c6_at(0, 0), c12 = sys.lj.c12_at(0, 0);
    long missed_total = 0, within_total = 0;
    for (int step = 0; step < 2 * cfg.nstlist; ++step) {
        if (step % cfg.nstlist == 0) md.search();
        else if (step % cfg.nstprune == 0) md.prune();
        md.scatter_to_system();
        const auto listed = listed_pairs(md, md.inner_list());
        double missed_energy = 0.0;
        for (const AtomPair& p : reference_pairs_within(sys, sys.rc).v) {
            ++within_total;
            if (listed.count(p)) continue;
            ++missed_total;
            const double r2 = min_image_r2(sys, p.first, p.second), ri6 = 1.0 / (r2 * r2 * r2);
            missed_energy += std::abs(c12 * (ri6 * ri6 - rc6 * rc6) - c6 * (ri6 - rc6));
        }
        // The estimate's promise: error energy / (list lifetime * natoms) below tolerance.
        const double rate = missed_energy / (cfg.nstprune * sys.dt * sys.natoms());
        EXPECT_LT(rate, sys.drift_tolerance) << to_string(GetParam()) << " step " << step;
        md.compute_forces(EnergyOutput::No);
        leapfrog_update(md.state(), sys.dt, 1.0, cfg.threads);
    }
    RecordProperty("missed_pairs", std::to_string(missed_total));
    RecordProperty("pairs_within_rc", std::to_string(within_total));
}

INSTANTIATE_TEST_SUITE_P(Shapes, PairListShapes,
                         ::testing::Values(ClusterShape::k4x4, ClusterShape::k4x8, ClusterShape::k8x4,
                                           ClusterShape::k1x1),
                         [](const auto& info) { return "c" + std::string(to_string(info.param)); });

TEST(PairList, KernelCountsEachPairOnceInSmallBox) {
    // rlist close to the box edge: several images of a pair are listed, the kernel
    // must still count each pair within rc exactly once.
    System sys = testing::lj_system(200, 0.8442, 0.03);
    for (ClusterShape s : {ClusterShape::k4x4, ClusterShape::k4x8, ClusterShape::k8x4, ClusterShape::k1x1}) {
        RunConfig rc;
        rc.cluster = s;
        rc.rlist = 0.95 * sys.box.lengths[0];
        const EffectiveConfig cfg = resolve_config(sys, rc, RunControl{});
        System copy = sys;
        MdRunner md(copy, cfg);
        md.search();
        const ForceEnergies e = md.compute_forces(EnergyOutput::Yes);
        EXPECT_EQ(static_cast<long>(e.pairs_in_cutoff), static_cast<long>(reference_pairs_within(sys, sys.rc).v.size()))
            << to_string(s);
    }
}

// The System with its atoms in reverse order (everything per atom renumbered).
System reversed_atoms(const System& sys) {
    System out = sys;
    const int n = static_cast<int>(sys.natoms());
    auto flip = [n](int a) { return n - 1 - a; };
    for (int a = 0; a < n; ++a) {
        const int b = flip(a);
        out.positions[b] = sys.positions[a];
        out.velocities[b] = sys.velocities[a];
        out.type[b] = sys.type[a];
        out.charge[b] = sys.charge[a];
        out.mass[b] = sys.mass[a];
        out.exclusions[b].clear();
        for (int e : sys.exclusions[a]) out.exclusions[b].push_back(flip(e));
        std::sort(out.exclusions[b].begin(), out.exclusions[b].end());
    }
    for (Settle& s : out.settles) {
        s.o = flip(s.o);
        s.h1 = flip(s.h1);
        s.h2 = flip(s.h2);
    }
    return out;
}

// Within each group of min(N, M) slots the atoms with LJ come first (the
// kernels' LJ skip); returns the number of groups that break it.
int groups_with_lj_after_plain(const MdRunner& md, const System& sys) {
    const auto& order = md.grid().order();
    const std::vector<std::uint8_t> has_lj = sys.lj.types_with_lj();
    const int group = std::min(md.grid().cluster_i(), md.grid().cluster_j());
    int broken = 0;
    for (std::size_t g = 0; g < order.size(); g += group) {
        bool plain_seen = false;
        for (int k = 0; k < group; ++k) {
            const int a = order[g + k];
            if (a < 0) continue;
            if (!has_lj[sys.type[a]]) plain_seen = true;
            else if (plain_seen) {
                ++broken;
                break;
            }
        }
    }
    return broken;
}

TEST(PairList, LjAtomsLeadTheirClusterGroupsAfterTheAtomsAreRenumbered) {
    // A decomposed run replaces its rank's atoms at every repartitioning; the
    // LJ-first order must follow the new numbering, not the first one.
    WaterSpec spec;
    spec.nwater = 400;
    spec.relax_steps = 0;
    System sys = make_water_system(spec);
    RunConfig rc;
    rc.cluster = ClusterShape::k4x8;
    const EffectiveConfig cfg = resolve_config(sys, rc, RunControl{});
    MdRunner md(sys, cfg);
    md.search();
    EXPECT_EQ(groups_with_lj_after_plain(md, sys), 0);
    sys = reversed_atoms(sys);
    md.discard_state();
    md.search();
    EXPECT_EQ(groups_with_lj_after_plain(md, sys), 0);
}

TEST(PairList, ZonePureClustersListEveryPairExceptThoseOfZonesSharingABit) {
    // A 2x2 decomposition's zones (bit 0: upper half in x, bit 1: upper half in y).
    System sys = argon(900);
    std::vector<std::uint8_t> zone(sys.natoms());
    for (std::size_t a = 0; a < zone.size(); ++a)
        zone[a] = static_cast<std::uint8_t>((sys.positions[a][0] >= 0.5 * sys.box.lengths[0] ? 1 : 0) |
                                            (sys.positions[a][1] >= 0.5 * sys.box.lengths[1] ? 2 : 0));
    const double rlist = 0.95;
    for (ClusterShape shape : {ClusterShape::k4x8, ClusterShape::k8x4, ClusterShape::k4x4}) {
        ClusterGrid grid;
        grid.set_zones(zone);
        grid.build(sys.box, sys.positions, cluster_i_size(shape), cluster_j_size(shape), 2);
        EXPECT_EQ(grid.num_zones(), 4);
        // Every cluster holds atoms of one zone.
        const auto& order = grid.order();
        const int size = std::min(grid.cluster_i(), grid.cluster_j());
        for (std::size_t c = 0; c < order.size(); c += size) {
            int first_zone = -1;
            for (int k = 0; k < size; ++k) {
                const int a = order[c + k];
                if (a < 0) continue;
                if (first_zone < 0) first_zone = zone[a];
                EXPECT_EQ(zone[a], first_zone) << "cluster at slot " << c << " mixes zones";
            }
        }
        PairSearchWork work;
        PairList list;
        search_cluster_pairs(grid, rlist, sys.exclusions, 2, work, list);
        const PairSet listed = listed_pairs(order, list);
        for (const AtomPair& p : listed.v)
            ASSERT_EQ(zone[p.first] & zone[p.second], 0) << p.first << "-" << p.second << " shares a zone bit";
        long expected = 0;
        for (const AtomPair& p : reference_pairs_within(sys, rlist).v) {
            if (zone[p.first] & zone[p.second]) continue;
            ++expected;
            ASSERT_TRUE(listed.count(p)) << to_string(shape) << " misses " << p.first << "-" << p.second;
        }
        EXPECT_GT(expected, 0);
    }
}

// build() bins atoms in the previous build's order (nearly sorted columns): the
// grid must come out the same as a first build's, after moves, after a build of
// other atoms (a renumbered or resized System) and with the atoms in any order.
TEST(PairList, GridOrderDoesNotDependOnThePreviousBuild) {
    System sys = argon(900);
    System moved = sys;
    for (std::size_t a = 0; a < moved.natoms(); ++a)
        for (int d = 0; d < 3; ++d) moved.positions[a][d] += 0.05 * std::sin(3.0 * a + d);
    const System other = argon(500);
    for (ClusterShape shape : {ClusterShape::k4x8, ClusterShape::k8x4, ClusterShape::k4x4, ClusterShape::k1x1}) {
        SCOPED_TRACE(std::string(to_string(shape)));
        const int ci = cluster_i_size(shape), cj = cluster_j_size(shape);
        ClusterGrid fresh;
        fresh.build(moved.box, moved.positions, ci, cj, 2);
        ClusterGrid reused;
        reused.build(sys.box, sys.positions, ci, cj, 2);
        reused.build(moved.box, moved.positions, ci, cj, 1);
        EXPECT_EQ(reused.order(), fresh.order());
        EXPECT_EQ(reused.slot_of(), fresh.slot_of());
        ClusterGrid after_other;
        after_other.build(other.box, other.positions, ci, cj, 2);
        after_other.build(moved.box, moved.positions, ci, cj, 2);
        EXPECT_EQ(after_other.order(), fresh.order());
        // Every atom again, the first half moved a second time.
        System again = moved;
        for (std::size_t a = 0; a < again.natoms() / 2; ++a) again.positions[a][2] += 0.3;
        ClusterGrid fresh_again;
        fresh_again.build(again.box, again.positions, ci, cj, 2);
        reused.build(again.box, again.positions, ci, cj, 2);
        EXPECT_EQ(reused.order(), fresh_again.order());
        const auto& bf = fresh_again.i_boxes();
        const auto& br = reused.i_boxes();
        ASSERT_EQ(bf.size(), br.size());
        for (std::size_t c = 0; c < bf.size(); ++c)
            for (int d = 0; d < 3; ++d) {
                EXPECT_EQ(bf[c].lo[d], br[c].lo[d]);
                EXPECT_EQ(bf[c].hi[d], br[c].hi[d]);
            }
    }
}

TEST(PairList, ARankTakesTheWholeSystemsGridColumns) {
    // A decomposed rank holds the atoms of part of the box; the column rule on
    // them alone sees half the density here and picks wider columns.
    System whole = argon(2000);
    System half = whole;
    half.positions.clear();
    half.velocities.clear();
    for (std::size_t a = 0; a < whole.natoms(); ++a)
        if (whole.positions[a][0] < 0.5 * whole.box.lengths[0]) {
            half.positions.push_back(whole.positions[a]);
            half.velocities.push_back(whole.velocities[a]);
        }
    const std::size_t n = half.natoms();
    half.type.assign(n, whole.type[0]);
    half.charge.assign(n, 0.0);
    half.mass.assign(n, whole.mass[0]);
    half.exclusions.assign(n, {});
    RunConfig rc;
    rc.cluster = ClusterShape::k4x8;
    const EffectiveConfig cfg = resolve_config(whole, rc, RunControl{});
    MdRunner on_whole(whole, cfg);
    on_whole.search();
    MdRunner on_half(half, cfg);
    on_half.search();
    EXPECT_LT(on_half.grid().ncx(), on_whole.grid().ncx());
    MdRunner rank(half, cfg);
    rank.choose_grid_columns_for(whole);
    rank.search();
    EXPECT_EQ(rank.grid().ncx(), on_whole.grid().ncx());
    EXPECT_EQ(rank.grid().ncy(), on_whole.grid().ncy());
}

}  // namespace
}  // namespace mdcore
