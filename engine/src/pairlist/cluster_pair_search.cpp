#include "pairlist/cluster_pair_search.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace mdcore {
namespace {

int floor_div(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

float gap(float lo_a, float hi_a, float lo_b, float hi_b) {
    return std::max({0.0f, lo_b - hi_a, lo_a - hi_b});
}

bool is_empty(const BoundingBox& bb) { return bb.lo[0] > bb.hi[0]; }

struct PairMasks {
    std::uint32_t interact = 0;
    std::uint32_t excluded = 0;
};

// Interaction mask of (ci, cj): real atoms only, each atom pair once (sorted slot
// order decides when the clusters overlap); excluded pairs move to the second mask.
PairMasks pair_masks(const ClusterGrid& grid, int ci, int cj,
                     const std::vector<std::vector<int>>& exclusions, bool has_exclusions) {
    const int n = grid.cluster_i(), m = grid.cluster_j();
    const std::uint32_t vi = grid.i_valid_bits(ci), vj = grid.j_valid_bits(cj);
    const int i0 = ci * n, j0 = cj * m;
    const bool overlap = j0 < i0 + n && i0 < j0 + m;
    const std::uint32_t full_i = (1u << n) - 1, full_j = (1u << m) - 1;
    // Common case: two full, disjoint clusters without exclusions.
    if (!overlap && !has_exclusions && vi == full_i && vj == full_j)
        return {n * m == 32 ? 0xffffffffu : (1u << (n * m)) - 1, 0u};
    std::uint32_t mask = 0;
    for (int i = 0; i < n; ++i) {
        if (!(vi >> i & 1u)) continue;
        for (int j = 0; j < m; ++j) {
            if (!(vj >> j & 1u)) continue;
            if (overlap && i0 + i >= j0 + j) continue;
            mask |= 1u << (i * m + j);
        }
    }
    std::uint32_t excluded = 0;
    if (has_exclusions && mask != 0) {
        const auto& order = grid.order();
        for (int i = 0; i < n; ++i) {
            const int a = order[i0 + i];
            if (a < 0 || exclusions[a].empty()) continue;
            for (int j = 0; j < m; ++j) {
                const int b = order[j0 + j];
                const std::uint32_t bit = 1u << (i * m + j);
                if ((mask & bit) && b >= 0 && std::binary_search(exclusions[a].begin(), exclusions[a].end(), b)) {
                    mask &= ~bit;
                    excluded |= bit;
                }
            }
        }
    }
    return {mask, excluded};
}

void search_one_i_cluster(const ClusterGrid& grid, int ci, double rlist,
                          const std::vector<std::vector<int>>& exclusions, bool has_exclusions,
                          std::vector<JEntry>& out) {
    const BoundingBox& bi = grid.i_boxes()[ci];
    if (is_empty(bi)) return;
    const auto& bbj = grid.j_boxes();
    const auto& col_begin = grid.column_j_begin();
    const Box& box = grid.box();
    const float rl = static_cast<float>(rlist);
    const float rl2 = rl * rl;
    const int n = grid.cluster_i(), m = grid.cluster_j();
    const int nsz = std::min(kShiftRange, static_cast<int>(std::ceil(rlist / box.lengths[2])));

    const int cx_lo = static_cast<int>(std::floor((bi.lo[0] - rlist) / grid.cell_x()));
    const int cx_hi = static_cast<int>(std::floor((bi.hi[0] + rlist) / grid.cell_x()));
    const int cy_lo = static_cast<int>(std::floor((bi.lo[1] - rlist) / grid.cell_y()));
    const int cy_hi = static_cast<int>(std::floor((bi.hi[1] + rlist) / grid.cell_y()));
    for (int cx = cx_lo; cx <= cx_hi; ++cx) {
        const int sx = floor_div(cx, grid.ncx());
        const int colx = cx - sx * grid.ncx();
        const float cell_lo_x = static_cast<float>(cx * grid.cell_x());
        const float dx = gap(bi.lo[0], bi.hi[0], cell_lo_x, cell_lo_x + static_cast<float>(grid.cell_x()));
        if (dx * dx >= rl2) continue;
        for (int cy = cy_lo; cy <= cy_hi; ++cy) {
            const int sy = floor_div(cy, grid.ncy());
            const int coly = cy - sy * grid.ncy();
            const float cell_lo_y = static_cast<float>(cy * grid.cell_y());
            const float dy = gap(bi.lo[1], bi.hi[1], cell_lo_y, cell_lo_y + static_cast<float>(grid.cell_y()));
            if (dx * dx + dy * dy >= rl2) continue;
            const int col = colx + grid.ncx() * coly;
            const int jb = col_begin[col], je = col_begin[col + 1];
            const float shx = static_cast<float>(sx * box.lengths[0]);
            const float shy = static_cast<float>(sy * box.lengths[1]);
            for (int sz = -nsz; sz <= nsz; ++sz) {
                const float shz = static_cast<float>(sz * box.lengths[2]);
                const float zlo = bi.lo[2] - rl - shz;
                const float zhi = bi.hi[2] + rl - shz;
                if (zhi < 0.0f || zlo >= static_cast<float>(box.lengths[2])) continue;
                // Clusters of a column are z-ordered (empty ones last): binary search.
                int first = static_cast<int>(
                    std::partition_point(bbj.begin() + jb, bbj.begin() + je,
                                         [&](const BoundingBox& b) { return !is_empty(b) && b.hi[2] < zlo; }) -
                    bbj.begin());
                for (int cj = first; cj < je; ++cj) {
                    const BoundingBox& bj = bbj[cj];
                    if (is_empty(bj) || bj.lo[2] > zhi) break;
                    if ((cj + 1) * m <= ci * n) continue;  // the reverse entry holds this pair
                    const float ex = gap(bi.lo[0], bi.hi[0], bj.lo[0] + shx, bj.hi[0] + shx);
                    const float ey = gap(bi.lo[1], bi.hi[1], bj.lo[1] + shy, bj.hi[1] + shy);
                    const float ez = gap(bi.lo[2], bi.hi[2], bj.lo[2] + shz, bj.hi[2] + shz);
                    if (ex * ex + ey * ey + ez * ez >= rl2) continue;
                    const PairMasks pm = pair_masks(grid, ci, cj, exclusions, has_exclusions);
                    if (pm.interact != 0 || pm.excluded != 0)
                        out.push_back({cj, shift_index(sx, sy, sz), pm.interact, pm.excluded});
                }
            }
        }
    }
}

}  // namespace

void fill_shift_table(const Box& box, float (*shift)[3]) {
    for (int sz = -kShiftRange; sz <= kShiftRange; ++sz)
        for (int sy = -kShiftRange; sy <= kShiftRange; ++sy)
            for (int sx = -kShiftRange; sx <= kShiftRange; ++sx) {
                float* s = shift[shift_index(sx, sy, sz)];
                s[0] = static_cast<float>(sx * box.lengths[0]);
                s[1] = static_cast<float>(sy * box.lengths[1]);
                s[2] = static_cast<float>(sz * box.lengths[2]);
            }
}

void search_cluster_pairs(const ClusterGrid& grid, double rlist,
                          const std::vector<std::vector<int>>& exclusions, int num_threads,
                          PairSearchWork& work, PairList& list) {
    for (int d = 0; d < 3; ++d)
        if (rlist >= kShiftRange * grid.box().lengths[d])
            throw std::invalid_argument("rlist " + std::to_string(rlist) +
                                        " nm is too long for the box (must be below twice the box edge)");
    list.cluster_i = grid.cluster_i();
    list.cluster_j = grid.cluster_j();
    list.rlist = rlist;
    const int nci = grid.num_i_clusters();
    bool has_exclusions = false;
    for (const auto& e : exclusions) has_exclusions = has_exclusions || !e.empty();

    // Each thread searches a contiguous block of i-clusters into its own buffers;
    // the blocks are concatenated in order, so the list does not depend on threads.
    work.i.resize(num_threads);
    work.j.resize(num_threads);
    auto& thread_i = work.i;
    auto& thread_j = work.j;
#pragma omp parallel num_threads(num_threads)
    {
        const int t = omp_get_thread_num();
        const int nt = omp_get_num_threads();
        const int begin = static_cast<int>(static_cast<long>(nci) * t / nt);
        const int end = static_cast<int>(static_cast<long>(nci) * (t + 1) / nt);
        auto& is = thread_i[t];
        auto& js = thread_j[t];
        is.clear();
        js.clear();
        for (int ci = begin; ci < end; ++ci) {
            const auto j_begin = static_cast<std::int32_t>(js.size());
            search_one_i_cluster(grid, ci, rlist, exclusions, has_exclusions, js);
            if (static_cast<std::int32_t>(js.size()) > j_begin)
                is.push_back({ci, j_begin, static_cast<std::int32_t>(js.size())});
        }
    }
    list.i.clear();
    list.j.clear();
    // Grow with headroom: lists grow slowly while a lattice start disorders.
    std::size_t total = 0;
    for (const auto& js : thread_j) total += js.size();
    if (list.j.capacity() < total) list.j.reserve(total + total / 4);
    for (int t = 0; t < num_threads; ++t) {
        const auto offset = static_cast<std::int32_t>(list.j.size());
        for (IEntry e : thread_i[t]) list.i.push_back({e.ci, e.j_begin + offset, e.j_end + offset});
        list.j.insert(list.j.end(), thread_j[t].begin(), thread_j[t].end());
    }
}

void prune_pair_list(const PairList& outer, PruneKernelFn kernel, const SortedCoordinates& coords,
                     double rlist_inner, int num_threads, PairSearchWork& work, PairList& inner) {
    inner.cluster_i = outer.cluster_i;
    inner.cluster_j = outer.cluster_j;
    inner.rlist = rlist_inner;
    auto& keep = work.keep;
    keep.resize(outer.j.size());
    const PruneInput in{coords, &outer, static_cast<float>(rlist_inner * rlist_inner)};
    const int ni = static_cast<int>(outer.i.size());
    constexpr int kChunk = 64;
#pragma omp parallel for num_threads(num_threads) schedule(dynamic, 1)
    for (int b = 0; b < ni; b += kChunk) kernel(in, b, std::min(ni, b + kChunk), keep.data());
    // Compact serially in list order: the result does not depend on threads.
    inner.i.clear();
    inner.j.clear();
    for (const IEntry& ei : outer.i) {
        const auto j_begin = static_cast<std::int32_t>(inner.j.size());
        for (int e = ei.j_begin; e < ei.j_end; ++e)
            if (keep[e]) inner.j.push_back(outer.j[e]);
        if (static_cast<std::int32_t>(inner.j.size()) > j_begin)
            inner.i.push_back({ei.ci, j_begin, static_cast<std::int32_t>(inner.j.size())});
    }
}

}  // namespace mdcore
