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

// Resizes a list that is about to be overwritten: the kept prefix is not cleared
// (only grown elements are initialised), and growth leaves headroom because lists
// grow slowly while a lattice start disorders.
template <class T>
void resize_for_overwrite(std::vector<T>& v, std::size_t n) {
    if (v.capacity() < n) {
        v.clear();
        v.reserve(n + n / 4);
    }
    v.resize(n);
}

// Excluded atom pairs of the i-clusters [ci_begin, ci_end) of a column, merged
// per j-cluster: items [begin[k], begin[k+1]) belong to ci_begin + k. Found by the
// thread that searches the column (no serial index), all before the search, so the
// cache misses on the atoms' exclusion lists overlap; a candidate's mask then
// scans a few items.
void gather_exclusions(const ClusterGrid& grid, int ci_begin, int ci_end,
                       const std::vector<std::vector<int>>& exclusions, std::vector<ClusterExclusion>& out,
                       std::vector<int>& begin) {
    const int n = grid.cluster_i(), m = grid.cluster_j();
    const auto& order = grid.order();
    const auto& slot_of = grid.slot_of();
    out.clear();
    begin.assign(1, 0);
    for (int ci = ci_begin; ci < ci_end; ++ci) {
        const auto first = static_cast<long>(out.size());
        for (int i = 0; i < n; ++i) {
            const int a = order[ci * n + i];
            if (a < 0) continue;
            for (int b : exclusions[a]) {
                const int sb = slot_of[b];
                const int cj = sb / m;
                const std::uint32_t bit = 1u << (i * m + sb % m);
                auto item = std::find_if(out.begin() + first, out.end(),
                                         [cj](const ClusterExclusion& e) { return e.cj == cj; });
                if (item == out.end())
                    out.push_back({cj, bit});
                else
                    item->bits |= bit;
            }
        }
        begin.push_back(static_cast<int>(out.size()));
    }
}

// What the masks of one i-cluster's candidates need, hoisted out of the
// candidate loop.
struct IClusterMasks {
    const ClusterGrid* grid;
    int ci;
    int overlap_lo, overlap_hi;  // j-clusters sharing slots with ci
    bool i_full;                 // ci holds no padding
    std::uint32_t full_j, full_mask;
    const std::uint32_t* j_valid;
    int excl_lo, excl_hi;  // j-cluster range of ci's exclusions (empty: lo > hi)
    const ClusterExclusion *excl_first, *excl_last;
};

IClusterMasks i_cluster_masks(const ClusterGrid& grid, int ci, const ClusterExclusion* excl_first,
                              const ClusterExclusion* excl_last) {
    const int n = grid.cluster_i(), m = grid.cluster_j();
    IClusterMasks c{};
    c.grid = &grid;
    c.ci = ci;
    // (cj, ci) overlap when cj*M < ci*N + N and ci*N < cj*M + M.
    c.overlap_lo = floor_div(ci * n - m, m) + 1;
    c.overlap_hi = (ci * n + n - 1) / m;
    c.i_full = grid.i_valid_bits(ci) == (1u << n) - 1;
    c.full_j = (1u << m) - 1;
    c.full_mask = n * m == 32 ? 0xffffffffu : (1u << (n * m)) - 1;
    c.j_valid = grid.j_valid_data();
    c.excl_lo = 1;
    c.excl_hi = 0;
    for (const ClusterExclusion* e = excl_first; e != excl_last; ++e) {
        c.excl_lo = c.excl_hi < c.excl_lo ? e->cj : std::min(c.excl_lo, e->cj);
        c.excl_hi = std::max(c.excl_hi, e->cj);
    }
    c.excl_first = excl_first;
    c.excl_last = excl_last;
    return c;
}

// Interaction mask of (ci, cj) where padding or shared slots are involved: real
// atoms only, each atom pair once (sorted slot order decides when they overlap).
[[gnu::noinline]] std::uint32_t partial_mask(const ClusterGrid& grid, int ci, int cj) {
    const int n = grid.cluster_i(), m = grid.cluster_j();
    const std::uint32_t vi = grid.i_valid_bits(ci), vj = grid.j_valid_bits(cj);
    const int i0 = ci * n, j0 = cj * m;
    const bool overlap = j0 < i0 + n && i0 < j0 + m;
    std::uint32_t mask = 0;
    for (int i = 0; i < n; ++i) {
        if (!(vi >> i & 1u)) continue;
        // Overlapping: only j slots after slot i0 + i, i.e. j >= first.
        const int first = overlap ? std::max(0, i0 + i - j0 + 1) : 0;
        if (first >= m) continue;
        mask |= (vj >> first << first) << (i * m);
    }
    return mask;
}

// The pair of (ci, cj) as a list entry; excluded pairs move from the interaction
// mask to the second mask. Both masks empty: nothing to list.
JEntry j_entry(const IClusterMasks& c, int cj, std::int32_t shift) {
    const bool plain = c.i_full && c.j_valid[cj] == c.full_j && (cj < c.overlap_lo || cj > c.overlap_hi);
    const std::uint32_t mask = plain ? c.full_mask : partial_mask(*c.grid, c.ci, cj);
    std::uint32_t excluded = 0;
    if (cj >= c.excl_lo && cj <= c.excl_hi)
        for (const ClusterExclusion* e = c.excl_first; e != c.excl_last; ++e)
            if (e->cj == cj) excluded = mask & e->bits;
    return {cj, shift, mask & ~excluded, excluded};
}

// Searches all i-clusters of one grid column. Neighbour columns are found once per
// i-column; within each, a cursor per z-image only moves forward because the
// i-clusters of a column come in increasing z (no binary search per cluster).
void search_i_column(const ClusterGrid& grid, int ci_begin, int ci_end, double rlist,
                     const std::vector<std::vector<int>>* exclusions, PairSearchThread& w) {
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
    auto& neighbors = w.neighbors;
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
            // Half list: a column whose j-clusters all precede the first i-cluster
            // only holds pairs of reverse entries.
            if (col_begin[col + 1] * m <= ci_begin * n) continue;
            neighbors.push_back({col, sx, sy, static_cast<float>(sx * box.lengths[0]),
                                 static_cast<float>(sy * box.lengths[1]), cell_lo_x, cell_lo_y});
        }
    }
    auto& cursors = w.cursors;
    cursors.resize(neighbors.size() * nz_images);
    for (std::size_t k = 0; k < neighbors.size(); ++k)
        std::fill_n(cursors.begin() + static_cast<long>(k * nz_images), nz_images, col_begin[neighbors[k].column]);

    if (exclusions)
        gather_exclusions(grid, ci_begin, ci_end, *exclusions, w.exclusions, w.exclusion_begin);
    else
        w.exclusion_begin.assign(ci_end - ci_begin + 1, 0);
    // w.j is storage, w.count_j entries are used: a candidate is written, and kept
    // by advancing the count, without a branch.
    auto& js = w.j;
    std::size_t nj = w.count_j;
    for (int ci = ci_begin; ci < ci_end; ++ci) {
        const BoundingBox& bi = bbi[ci];
        if (is_empty(bi)) continue;
        const ClusterExclusion* excl = w.exclusions.data();
        const IClusterMasks masks = i_cluster_masks(grid, ci, excl + w.exclusion_begin[ci - ci_begin],
                                                    excl + w.exclusion_begin[ci - ci_begin + 1]);
        const int cj_min = ci * n / m;  // below it, (cj + 1) * M <= ci * N: the reverse entry holds the pair
        const auto j_begin = static_cast<std::int32_t>(nj);
        for (std::size_t k = 0; k < neighbors.size(); ++k) {
            const NeighborColumn& nb = neighbors[k];
            const float cdx = gap(bi.lo[0], bi.hi[0], nb.cell_lo_x, nb.cell_lo_x + static_cast<float>(grid.cell_x()));
            const float cdy = gap(bi.lo[1], bi.hi[1], nb.cell_lo_y, nb.cell_lo_y + static_cast<float>(grid.cell_y()));
            if (cdx * cdx + cdy * cdy >= rl2) continue;
            const int je = col_begin[nb.column + 1];
            if (je <= cj_min) continue;
            for (int iz = 0; iz < nz_images; ++iz) {
                const int sz = iz - nsz;
                const float shz = static_cast<float>(sz) * lz;
                const float zlo = bi.lo[2] - rl - shz;
                const float zhi = bi.hi[2] + rl - shz;
                if (zhi < 0.0f || zlo >= lz) continue;
                int& cur = cursors[k * nz_images + iz];
                while (cur < je && !is_empty(bbj[cur]) && bbj[cur].hi[2] < zlo) ++cur;
                // j-cluster boxes of a column only grow in z (empty ones last, their
                // lo is +inf), so the candidates are a range, and skipping to cj_min
                // skips none of it.
                const int first = std::max(cur, cj_min);
                int last = first;
                while (last < je && bbj[last].lo[2] <= zhi) ++last;
                if (js.size() < nj + (last - first)) js.resize(std::max(2 * js.size(), nj + (last - first)));
                const std::int32_t shift = shift_index(nb.sx, nb.sy, sz);
                for (int cj = first; cj < last; ++cj) {
                    const BoundingBox& bj = bbj[cj];
                    const float ex = gap(bi.lo[0], bi.hi[0], bj.lo[0] + nb.shx, bj.hi[0] + nb.shx);
                    const float ey = gap(bi.lo[1], bi.hi[1], bj.lo[1] + nb.shy, bj.hi[1] + nb.shy);
                    const float ez = gap(bi.lo[2], bi.hi[2], bj.lo[2] + shz, bj.hi[2] + shz);
                    const JEntry e = j_entry(masks, cj, shift);
                    js[nj] = e;
                    nj += static_cast<std::size_t>((ex * ex + ey * ey + ez * ez < rl2) & ((e.mask | e.excluded) != 0));
                }
            }
        }
        if (static_cast<std::int32_t>(nj) > j_begin) w.i.push_back({ci, j_begin, static_cast<std::int32_t>(nj)});
    }
    w.count_j = nj;
}

// Where each of the first nt threads' parts starts in the merged list (prefix
// sums of count_i and count_j), and the list sized for them.
void place_thread_parts(int nt, PairSearchWork& work, PairList& list) {
    work.i_offset.assign(nt + 1, 0);
    work.j_offset.assign(nt + 1, 0);
    for (int t = 0; t < nt; ++t) {
        work.i_offset[t + 1] = work.i_offset[t] + work.threads[t].count_i;
        work.j_offset[t + 1] = work.j_offset[t] + work.threads[t].count_j;
    }
    resize_for_overwrite(list.i, work.i_offset[nt]);
    resize_for_overwrite(list.j, work.j_offset[nt]);
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
    const bool has_exclusions =
        std::any_of(exclusions.begin(), exclusions.end(), [](const std::vector<int>& e) { return !e.empty(); });
    const std::vector<std::vector<int>>* excl = has_exclusions ? &exclusions : nullptr;

    // Each thread searches a contiguous block of columns (balanced by i-clusters)
    // into its own buffers; the blocks are then copied into the list in order (in
    // parallel), so the list does not depend on the thread count.
    if (static_cast<int>(work.threads.size()) < num_threads) work.threads.resize(num_threads);
#pragma omp parallel num_threads(num_threads)
    {
        const int t = omp_get_thread_num();
        const int nt = omp_get_num_threads();
        PairSearchThread& w = work.threads[t];
        w.i.clear();
        w.count_j = 0;
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
            search_i_column(grid, col_j[c] * ratio_m / ratio_n, col_j[c + 1] * ratio_m / ratio_n, rlist, excl, w);
        w.count_i = w.i.size();
#pragma omp barrier
#pragma omp single
        place_thread_parts(nt, work, list);
        const auto j_shift = static_cast<std::int32_t>(work.j_offset[t]);
        auto out_i = list.i.begin() + static_cast<long>(work.i_offset[t]);
        for (const IEntry& e : w.i) *out_i++ = {e.ci, e.j_begin + j_shift, e.j_end + j_shift};
        std::copy_n(w.j.begin(), w.count_j, list.j.begin() + static_cast<long>(work.j_offset[t]));
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
    // Compacted in order, each thread a contiguous block of i-entries (balanced by
    // j-entries) at offsets from a prefix sum: the result does not depend on threads.
    if (static_cast<int>(work.threads.size()) < num_threads) work.threads.resize(num_threads);
#pragma omp parallel num_threads(num_threads)
    {
#pragma omp for schedule(dynamic, 1)
        for (int b = 0; b < ni; b += kChunk) kernel(in, b, std::min(ni, b + kChunk), keep.data());
        const int t = omp_get_thread_num();
        const int nt = omp_get_num_threads();
        auto first_i_at = [&](std::size_t j_target) {
            return static_cast<int>(std::lower_bound(outer.i.begin(), outer.i.end(), j_target,
                                                     [](const IEntry& e, std::size_t target) {
                                                         return static_cast<std::size_t>(e.j_begin) < target;
                                                     }) -
                                    outer.i.begin());
        };
        const int i_begin = first_i_at(outer.j.size() * t / nt);
        const int i_end = t + 1 == nt ? ni : first_i_at(outer.j.size() * (t + 1) / nt);
        // Kept counts first (the flags are complete after the loop's barrier).
        const int e_begin = i_begin < i_end ? outer.i[i_begin].j_begin : 0;
        const int e_end = i_begin < i_end ? outer.i[i_end - 1].j_end : 0;
        std::size_t kept_i = 0, kept_j = 0;
        for (int e = e_begin; e < e_end; ++e) kept_j += keep[e];
        for (int i = i_begin; i < i_end; ++i)
            kept_i += std::any_of(keep.begin() + outer.i[i].j_begin, keep.begin() + outer.i[i].j_end,
                                  [](unsigned char k) { return k != 0; });
        work.threads[t].count_i = kept_i;
        work.threads[t].count_j = kept_j;
#pragma omp barrier
#pragma omp single
        place_thread_parts(nt, work, inner);
        auto out_i = inner.i.begin() + static_cast<long>(work.i_offset[t]);
        auto out_j = static_cast<std::int32_t>(work.j_offset[t]);
        // Each entry is written and kept by advancing, without a branch; a write
        // past this thread's part would land in the next one, so stop when full.
        const auto j_full = static_cast<std::int32_t>(work.j_offset[t + 1]);
        for (int i = i_begin; i < i_end && out_j < j_full; ++i) {
            const IEntry& ei = outer.i[i];
            const std::int32_t j_begin = out_j;
            for (int e = ei.j_begin; e < ei.j_end && out_j < j_full; ++e) {
                inner.j[out_j] = outer.j[e];
                out_j += keep[e];
            }
            if (out_j > j_begin) *out_i++ = {ei.ci, j_begin, out_j};
        }
    }
}

}  // namespace mdcore
