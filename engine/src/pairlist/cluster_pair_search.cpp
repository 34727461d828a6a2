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

// Excluded atom pairs per i-cluster, as (j-cluster, pair bits) items, found once
// per search from the atoms' exclusion lists, so the per-candidate mask is a
// short scan instead of a search through exclusion lists.
struct ExclusionIndex {
    std::vector<int> begin;  // per i-cluster, into items
    std::vector<std::pair<int, std::uint32_t>> items;
    std::uint32_t bits(int ci, int cj) const {
        std::uint32_t b = 0;
        for (int k = begin[ci]; k < begin[ci + 1]; ++k)
            if (items[k].first == cj) b |= items[k].second;
        return b;
    }
};

ExclusionIndex index_exclusions(const ClusterGrid& grid, const std::vector<std::vector<int>>& exclusions) {
    ExclusionIndex idx;
    const int n = grid.cluster_i(), m = grid.cluster_j();
    const auto& order = grid.order();
    std::vector<int> slot_of(exclusions.size(), -1);
    for (std::size_t s = 0; s < order.size(); ++s)
        if (order[s] >= 0) slot_of[order[s]] = static_cast<int>(s);
    idx.begin.assign(grid.num_i_clusters() + 1, 0);
    for (int ci = 0; ci < grid.num_i_clusters(); ++ci) {
        for (int i = 0; i < n; ++i) {
            const int a = order[ci * n + i];
            if (a < 0) continue;
            for (int b : exclusions[a]) {
                const int sb = slot_of[b];
                idx.items.push_back({sb / m, 1u << (i * m + sb % m)});
            }
        }
        idx.begin[ci + 1] = static_cast<int>(idx.items.size());
    }
    return idx;
}

struct PairMasks {
    std::uint32_t interact = 0;
    std::uint32_t excluded = 0;
};

// Interaction mask of (ci, cj): real atoms only, each atom pair once (sorted slot
// order decides when the clusters overlap); excluded pairs move to the second mask.
PairMasks pair_masks(const ClusterGrid& grid, int ci, int cj, const ExclusionIndex* excl) {
    const int n = grid.cluster_i(), m = grid.cluster_j();
    const std::uint32_t vi = grid.i_valid_bits(ci), vj = grid.j_valid_bits(cj);
    const int i0 = ci * n, j0 = cj * m;
    const bool overlap = j0 < i0 + n && i0 < j0 + m;
    const std::uint32_t full_i = (1u << n) - 1, full_j = (1u << m) - 1;
    std::uint32_t mask;
    if (!overlap && vi == full_i && vj == full_j) {
        mask = n * m == 32 ? 0xffffffffu : (1u << (n * m)) - 1;  // the common case
    } else {
        mask = 0;
        for (int i = 0; i < n; ++i) {
            if (!(vi >> i & 1u)) continue;
            for (int j = 0; j < m; ++j) {
                if (!(vj >> j & 1u)) continue;
                if (overlap && i0 + i >= j0 + j) continue;
                mask |= 1u << (i * m + j);
            }
        }
    }
    const std::uint32_t excluded = excl ? mask & excl->bits(ci, cj) : 0u;
    return {mask & ~excluded, excluded};
}

// A column near an i-column, with the periodic shift that brings it there.
struct NeighborColumn {
    int column;
    int sx, sy;
    float shx, shy;
    float cell_lo_x, cell_lo_y;  // unwrapped cell corner
};

// Searches all i-clusters of one grid column. Neighbour columns are found once per
// i-column; within each, a cursor per z-image only moves forward because the
// i-clusters of a column come in increasing z (no binary search per cluster).
void search_i_column(const ClusterGrid& grid, int ci_begin, int ci_end, double rlist,
                     const ExclusionIndex* excl, std::vector<NeighborColumn>& neighbors, std::vector<int>& cursors,
                     std::vector<IEntry>& is, std::vector<JEntry>& js) {
    const auto& bbi = grid.i_boxes();
    const auto& bbj = grid.j_boxes();
    const auto& col_begin = grid.column_j_begin();
    const Box& box = grid.box();
    const float rl = static_cast<float>(rlist);
    const float rl2 = rl * rl;
    const float lz = static_cast<float>(box.lengths[2]);
    const int n = grid.cluster_i(), m = grid.cluster_j();
    const int nsz = std::min(kShiftRange, static_cast<int>(std::ceil(rlist / box.lengths[2])));
    const int nz_images = 2 * nsz + 1;

    // Column bounds of this i-column's atoms (union of its i-cluster boxes).
    float lo[2] = {1e30f, 1e30f}, hi[2] = {-1e30f, -1e30f};
    for (int ci = ci_begin; ci < ci_end; ++ci) {
        if (is_empty(bbi[ci])) continue;
        for (int d = 0; d < 2; ++d) {
            lo[d] = std::min(lo[d], bbi[ci].lo[d]);
            hi[d] = std::max(hi[d], bbi[ci].hi[d]);
        }
    }
    if (lo[0] > hi[0]) return;
    neighbors.clear();
    const int cx_lo = static_cast<int>(std::floor((lo[0] - rlist) / grid.cell_x()));
    const int cx_hi = static_cast<int>(std::floor((hi[0] + rlist) / grid.cell_x()));
    const int cy_lo = static_cast<int>(std::floor((lo[1] - rlist) / grid.cell_y()));
    const int cy_hi = static_cast<int>(std::floor((hi[1] + rlist) / grid.cell_y()));
    for (int cx = cx_lo; cx <= cx_hi; ++cx) {
        const int sx = floor_div(cx, grid.ncx());
        const float cell_lo_x = static_cast<float>(cx * grid.cell_x());
        const float dx = gap(lo[0], hi[0], cell_lo_x, cell_lo_x + static_cast<float>(grid.cell_x()));
        for (int cy = cy_lo; cy <= cy_hi; ++cy) {
            const int sy = floor_div(cy, grid.ncy());
            const float cell_lo_y = static_cast<float>(cy * grid.cell_y());
            const float dy = gap(lo[1], hi[1], cell_lo_y, cell_lo_y + static_cast<float>(grid.cell_y()));
            if (dx * dx + dy * dy >= rl2) continue;
            const int col = (cx - sx * grid.ncx()) + grid.ncx() * (cy - sy * grid.ncy());
            if (col_begin[col] == col_begin[col + 1]) continue;
            neighbors.push_back({col, sx, sy, static_cast<float>(sx * box.lengths[0]),
                                 static_cast<float>(sy * box.lengths[1]), cell_lo_x, cell_lo_y});
        }
    }
    cursors.assign(neighbors.size() * nz_images, 0);
    for (std::size_t k = 0; k < neighbors.size(); ++k)
        for (int z = 0; z < nz_images; ++z) cursors[k * nz_images + z] = col_begin[neighbors[k].column];

    for (int ci = ci_begin; ci < ci_end; ++ci) {
        const BoundingBox& bi = bbi[ci];
        if (is_empty(bi)) continue;
        const auto j_begin = static_cast<std::int32_t>(js.size());
        for (std::size_t k = 0; k < neighbors.size(); ++k) {
            const NeighborColumn& nb = neighbors[k];
            const float cdx = gap(bi.lo[0], bi.hi[0], nb.cell_lo_x, nb.cell_lo_x + static_cast<float>(grid.cell_x()));
            const float cdy = gap(bi.lo[1], bi.hi[1], nb.cell_lo_y, nb.cell_lo_y + static_cast<float>(grid.cell_y()));
            if (cdx * cdx + cdy * cdy >= rl2) continue;
            const int je = col_begin[nb.column + 1];
            for (int iz = 0; iz < nz_images; ++iz) {
                const int sz = iz - nsz;
                const float shz = static_cast<float>(sz) * lz;
                const float zlo = bi.lo[2] - rl - shz;
                const float zhi = bi.hi[2] + rl - shz;
                if (zhi < 0.0f || zlo >= lz) continue;
                int& cur = cursors[k * nz_images + iz];
                while (cur < je && !is_empty(bbj[cur]) && bbj[cur].hi[2] < zlo) ++cur;
                for (int cj = cur; cj < je; ++cj) {
                    const BoundingBox& bj = bbj[cj];
                    if (is_empty(bj) || bj.lo[2] > zhi) break;
                    if ((cj + 1) * m <= ci * n) continue;  // the reverse entry holds this pair
                    const float ex = gap(bi.lo[0], bi.hi[0], bj.lo[0] + nb.shx, bj.hi[0] + nb.shx);
                    const float ey = gap(bi.lo[1], bi.hi[1], bj.lo[1] + nb.shy, bj.hi[1] + nb.shy);
                    const float ez = gap(bi.lo[2], bi.hi[2], bj.lo[2] + shz, bj.hi[2] + shz);
                    if (ex * ex + ey * ey + ez * ez >= rl2) continue;
                    const PairMasks pm = pair_masks(grid, ci, cj, excl);
                    if (pm.interact != 0 || pm.excluded != 0)
                        js.push_back({cj, shift_index(nb.sx, nb.sy, sz), pm.interact, pm.excluded});
                }
            }
        }
        if (static_cast<std::int32_t>(js.size()) > j_begin)
            is.push_back({ci, j_begin, static_cast<std::int32_t>(js.size())});
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
    ExclusionIndex excl_index;
    if (has_exclusions) excl_index = index_exclusions(grid, exclusions);
    const ExclusionIndex* excl = has_exclusions ? &excl_index : nullptr;

    // Each thread searches a contiguous block of columns (balanced by i-clusters)
    // into its own buffers; blocks are concatenated in order, so the list does not
    // depend on the thread count.
    work.i.resize(num_threads);
    work.j.resize(num_threads);
    auto& thread_i = work.i;
    auto& thread_j = work.j;
#pragma omp parallel num_threads(num_threads)
    {
        const int t = omp_get_thread_num();
        const int nt = omp_get_num_threads();
        auto& is = thread_i[t];
        auto& js = thread_j[t];
        is.clear();
        js.clear();
        std::vector<NeighborColumn> neighbors;
        std::vector<int> cursors;
        const auto& col_j = grid.column_j_begin();
        const int ncol = static_cast<int>(col_j.size()) - 1;
        const int ratio_m = grid.cluster_j(), ratio_n = grid.cluster_i();
        // Column c holds i-clusters [col_j[c]*M/N, col_j[c+1]*M/N); split by i-clusters.
        auto first_column_at = [&](long ci_target) {
            return static_cast<int>(std::lower_bound(col_j.begin(), col_j.end() - 1, ci_target,
                                                     [&](int jb, long target) { return static_cast<long>(jb) * ratio_m / ratio_n < target; }) -
                                    col_j.begin());
        };
        const int col_begin = first_column_at(static_cast<long>(nci) * t / nt);
        const int col_end = t + 1 == nt ? ncol : first_column_at(static_cast<long>(nci) * (t + 1) / nt);
        for (int c = col_begin; c < col_end; ++c)
            search_i_column(grid, col_j[c] * ratio_m / ratio_n, col_j[c + 1] * ratio_m / ratio_n, rlist,
                            excl, neighbors, cursors, is, js);
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
