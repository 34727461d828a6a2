// The grid's column count (pairlist/grid_columns.h): candidates from the cell-size
// rules, and the choice of the one whose list has the fewest j-entries. The lists
// themselves stay exact whatever the columns: test_pairlist checks every pair
// within rlist is listed once through MdRunner, which now chooses its columns.
#include "pairlist/grid_columns.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "pairlist/cluster_grid.h"
#include "pairlist/cluster_pair_search.h"
#include "test_systems.h"

namespace mdcore {
namespace {

std::vector<Vec3> wrapped_positions(const System& sys) {
    std::vector<Vec3> p = sys.positions;
    for (Vec3& r : p)
        for (int d = 0; d < 3; ++d) r[d] -= sys.box.lengths[d] * std::floor(r[d] / sys.box.lengths[d]);
    return p;
}

std::size_t list_entries(const System& sys, const std::vector<Vec3>& pos, int ci, int cj, std::array<int, 2> columns,
                         double rlist) {
    ClusterGrid grid;
    PairSearchWork work;
    PairList list;
    grid.build(sys.box, pos, ci, cj, 1, columns);
    EXPECT_EQ(grid.ncx(), columns[0]);
    EXPECT_EQ(grid.ncy(), columns[1]);
    search_cluster_pairs(grid, rlist, sys.exclusions, 1, work, list);
    return list.j.size();
}

TEST(GridColumns, CandidatesStartWithTheDefaultRuleAndAreDistinct) {
    const Box box{{6.26, 6.26, 6.26}};
    const double natoms = 24153;
    const auto c48 = grid_column_candidates(box, natoms, 4, 8);
    ASSERT_FALSE(c48.empty());
    EXPECT_EQ(c48.front(), cluster_grid_columns(box, natoms, 4, 8));
    for (std::size_t a = 0; a < c48.size(); ++a)
        for (std::size_t b = a + 1; b < c48.size(); ++b) EXPECT_NE(c48[a], c48[b]);
    // Cubic 8-atom cells (GROMACS' rule for 4x8) are among them: 14 columns here.
    EXPECT_NE(std::find(c48.begin(), c48.end(), grid_columns_for_cell(box, natoms, 8)), c48.end());
    EXPECT_EQ(grid_columns_for_cell(box, natoms, 8), (std::array<int, 2>{14, 14}));
    EXPECT_EQ(grid_column_candidates(box, natoms, 1, 1).size(), 1u);
    EXPECT_EQ(grid_column_candidates(box, natoms, 4, 4).size(), 1u);  // every rule gives 4-atom cells
}

TEST(GridColumns, TheChoiceHasTheFewestEntriesOfAllCandidates) {
    const System lj = testing::lj_system(4000);
    const System water = make_named_system(SystemKind::Water, 3000, 5);
    for (const System* sys : {&lj, &water}) {
        const std::vector<Vec3> pos = wrapped_positions(*sys);
        for (const auto& [ci, cj] : {std::pair{8, 4}, std::pair{4, 8}}) {
            const double rlist = sys->rc + 0.03;
            const auto chosen = choose_grid_columns(sys->box, pos, ci, cj, rlist, sys->exclusions, 1);
            const auto candidates = grid_column_candidates(sys->box, static_cast<double>(pos.size()), ci, cj);
            ASSERT_NE(std::find(candidates.begin(), candidates.end(), chosen), candidates.end());
            const std::size_t best = list_entries(*sys, pos, ci, cj, chosen, rlist);
            for (const auto& c : candidates)
                EXPECT_LE(best, list_entries(*sys, pos, ci, cj, c, rlist))
                    << sys->kind << " " << ci << "x" << cj << " columns " << c[0] << "x" << c[1];
        }
    }
}

}  // namespace
}  // namespace mdcore
