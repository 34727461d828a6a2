#include "gpu/gpu_pair_list.h"

#include <algorithm>
#include <stdexcept>
#include <tuple>

namespace mdcore::gpu {

SuperClusterLayout group_super_clusters(const ClusterGrid& grid) {
    if (grid.cluster_i() != kClusterSize || grid.cluster_j() != kHalfClusterSize)
        throw std::invalid_argument("the GPU pair list needs the 8x4 cluster grid");
    SuperClusterLayout layout;
    const int ncx = grid.ncx(), ncy = grid.ncy();
    const auto& col_j = grid.column_j_begin();
    // i-cluster range of a column (j-clusters are half the i-cluster size).
    auto first = [&](int c) { return col_j[c] / kSplit; };
    auto count = [&](int c) { return (col_j[c + 1] - col_j[c]) / kSplit; };
    layout.gpu_cluster.assign(grid.num_i_clusters(), -1);
    for (int by = 0; by < (ncy + 1) / 2; ++by)
        for (int bx = 0; bx < (ncx + 1) / 2; ++bx) {
            int depth = 0;  // clusters of the fullest column of the 2 x 2 block
            for (int y = 2 * by; y < std::min(ncy, 2 * by + 2); ++y)
                for (int x = 2 * bx; x < std::min(ncx, 2 * bx + 2); ++x) depth = std::max(depth, count(x + ncx * y));
            for (int k = 0; 2 * k < depth; ++k) {
                // Slot (z, y, x) of the super-cluster: cluster 2k + z of column (x, y).
                for (int z = 0; z < 2; ++z)
                    for (int y = 0; y < 2; ++y)
                        for (int x = 0; x < 2; ++x) {
                            const int cx = 2 * bx + x, cy = 2 * by + y, level = 2 * k + z;
                            int cpu = -1;
                            if (cx < ncx && cy < ncy && level < count(cx + ncx * cy)) cpu = first(cx + ncx * cy) + level;
                            if (cpu >= 0) layout.gpu_cluster[cpu] = static_cast<int>(layout.cpu_cluster.size());
                            layout.cpu_cluster.push_back(cpu);
                        }
                ++layout.num_super;
            }
        }
    return layout;
}

namespace {

// One CPU list entry, placed in the GPU layout.
struct Placed {
    int sci, shift, cj, half, c;  // super-cluster, shift, GPU j-cluster, warp half, i-cluster in the super-cluster
    std::uint32_t mask, excluded;
    auto key() const { return std::tie(sci, shift, cj); }
};

// Adds a CPU 8x4 entry's pair bits (bit ia*4 + jq) to a half's masks at (jm, c).
void add_bits(PairMasks& m, int jm, int c, std::uint32_t mask, std::uint32_t excluded) {
    const std::uint32_t bit = 1u << (jm * kClustersPerSuper + c);
    for (int ia = 0; ia < kClusterSize; ++ia)
        for (int jq = 0; jq < kHalfClusterSize; ++jq) {
            const int p = ia * kHalfClusterSize + jq;
            const int word = jq * kClusterSize + ia;
            if (!((mask >> p) & 1u)) m.interact[word] &= ~bit;
            if ((excluded >> p) & 1u) m.excluded[word] |= bit;
        }
}

bool is_full(const PairMasks& m) {
    for (int w = 0; w < kMaskWords; ++w)
        if (m.interact[w] != kAllBits || m.excluded[w] != 0) return false;
    return true;
}

PairMasks full_masks() {
    PairMasks m;
    for (int w = 0; w < kMaskWords; ++w) {
        m.interact[w] = kAllBits;
        m.excluded[w] = 0;
    }
    return m;
}

}  // namespace

void build_gpu_pair_list(const PairList& list, const SuperClusterLayout& layout, GpuPairList& out) {
    if (list.cluster_i != kClusterSize || list.cluster_j != kHalfClusterSize)
        throw std::invalid_argument("the GPU pair list is built from an 8x4 list");
    std::vector<Placed> placed;
    placed.reserve(list.j.size());
    for (const IEntry& ie : list.i) {
        const int gi = layout.gpu_cluster[ie.ci];
        for (int e = ie.j_begin; e < ie.j_end; ++e) {
            const JEntry& je = list.j[e];
            placed.push_back({gi / kClustersPerSuper, je.shift, layout.gpu_cluster[je.cj / kSplit], je.cj % kSplit,
                              gi % kClustersPerSuper, je.mask, je.excluded});
        }
    }
    std::sort(placed.begin(), placed.end(), [](const Placed& a, const Placed& b) { return a.key() < b.key(); });
    out.sci.clear();
    out.cj4.clear();
    out.masks.assign(1, full_masks());
    out.rlist = list.rlist;
    PairMasks half_masks[kSplit];
    // Appends the masks of the cj4 just completed (full ones share entry 0).
    auto close_cj4 = [&] {
        Cj4& g = out.cj4.back();
        for (int h = 0; h < kSplit; ++h) {
            g.imei[h].excl_ind = 0;
            if (g.imei[h].imask != 0 && !is_full(half_masks[h])) {
                g.imei[h].excl_ind = static_cast<int>(out.masks.size());
                out.masks.push_back(half_masks[h]);
            }
        }
    };
    for (std::size_t k = 0; k < placed.size();) {
        const Placed& head = placed[k];
        Sci s{head.sci, head.shift, static_cast<int>(out.cj4.size()), 0};
        int jm = kJGroupSize;  // slot of the current j-cluster in its group
        int current_cj = -1;
        for (; k < placed.size() && placed[k].sci == head.sci && placed[k].shift == head.shift; ++k) {
            const Placed& p = placed[k];
            if (p.cj != current_cj) {
                current_cj = p.cj;
                if (++jm >= kJGroupSize) {
                    if (s.cj4_begin < static_cast<int>(out.cj4.size())) close_cj4();
                    out.cj4.push_back(Cj4{{0, 0, 0, 0}, {{0u, 0}, {0u, 0}}});
                    half_masks[0] = half_masks[1] = full_masks();
                    jm = 0;
                }
                out.cj4.back().cj[jm] = p.cj;
            }
            if (p.mask == 0 && p.excluded == 0) continue;
            out.cj4.back().imei[p.half].imask |= 1u << (jm * kClustersPerSuper + p.c);
            add_bits(half_masks[p.half], jm, p.c, p.mask, p.excluded);
        }
        close_cj4();
        s.cj4_end = static_cast<int>(out.cj4.size());
        out.sci.push_back(s);
    }
}

std::vector<SlotPair> expand_pairs(const PairList& list) {
    std::vector<SlotPair> pairs;
    const int n = list.cluster_i, m = list.cluster_j;
    for (const IEntry& ie : list.i)
        for (int e = ie.j_begin; e < ie.j_end; ++e) {
            const JEntry& je = list.j[e];
            for (int p = 0; p < n * m; ++p) {
                const bool on = (je.mask >> p) & 1u, excl = (je.excluded >> p) & 1u;
                if (on || excl) pairs.push_back({ie.ci * n + p / m, je.cj * m + p % m, je.shift, excl});
            }
        }
    std::sort(pairs.begin(), pairs.end());
    return pairs;
}

std::vector<SlotPair> expand_pairs(const GpuPairList& list, const SuperClusterLayout& layout) {
    std::vector<SlotPair> pairs;
    for (const Sci& s : list.sci)
        for (int g = s.cj4_begin; g < s.cj4_end; ++g) {
            const Cj4& group = list.cj4[g];
            for (int h = 0; h < kSplit; ++h) {
                const PairMasks& m = list.masks[group.imei[h].excl_ind];
                for (int jm = 0; jm < kJGroupSize; ++jm)
                    for (int c = 0; c < kClustersPerSuper; ++c) {
                        const int bit = jm * kClustersPerSuper + c;
                        if (!((group.imei[h].imask >> bit) & 1u)) continue;
                        for (int word = 0; word < kMaskWords; ++word) {
                            const bool on = (m.interact[word] >> bit) & 1u, excl = (m.excluded[word] >> bit) & 1u;
                            if (!on && !excl) continue;
                            const int ia = word % kClusterSize, jq = word / kClusterSize;
                            const int i_gpu = (s.sci * kClustersPerSuper + c) * kClusterSize + ia;
                            const int j_gpu = group.cj[jm] * kClusterSize + h * kHalfClusterSize + jq;
                            pairs.push_back({layout.cpu_slot(i_gpu), layout.cpu_slot(j_gpu), s.shift, excl});
                        }
                    }
            }
        }
    std::sort(pairs.begin(), pairs.end());
    return pairs;
}

}  // namespace mdcore::gpu
