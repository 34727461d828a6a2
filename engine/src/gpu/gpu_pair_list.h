#pragma once
// Builds the GPU pair list (gpu_list_layout.h) on the CPU from the 8x4 cluster
// search: every 8-atom i-cluster of the 8x4 grid is a GPU cluster, its 4-atom
// j-clusters 2c and 2c+1 are the two warp halves of GPU j-cluster c. Clusters
// are grouped into super-clusters of 2 x 2 grid columns x 2 consecutive clusters
// along z (columns hold similar atom counts, so the group stays compact; GROMACS
// sorts a 2 x 2 x 2 cell instead). Host code; nvcc never includes it.
#include <cstdint>
#include <vector>

#include "gpu/gpu_list_layout.h"
#include "pairlist/cluster_grid.h"
#include "pairlist/pair_list.h"

namespace mdcore::gpu {

// Where each GPU cluster's atoms live in the CPU's sorted slot order.
struct SuperClusterLayout {
    int num_super = 0;
    std::vector<std::int32_t> cpu_cluster;  // per GPU cluster: the 8-atom cluster of the grid, or -1 (empty)
    std::vector<std::int32_t> gpu_cluster;  // per 8-atom grid cluster: its GPU cluster
    int num_gpu_slots() const { return num_super * kSuperSize; }
    // Sorted CPU slot of a GPU slot, -1 for the slots of an empty cluster.
    int cpu_slot(int gpu_slot) const {
        const int c = cpu_cluster[gpu_slot / kClusterSize];
        return c < 0 ? -1 : c * kClusterSize + gpu_slot % kClusterSize;
    }
};

// Requires a grid built for 8 x 4 clusters; throws std::invalid_argument otherwise.
SuperClusterLayout group_super_clusters(const ClusterGrid& grid);

struct GpuPairList {
    std::vector<Sci> sci;
    std::vector<Cj4> cj4;
    std::vector<PairMasks> masks;  // masks[0]: every pair interacts, none excluded
    double rlist = 0.0;
};

// The GPU list holding exactly the atom pairs of `list` (an 8x4 list on the
// grid `layout` was grouped from), one Sci per (super-cluster, shift). Built by
// `threads` OpenMP threads over contiguous ranges of super-clusters; the result
// does not depend on the thread count.
void build_gpu_pair_list(const PairList& list, const SuperClusterLayout& layout, GpuPairList& out, int threads = 1);

// One atom pair of a list, in sorted CPU slots (a < b not implied), for tests and checks.
struct SlotPair {
    int i_slot, j_slot, shift;
    bool excluded;
    auto operator<=>(const SlotPair&) const = default;
};
std::vector<SlotPair> expand_pairs(const PairList& list);
std::vector<SlotPair> expand_pairs(const GpuPairList& list, const SuperClusterLayout& layout);

}  // namespace mdcore::gpu
