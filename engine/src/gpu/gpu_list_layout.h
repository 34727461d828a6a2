#pragma once
// The GPU pair-list layout of GROMACS' CUDA nbnxm (Paell et al. 2020, sec. IV.A and
// Fig. 4; GROMACS' nbnxm/pairlist.h), as plain structs shared by the host list
// builder (gpu_pair_list.h) and the CUDA kernels (nbnxm_gpu.cuh):
// - clusters of 8 atoms, i and j alike;
// - super-clusters of 8 clusters (2 x 2 columns x 2 along z), one thread block each;
// - per super-cluster and shift, a list of j-cluster groups of 4 ("cj4") with a
//   32-bit interaction mask per warp half: bit jm*8 + c says i-cluster c of the
//   super-cluster interacts with j-cluster jm of the group;
// - an 8 x 8 cluster pair is computed by 64 threads, i-atom = threadIdx.x and
//   j-atom = threadIdx.y; each warp takes one half of the j-cluster (4 j-atoms),
//   so the per-atom-pair masks come in two halves of 32 words, word jq*8 + ia
//   (thread of the warp), bit jm*8 + c.
// mdcore keeps, next to GROMACS' interaction bits, the CPU list's explicit
// excluded-pair bits (GROMACS infers excluded pairs from the cluster geometry):
// both lists then carry identical pair sets, which the tests check bit for bit.
// Included by g++ and nvcc: no standard-library containers here.
#include <cstdint>

namespace mdcore::gpu {

inline constexpr int kClusterSize = 8;
inline constexpr int kClustersPerSuper = 8;            // 2 x 2 x 2
inline constexpr int kSuperSize = kClusterSize * kClustersPerSuper;  // atoms per super-cluster
inline constexpr int kJGroupSize = 4;                  // 32 mask bits / 8 i-clusters
inline constexpr int kSplit = 2;                       // j-cluster halves, one per warp
inline constexpr int kHalfClusterSize = kClusterSize / kSplit;       // 4 j-atoms per warp
inline constexpr int kMaskWords = kClusterSize * kHalfClusterSize;   // 32: one per thread of a warp
inline constexpr std::uint32_t kAllBits = 0xffffffffu;

// One super-cluster list entry: a thread block.
struct Sci {
    std::int32_t sci;        // super-cluster; its clusters are 8*sci .. 8*sci+7
    std::int32_t shift;      // shift-vector index (pair_list.h) added to j coordinates
    std::int32_t cj4_begin;  // range in the cj4 array
    std::int32_t cj4_end;
};

// Per warp half: which (j-cluster, i-cluster) pairs of the group to compute, and
// the index of its atom-pair masks in the mask array (0: every pair interacts).
struct Imei {
    std::uint32_t imask;
    std::int32_t excl_ind;
};

struct Cj4 {
    std::int32_t cj[kJGroupSize];  // j-clusters (GPU cluster index); unused slots have no imask bits
    Imei imei[kSplit];
};

// Atom-pair masks of one warp half (word jq*8 + ia, bit jm*8 + c): interact set
// -> the pair gets LJ and Coulomb; excluded set -> only the Ewald exclusion correction.
struct PairMasks {
    std::uint32_t interact[kMaskWords];
    std::uint32_t excluded[kMaskWords];
};

}  // namespace mdcore::gpu
