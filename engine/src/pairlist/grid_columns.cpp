#include "pairlist/grid_columns.h"

#include <algorithm>
#include <cmath>

#include "pairlist/cluster_grid.h"
#include "pairlist/cluster_pair_search.h"

namespace mdcore {

std::vector<std::array<int, 2>> grid_column_candidates(const Box& box, double natoms, int cluster_i, int cluster_j) {
    std::vector<std::array<int, 2>> out{cluster_grid_columns(box, natoms, cluster_i, cluster_j)};
    if (cluster_i == 1 && cluster_j == 1) return out;
    const std::array<int, 2> cubic_larger = grid_columns_for_cell(box, natoms, std::max(cluster_i, cluster_j));
    if (cubic_larger != out.front()) out.push_back(cubic_larger);
    return out;
}

std::array<int, 2> choose_grid_columns(const Box& box, const std::vector<Vec3>& positions, int cluster_i,
                                       int cluster_j, double rlist,
                                       const std::vector<std::vector<int>>& exclusions, int num_threads) {
    const auto candidates =
        grid_column_candidates(box, static_cast<double>(positions.size()), cluster_i, cluster_j);
    if (candidates.size() == 1) return candidates.front();
    ClusterGrid grid;
    PairSearchWork work;
    PairList list;
    std::array<int, 2> best = candidates.front();
    std::size_t best_entries = 0;
    for (std::size_t k = 0; k < candidates.size(); ++k) {
        grid.build(box, positions, cluster_i, cluster_j, num_threads, candidates[k]);
        search_cluster_pairs(grid, rlist, exclusions, num_threads, work, list);
        if (k == 0 || list.j.size() < best_entries) {
            best = candidates[k];
            best_entries = list.j.size();
        }
    }
    return best;
}

}  // namespace mdcore
