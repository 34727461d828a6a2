#pragma once
// The grid's x/y column count decides the clusters' shape, and with it how many
// masked-out lanes the pair list carries. Columns are whole numbers, so which rule
// gives the shorter list depends on how the box divides: on the water-24k box in
// 4x8, cubic 8-atom cells (GROMACS' rule, max(N, M) atoms) give 2.8 % fewer lanes
// than the geometric-mean rule, on a 32,000-atom LJ box in 8x4 11 % more. The
// runner builds the list once for each rule and keeps the shorter. Fewer lanes
// are not always faster: cubic 4-atom cells cut that LJ list by 16 % yet made its
// kernel 7 % slower (interleaved runs), so min(N, M) is not a candidate.
#include <array>
#include <vector>

#include "mdcore/system.h"

namespace mdcore {

// Candidate column counts, the default rule's first: cells of sqrt(N M) and
// max(N, M) atoms (one candidate for a plain 1x1 list or equal sizes).
std::vector<std::array<int, 2>> grid_column_candidates(const Box& box, double natoms, int cluster_i, int cluster_j);

// The candidate whose cluster-pair list at radius rlist (the one the kernels run)
// has the fewest j-entries; ties keep the earlier candidate. `positions` must be
// wrapped into the box. A one-off cost of a grid build and a search per candidate.
std::array<int, 2> choose_grid_columns(const Box& box, const std::vector<Vec3>& positions, int cluster_i,
                                       int cluster_j, double rlist,
                                       const std::vector<std::vector<int>>& exclusions, int num_threads);

}  // namespace mdcore
