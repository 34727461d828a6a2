// Domain-decomposition pieces that need no MPI: the layout rules and --dd auto,
// the cell grid, update groups, the zone filter and the --dd/--npme tunables.
#include <gtest/gtest.h>

#include "domdec/dd_cell.h"
#include "domdec/dd_layout.h"
#include "domdec/dd_load_balance.h"
#include "domdec/update_groups.h"
#include "domdec/zone_filter.h"
#include "mdcore/engine.h"
#include "mdcore/generators.h"
#include "mdcore/tunables.h"

namespace mdcore {
namespace {

Box box(double x, double y, double z) {
    Box b;
    b.lengths = {x, y, z};
    return b;
}

TEST(DdLayout, AutoPicksTheLeastHaloVolume) {
    // A box long in x: cutting x keeps the faces small.
    const DdLayout l = resolve_dd_layout(box(12, 4, 4), 4, std::nullopt, -1, 1.2, false);
    EXPECT_EQ(l.cells, (std::array<int, 3>{4, 1, 1}));
    EXPECT_EQ(l.npme, 0);
    EXPECT_NE(l.reason.find("least halo volume"), std::string::npos) << l.reason;
    // A cube: equal volumes, fewer decomposed dimensions first, x first.
    EXPECT_EQ(resolve_dd_layout(box(6, 6, 6), 2, std::nullopt, -1, 1.2, false).cells, (std::array<int, 3>{2, 1, 1}));
    // 4 cells in a 6 nm cube: slabs send one face (43.2 nm^3), a 2x2 grid two
    // faces and an edge (51.84 nm^3).
    EXPECT_NEAR(dd_halo_volume(box(6, 6, 6), {4, 1, 1}, 1.2), 43.2, 1e-9);
    EXPECT_NEAR(dd_halo_volume(box(6, 6, 6), {2, 2, 1}, 1.2), 51.84, 1e-9);
    EXPECT_EQ(resolve_dd_layout(box(6, 6, 6), 4, std::nullopt, 0, 1.2, false).cells, (std::array<int, 3>{4, 1, 1}));
    // In a 3.6 nm cube 0.9 nm slabs are thinner than 1.2 nm: 2x2x1 is the best that fits.
    EXPECT_EQ(resolve_dd_layout(box(3.6, 3.6, 3.6), 4, std::nullopt, 0, 1.2, false).cells, (std::array<int, 3>{2, 2, 1}));
}

TEST(DdLayout, RefusesImpossibleLayoutsNamingTheLimit) {
    auto message = [](auto&& fn) {
        try {
            fn();
        } catch (const DdLayoutError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    const Box b = box(3, 3, 3);
    EXPECT_NE(message([&] { resolve_dd_layout(b, 4, std::array<int, 3>{4, 1, 1}, 0, 1.2, false); })
                  .find("cell edge along X is 0.75 nm, below the communication distance 1.2 nm"),
              std::string::npos);
    EXPECT_NE(message([&] { resolve_dd_layout(b, 3, std::array<int, 3>{2, 1, 1}, 0, 1.2, false); })
                  .find("has 2 cells but the run has 3 PP ranks"),
              std::string::npos);
    // A prime count whose only grids are too thin.
    EXPECT_NE(message([&] { resolve_dd_layout(b, 3, std::nullopt, 0, 1.2, false); }).find("no grid of 3 cells fits"),
              std::string::npos);
    EXPECT_NE(message([&] { resolve_dd_layout(b, 2, std::nullopt, 2, 1.2, false); }).find("leaves no PP rank"),
              std::string::npos);
    EXPECT_NE(message([&] { resolve_dd_layout(b, 2, std::nullopt, 1, 1.2, false); }).find("no PME ranks"),
              std::string::npos);
    // The limit names how many cells fit.
    EXPECT_NE(message([&] { resolve_dd_layout(b, 3, std::nullopt, 0, 1.2, false); }).find("at most 2x2x2 cells"),
              std::string::npos);
}

TEST(DdLayout, OneRankNeedsNoDecomposition) {
    const DdLayout l = resolve_dd_layout(box(3, 3, 3), 1, std::nullopt, -1, 1.2, false);
    EXPECT_EQ(l.cells, (std::array<int, 3>{1, 1, 1}));
    EXPECT_EQ(l.pp_ranks(), 1);
}

TEST(DdCell, NeighboursArePeriodicAndXRunsFastest) {
    const Box b = box(4, 6, 8);
    const DdCell c = dd_cell_of(5, {2, 3, 2}, b);  // 5 = 1 + 2 * (2 + 3 * 0)
    EXPECT_EQ(c.index, (std::array<int, 3>{1, 2, 0}));
    EXPECT_EQ(c.rank_above[0], dd_rank_of({0, 2, 0}, {2, 3, 2}));
    EXPECT_EQ(c.rank_above[1], dd_rank_of({1, 0, 0}, {2, 3, 2}));
    EXPECT_EQ(c.rank_below[2], dd_rank_of({1, 2, 1}, {2, 3, 2}));
    EXPECT_DOUBLE_EQ(c.lo[1], 4.0);
    EXPECT_DOUBLE_EQ(c.hi[1], 6.0);
    EXPECT_EQ(c.index_of(3.999, 1), 1);
    EXPECT_EQ(c.index_of(4.0, 1), 2);
}

TEST(DdCell, MovedBoundsDecideTheCellOfACoordinate) {
    const Box b = box(4, 6, 8);
    DdCell c = dd_cell_of(1, {3, 1, 1}, b);  // index 1 along x
    EXPECT_EQ(c.index_of(1.5, 0), 1);       // even: 0, 4/3, 8/3, 4
    c.set_bounds(0, {0.0, 1.6, 2.5, 4.0});
    EXPECT_DOUBLE_EQ(c.lo[0], 1.6);
    EXPECT_DOUBLE_EQ(c.hi[0], 2.5);
    EXPECT_EQ(c.index_of(1.5, 0), 0);
    EXPECT_EQ(c.index_of(1.6, 0), 1);  // a boundary belongs to the cell above it
    EXPECT_EQ(c.index_of(2.7, 0), 2);
    EXPECT_EQ(c.index_of(0.0, 0), 0);
    EXPECT_EQ(c.index_of(3.9999, 0), 2);
}

TEST(DdLoadBalance, MovesWidthHalfWayTowardsEqualTimes) {
    // Cell 0 took 3x cell 1's time for the same width: it is 3x slower per nm. Equal
    // times need widths 1:3 (1 and 3 nm of 4); half way from 2 and 2 gives 1.5 and 2.5.
    const std::vector<double> b = balanced_bounds({0.0, 2.0, 4.0}, {3.0, 1.0}, 0.5);
    ASSERT_EQ(b.size(), 3u);
    EXPECT_DOUBLE_EQ(b[0], 0.0);
    EXPECT_NEAR(b[1], 1.5, 1e-12);
    EXPECT_DOUBLE_EQ(b[2], 4.0);
    // Equal times already (the wide cell's rank is twice as fast): nothing moves.
    const std::vector<double> same = balanced_bounds({0.0, 1.0, 3.0, 4.0}, {2.0, 2.0, 2.0}, 0.5);
    EXPECT_NEAR(same[1], 1.0, 1e-12);
    EXPECT_NEAR(same[2], 3.0, 1e-12);
}

TEST(DdLoadBalance, NoCellBelowTheMinimumWidth) {
    // Cell 0 very slow: it would shrink to ~0.5 nm; the minimum 1.2 holds, the
    // others give up the difference in proportion to their spare width.
    const std::vector<double> b = balanced_bounds({0.0, 2.0, 4.0, 6.0}, {100.0, 1.0, 1.0}, 1.2);
    EXPECT_NEAR(b[1] - b[0], 1.2, 1e-12);
    EXPECT_NEAR(b[2] - b[1], 2.4, 1e-12);
    EXPECT_NEAR(b[3] - b[2], 2.4, 1e-12);
    EXPECT_DOUBLE_EQ(b[3], 6.0);
    // Every cell exactly at the minimum.
    const std::vector<double> tight = balanced_bounds({0.0, 2.0, 4.0}, {9.0, 1.0}, 2.0);
    EXPECT_NEAR(tight[1], 2.0, 1e-12);
}

TEST(DdLoadBalance, KeepsTheBoundsWithoutAMeasurementAndRefusesImpossibleMinimum) {
    const std::vector<double> kept = balanced_bounds({0.0, 1.7, 4.0}, {0.0, 1.0}, 0.5);
    EXPECT_DOUBLE_EQ(kept[1], 1.7);
    EXPECT_THROW(balanced_bounds({0.0, 2.0, 4.0}, {1.0, 1.0}, 2.5), std::invalid_argument);
    EXPECT_THROW(balanced_bounds({0.0, 2.0, 4.0}, {1.0}, 0.5), std::invalid_argument);
}

TEST(DdLoadBalance, DlbModeNames) {
    for (DlbMode m : {DlbMode::Auto, DlbMode::No, DlbMode::Yes}) EXPECT_EQ(parse_dlb_mode(to_string(m)), m);
    EXPECT_FALSE(parse_dlb_mode("on").has_value());
}

TEST(UpdateGroups, WholeWatersAndSingleAtoms) {
    WaterSpec spec;
    spec.nwater = 50;
    spec.relax_steps = 0;
    const System water = make_water_system(spec);
    const UpdateGroups g = make_update_groups(water);
    EXPECT_EQ(g.size(), 50);
    EXPECT_EQ(g.atom_count(0), 3);
    // SPC/E: the centre of O, H, H lies 0.06-0.1 nm from its atoms.
    EXPECT_GT(g.max_radius, 0.05);
    EXPECT_LT(g.max_radius, 0.1);
    LjFluidSpec lj = lj_spec();
    lj.natoms = 20;
    EXPECT_EQ(make_update_groups(make_lj_fluid(lj)).size(), 20);
    EXPECT_EQ(make_update_groups(make_lj_fluid(lj)).max_radius, 0.0);
}

// 1x1 clusters: slot s holds local atom s.
TEST(ZoneFilter, KeepsEachPairOnceAndOnlyItsOwnImage) {
    LocalAtomZones z;
    z.decomposed = {true, false, false};
    //      home(0)  halo +x (1)  halo +x (2)  halo +y... (3: zone 2 bit y, y undecomposed here: treat as home-like)
    z.zone = {0, 1, 1, 0};
    z.image = {{{0, 0, 0}}, {{1, 0, 0}}, {{0, 0, 0}}, {{0, 0, 0}}};
    PairList list;
    list.cluster_i = list.cluster_j = 1;
    // (0,1) shift +1 along x: atom 1's image is 1, atom 0's 0 -> kept.
    // (0,1) shift 0: a periodic copy of the same pair -> dropped.
    // (1,2) both in zone +x -> another rank computes it -> dropped.
    // (0,3) shift -1 along y (undecomposed): every image counts -> kept.
    list.i = {{0, 0, 3}, {1, 3, 4}};
    list.j = {{1, shift_index(1, 0, 0), 1u, 0u},
              {1, shift_index(0, 0, 0), 1u, 0u},
              {3, shift_index(0, -1, 0), 0u, 1u},
              {2, shift_index(-1, 0, 0), 1u, 0u}};
    filter_pairs_by_zone(z, {0, 1, 2, 3}, 1, list);
    ASSERT_EQ(list.j.size(), 2u);
    EXPECT_EQ(list.j[0].shift, shift_index(1, 0, 0));
    EXPECT_EQ(list.j[1].cj, 3);
    EXPECT_EQ(list.j[1].excluded, 1u);  // excluded pairs follow the same rule
    ASSERT_EQ(list.i.size(), 1u);
    EXPECT_EQ(list.i[0].j_end, 2);
}

TEST(ZoneFilter, NeededOnlyWhereAPeriodicImageComesWithinTheListRadius) {
    const std::array<double, 3> box{6.0, 5.0, 5.0};
    // Spanning 4.4 nm of 6 along decomposed x: a periodic image is 1.6 nm away.
    std::vector<std::array<double, 3>> x{{-0.2, 0.1, 4.9}, {4.2, 4.8, 0.0}, {1.0, 2.0, 3.0}};
    EXPECT_FALSE(zone_filter_needed(x, box, {true, false, false}, 1.5));
    EXPECT_TRUE(zone_filter_needed(x, box, {true, false, false}, 1.7));
    // y spans 4.7 of 5: needed once y is decomposed, whatever x allows.
    EXPECT_TRUE(zone_filter_needed(x, box, {true, true, false}, 1.5));
    // Undecomposed dimensions keep every image (the filter never acts on them).
    EXPECT_FALSE(zone_filter_needed(x, box, {false, false, false}, 1.5));
    EXPECT_FALSE(zone_filter_needed({}, box, {true, true, true}, 1.5));  // an empty cell
}

TEST(DdTunables, AutoAndExplicitValues) {
    RunConfig c;
    set_tunable(c, Tunable::Dd, parse_tunable(Tunable::Dd, "2x1x2"));
    EXPECT_EQ(c.dd, (std::array<int, 3>{2, 1, 2}));
    set_tunable(c, Tunable::Dd, parse_tunable(Tunable::Dd, "auto"));
    EXPECT_FALSE(c.dd.has_value());
    EXPECT_EQ(format_tunable(parse_tunable(Tunable::Dd, "auto")), "auto");
    set_tunable(c, Tunable::Npme, parse_tunable(Tunable::Npme, "0"));
    EXPECT_EQ(c.npme, 0);
    set_tunable(c, Tunable::Npme, parse_tunable(Tunable::Npme, "auto"));
    EXPECT_EQ(c.npme, -1);
    EXPECT_THROW(parse_tunable(Tunable::Npme, "-3"), TunableError);
    EXPECT_THROW(parse_tunable(Tunable::Dd, "2x0x1"), TunableError);
    EXPECT_THROW(parse_tunable(Tunable::Cluster, "auto"), TunableError);  // only where the table says so
}

System lj_fluid(int natoms) {
    LjFluidSpec spec = lj_spec();
    spec.natoms = natoms;
    return make_lj_fluid(spec);
}

TEST(DdTunables, OneRankResolvesToOneCellWithoutMpi) {
    const System sys = lj_fluid(500);
    RunConfig c;
    c.threads = 1;
    const EffectiveConfig e = resolve_config(sys, c, RunControl{});
    EXPECT_EQ(e.ranks, 1);
    EXPECT_EQ(e.dd, (std::array<int, 3>{1, 1, 1}));
    EXPECT_EQ(e.npme, 0);
    c.dd = std::array<int, 3>{2, 1, 1};
    EXPECT_THROW(resolve_config(sys, c, RunControl{}), std::invalid_argument);
}

// The tuner plans multi-rank trials in one process: planned_ranks resolves the
// layout mpirun -np N would get; --ranks refuses a run started on another count.
TEST(DdTunables, PlannedRanksAndTheRanksCheck) {
#ifndef MDCORE_HAVE_MPI
    GTEST_SKIP() << "mdcore built without MPI: one rank only";
#endif
    const System sys = lj_fluid(4000);
    RunConfig c;
    c.threads = 1;
    ResolveOptions planned;
    planned.planned_ranks = 2;
    const EffectiveConfig e = resolve_config(sys, c, RunControl{}, planned);
    EXPECT_EQ(e.ranks, 2);
    EXPECT_EQ(e.dd[0] * e.dd[1] * e.dd[2], 2);
    EXPECT_FALSE(e.dd_reason.empty());
    c.ranks = 2;
    EXPECT_EQ(resolve_config(sys, c, RunControl{}, planned).ranks, 2);
    try {
        (void)resolve_config(sys, c, RunControl{});  // this test process is one rank
        ADD_FAILURE() << "--ranks 2 on one rank was accepted";
    } catch (const std::invalid_argument& err) {
        EXPECT_EQ(std::string(err.what()),
                  "--ranks 2: this run has 1 MPI rank(s); start it with mpirun -np 2 (or srun --ntasks 2)");
    }
}

// Under a thermostat a decomposed run takes the single-rank list intervals (GROMACS'
// rule), unless the longer list's communication distance no longer fits the cells:
// then it keeps nstlist 20 and prunes every 10 steps.
TEST(DdTunables, DecomposedRunsGrowNstlistWhereTheHaloFits) {
#ifndef MDCORE_HAVE_MPI
    GTEST_SKIP() << "mdcore built without MPI: one rank only";
#endif
    RunControl control;
    control.thermostat = Thermostat::VRescale;
    RunConfig c;
    c.threads = 1;
    c.dd = std::array<int, 3>{2, 1, 1};
    ResolveOptions planned;
    planned.planned_ranks = 2;
    WaterSpec roomy;
    roomy.nwater = 1000;  // 3.1 nm box: 1.55 nm cells
    roomy.relax_steps = 0;
    const System big = make_water_system(roomy);
    const EffectiveConfig one = resolve_config(big, RunConfig{}, control);
    const EffectiveConfig two = resolve_config(big, c, control, planned);
    ASSERT_GT(one.nstlist, 20);
    EXPECT_EQ(two.nstlist, one.nstlist);
    EXPECT_EQ(two.nstprune, one.nstprune);
    EXPECT_LE(two.dd_comm_distance, 0.5 * big.box.lengths[0]);
    WaterSpec tight = roomy;
    tight.nwater = 520;  // 2.5 nm box: 1.25 nm cells fit rlist 1.031 + 2 group radii, not the longer list's
    const System small = make_water_system(tight);
    const EffectiveConfig fallback = resolve_config(small, c, control, planned);
    EXPECT_EQ(fallback.nstlist, 20);
    EXPECT_EQ(fallback.nstprune, 10);
    EXPECT_LE(fallback.dd_comm_distance, 0.5 * small.box.lengths[0]);
    EXPECT_GT(resolve_config(small, RunConfig{}, control).nstlist, 20);  // one rank: the rule applies
}

}  // namespace
}  // namespace mdcore
