#pragma once
// Builds the cluster-pair list from bounding-box distances (half list: each atom
// pair appears once), and prunes an outer list to a shorter inner radius.
#include <vector>

#include "pairlist/cluster_grid.h"
#include "pairlist/pair_list.h"

namespace mdcore {

// Coordinates in sorted slot order (float, SoA) and the shift table for the box.
struct SortedCoordinates {
    const float* x;
    const float* y;
    const float* z;
    const float (*shift)[3];  // kNumShifts vectors
};

void fill_shift_table(const Box& box, float (*shift)[3]);

// Per-thread buffers kept between searches so a search does not allocate.
struct PairSearchWork {
    std::vector<std::vector<IEntry>> i;
    std::vector<std::vector<JEntry>> j;
    std::vector<unsigned char> keep;
};

// exclusions: per atom (input order) sorted list of excluded partners, or empty.
void search_cluster_pairs(const ClusterGrid& grid, double rlist,
                          const std::vector<std::vector<int>>& exclusions, int num_threads,
                          PairSearchWork& work, PairList& list);

// Sets keep[e] for the j-entries of list.i[i_begin, i_end) that have an unmasked
// atom pair closer than sqrt(r2) (SIMD instantiations live with the kernels).
struct PruneInput {
    SortedCoordinates coords;
    const PairList* list;
    float r2;
};
using PruneKernelFn = void (*)(const PruneInput&, int i_begin, int i_end, unsigned char* keep);

// Keeps the entries of `outer` with at least one unmasked atom pair closer than
// rlist_inner at the current coordinates.
void prune_pair_list(const PairList& outer, PruneKernelFn kernel, const SortedCoordinates& coords,
                     double rlist_inner, int num_threads, PairSearchWork& work, PairList& inner);

}  // namespace mdcore
