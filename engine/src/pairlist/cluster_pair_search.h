#pragma once
// Builds the cluster-pair list from bounding-box distances (half list: each atom
// pair appears once), and prunes an outer list to a shorter inner radius.
#include <cstdint>
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

// A column near an i-column, with the periodic shift that brings it there.
struct NeighborColumn {
    int column;
    int sx, sy;
    float shx, shy;
    float cell_lo_x, cell_lo_y;  // unwrapped cell corner
};

// The excluded atom pairs of one i-cluster with one j-cluster.
struct ClusterExclusion {
    int cj;
    std::uint32_t bits;  // bit i*M + j: pair (i, j) is excluded
};

// One thread's buffers, kept between searches so a search does not allocate.
struct PairSearchThread {
    std::vector<IEntry> i;
    std::vector<JEntry> j;
    std::vector<NeighborColumn> neighbors;
    std::vector<int> cursors;
    std::vector<ClusterExclusion> exclusions;  // of the column being searched
    std::vector<int> exclusion_begin;          // per i-cluster of that column, into exclusions
    std::vector<float> d2;                     // squared box distances of a candidate range
    std::vector<int> hits;                     // the j-clusters of that range within rlist
    std::size_t count_j = 0;  // entries of j in use
};

// A piece of a list built by one thread: its i- and j-entry ranges (in that
// thread's buffers for the search, sizes only for the prune).
struct ListPart {
    int thread = 0;
    std::size_t i_begin = 0, i_end = 0, j_begin = 0, j_end = 0;
};

struct PairSearchWork {
    std::vector<PairSearchThread> threads;
    std::vector<unsigned char> keep;
    // Excluded partners' slots per atom (input order, CSR), rebuilt per search.
    std::vector<int> exclusion_offset, exclusion_slot;
    // The pieces in list order, and where each starts in the merged list (+1 entry).
    std::vector<ListPart> parts;
    std::vector<std::size_t> i_offset, j_offset;
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
