#include "gpu/gpu_pair_list.h"

#include <algorithm>
#include <stdexcept>

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

// One CPU list entry of a super-cluster, placed in the GPU layout.
struct Placed {
    std::int32_t cj;  // GPU j-cluster
    std::uint32_t mask, excluded;
    std::uint8_t shift, half, c;  // shift index, warp half (j-cluster half), i-cluster in the super-cluster
};
static_assert(kNumShifts <= 256, "shift indices fit a byte");

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

PairMasks full_masks() {
    PairMasks m;
    for (int w = 0; w < kMaskWords; ++w) {
        m.interact[w] = kAllBits;
        m.excluded[w] = 0;
    }
    return m;
}

// One thread's part of the GPU list: the Sci, cj4 and mask entries of a
// contiguous range of super-clusters, indexed locally (cj4 from 0, masks from 1;
// mask 0 is the shared full one), and the thread's scratch space.
struct ListPart {
    std::vector<Sci> sci;
    std::vector<Cj4> cj4;
    std::vector<PairMasks> masks;
    std::vector<Placed> placed, by_shift;   // a super-cluster's entries, then grouped by shift
    std::vector<int> seen, slot;            // per GPU j-cluster: last shift group that listed it, its slot there
    std::vector<int> unique_cj;             // the j-clusters of one shift group, ascending
    std::vector<PairMasks> half_masks;      // per (cj4 of the group, half)
    std::vector<char> touched;              // per (cj4, half): masks changed from full
    int group = 0;                          // shift groups seen, the stamp of `seen`
};

// The CPU list entries of each 8-atom grid cluster, as ranges of list.i.
struct IEntriesByCluster {
    std::vector<int> begin;  // per grid cluster + 1, into `entry`
    std::vector<int> entry;  // indices into list.i
};

IEntriesByCluster index_i_entries(const PairList& list, int num_clusters) {
    IEntriesByCluster by;
    by.begin.assign(num_clusters + 1, 0);
    for (const IEntry& ie : list.i) ++by.begin[ie.ci + 1];
    for (int c = 0; c < num_clusters; ++c) by.begin[c + 1] += by.begin[c];
    by.entry.resize(list.i.size());
    std::vector<int> fill(by.begin.begin(), by.begin.end() - 1);
    for (std::size_t e = 0; e < list.i.size(); ++e) by.entry[fill[list.i[e].ci]++] = static_cast<int>(e);
    return by;
}

// Appends super-cluster `sc`'s Sci entries (one per shift, ascending), cj4
// groups (j-clusters ascending) and masks to `part`. No sort of the entries: a
// counting pass groups them by shift, and a stamp per j-cluster gives each its
// slot among the group's distinct j-clusters.
void build_super_cluster(const PairList& list, const SuperClusterLayout& layout, const IEntriesByCluster& by,
                         int sc, ListPart& part) {
    std::vector<Placed>& placed = part.placed;
    placed.clear();
    int count[kNumShifts + 1] = {};
    for (int c = 0; c < kClustersPerSuper; ++c) {
        const int cpu = layout.cpu_cluster[sc * kClustersPerSuper + c];
        if (cpu < 0) continue;
        for (int k = by.begin[cpu]; k < by.begin[cpu + 1]; ++k) {
            const IEntry& ie = list.i[by.entry[k]];
            for (int e = ie.j_begin; e < ie.j_end; ++e) {
                const JEntry& je = list.j[e];
                placed.push_back({layout.gpu_cluster[je.cj / kSplit], je.mask, je.excluded,
                                  static_cast<std::uint8_t>(je.shift), static_cast<std::uint8_t>(je.cj % kSplit),
                                  static_cast<std::uint8_t>(c)});
                ++count[je.shift + 1];
            }
        }
    }
    for (int s = 0; s < kNumShifts; ++s) count[s + 1] += count[s];
    part.by_shift.resize(placed.size());
    {
        int fill[kNumShifts];
        std::copy(count, count + kNumShifts, fill);
        for (const Placed& p : placed) part.by_shift[fill[p.shift]++] = p;
    }
    for (int shift = 0; shift < kNumShifts; ++shift) {
        if (count[shift] == count[shift + 1]) continue;
        const Placed* first = part.by_shift.data() + count[shift];
        const Placed* last = part.by_shift.data() + count[shift + 1];
        const int stamp = ++part.group;
        part.unique_cj.clear();
        for (const Placed* p = first; p != last; ++p)
            if (part.seen[p->cj] != stamp) {
                part.seen[p->cj] = stamp;
                part.unique_cj.push_back(p->cj);
            }
        std::sort(part.unique_cj.begin(), part.unique_cj.end());
        const int ncj = static_cast<int>(part.unique_cj.size());
        const int ngroups = (ncj + kJGroupSize - 1) / kJGroupSize;
        const int cj4_begin = static_cast<int>(part.cj4.size());
        part.cj4.resize(cj4_begin + ngroups, Cj4{{0, 0, 0, 0}, {{0u, 0}, {0u, 0}}});
        part.half_masks.assign(static_cast<std::size_t>(ngroups) * kSplit, full_masks());
        part.touched.assign(static_cast<std::size_t>(ngroups) * kSplit, 0);
        for (int k = 0; k < ncj; ++k) {
            part.slot[part.unique_cj[k]] = k;
            part.cj4[cj4_begin + k / kJGroupSize].cj[k % kJGroupSize] = part.unique_cj[k];
        }
        for (const Placed* p = first; p != last; ++p) {
            if (p->mask == 0 && p->excluded == 0) continue;
            const int k = part.slot[p->cj], g = k / kJGroupSize, jm = k % kJGroupSize;
            part.cj4[cj4_begin + g].imei[p->half].imask |= 1u << (jm * kClustersPerSuper + p->c);
            // Most entries are full (all pairs, none excluded): they leave the masks as they start.
            if (p->mask != kAllBits || p->excluded != 0) {
                add_bits(part.half_masks[g * kSplit + p->half], jm, p->c, p->mask, p->excluded);
                part.touched[g * kSplit + p->half] = 1;
            }
        }
        // Masks that are no longer full get an entry of their own; full ones share entry 0.
        for (int g = 0; g < ngroups; ++g)
            for (int h = 0; h < kSplit; ++h) {
                Imei& imei = part.cj4[cj4_begin + g].imei[h];
                imei.excl_ind = 0;
                if (part.touched[g * kSplit + h]) {
                    imei.excl_ind = static_cast<int>(part.masks.size()) + 1;
                    part.masks.push_back(part.half_masks[g * kSplit + h]);
                }
            }
        part.sci.push_back(Sci{sc, shift, cj4_begin, static_cast<int>(part.cj4.size())});
    }
}

}  // namespace

void build_gpu_pair_list(const PairList& list, const SuperClusterLayout& layout, GpuPairList& out, int threads) {
    if (list.cluster_i != kClusterSize || list.cluster_j != kHalfClusterSize)
        throw std::invalid_argument("the GPU pair list is built from an 8x4 list");
    const int nsuper = layout.num_super;
    const IEntriesByCluster by = index_i_entries(list, static_cast<int>(layout.gpu_cluster.size()));
    // Contiguous super-cluster ranges of about equal CPU list entries, one per thread.
    std::vector<long> entries(nsuper + 1, 0);
    for (int sc = 0; sc < nsuper; ++sc) {
        long n = 0;
        for (int c = 0; c < kClustersPerSuper; ++c) {
            const int cpu = layout.cpu_cluster[sc * kClustersPerSuper + c];
            if (cpu < 0) continue;
            for (int k = by.begin[cpu]; k < by.begin[cpu + 1]; ++k) n += list.i[by.entry[k]].j_end - list.i[by.entry[k]].j_begin;
        }
        entries[sc + 1] = entries[sc] + n;
    }
    const int nparts = std::max(1, std::min(threads, nsuper));
    std::vector<int> first(nparts + 1, nsuper);
    first[0] = 0;
    for (int t = 1; t < nparts; ++t)
        first[t] = static_cast<int>(std::lower_bound(entries.begin(), entries.end(), entries[nsuper] * t / nparts) -
                                    entries.begin());
    for (int t = 1; t <= nparts; ++t) first[t] = std::max(first[t], first[t - 1]);
    std::vector<ListPart> parts(nparts);
#pragma omp parallel for num_threads(nparts) schedule(static, 1)
    for (int t = 0; t < nparts; ++t) {
        parts[t].seen.assign(layout.cpu_cluster.size(), 0);
        parts[t].slot.assign(layout.cpu_cluster.size(), 0);
        for (int sc = first[t]; sc < first[t + 1]; ++sc) build_super_cluster(list, layout, by, sc, parts[t]);
    }

    // Concatenate the parts in super-cluster order, moving their local indices.
    std::size_t nsci = 0, ncj4 = 0, nmasks = 1;
    for (const ListPart& p : parts) {
        nsci += p.sci.size();
        ncj4 += p.cj4.size();
        nmasks += p.masks.size();
    }
    out.sci.resize(nsci);
    out.cj4.resize(ncj4);
    out.masks.resize(nmasks);
    out.masks[0] = full_masks();
    out.rlist = list.rlist;
    std::vector<std::size_t> sci_at(nparts + 1, 0), cj4_at(nparts + 1, 0), mask_at(nparts + 1, 1);
    for (int t = 0; t < nparts; ++t) {
        sci_at[t + 1] = sci_at[t] + parts[t].sci.size();
        cj4_at[t + 1] = cj4_at[t] + parts[t].cj4.size();
        mask_at[t + 1] = mask_at[t] + parts[t].masks.size();
    }
#pragma omp parallel for num_threads(nparts) schedule(static, 1)
    for (int t = 0; t < nparts; ++t) {
        const ListPart& p = parts[t];
        const int cj4_offset = static_cast<int>(cj4_at[t]), mask_offset = static_cast<int>(mask_at[t]) - 1;
        for (std::size_t k = 0; k < p.sci.size(); ++k) {
            Sci s = p.sci[k];
            s.cj4_begin += cj4_offset;
            s.cj4_end += cj4_offset;
            out.sci[sci_at[t] + k] = s;
        }
        for (std::size_t k = 0; k < p.cj4.size(); ++k) {
            Cj4 g = p.cj4[k];
            for (Imei& h : g.imei)
                if (h.excl_ind > 0) h.excl_ind += mask_offset;
            out.cj4[cj4_at[t] + k] = g;
        }
        std::copy(p.masks.begin(), p.masks.end(), out.masks.begin() + static_cast<long>(mask_at[t]));
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
