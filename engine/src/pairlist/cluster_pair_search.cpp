#include "pairlist/cluster_pair_search.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <numeric>
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

// The excluded partners' slots of every atom, CSR in input order (exclusion_offset
// has natoms + 1 entries, exclusion_slot the slots). Streams through the atoms'
// lists once, in parallel (call inside a parallel region), so the search's random
// accesses hit two compact arrays instead of one heap block per atom.
void index_exclusion_slots(const ClusterGrid& grid, const std::vector<std::vector<int>>& exclusions,
                           PairSearchWork& work) {
    const auto& slot_of = grid.slot_of();
    const auto natoms = static_cast<long>(slot_of.size());
    const auto nlists = static_cast<long>(exclusions.size());
    auto& offset = work.exclusion_offset;
#pragma omp for schedule(static)
    for (long a = 0; a < natoms; ++a) offset[a + 1] = a < nlists ? static_cast<int>(exclusions[a].size()) : 0;
#pragma omp single
    {
        offset[0] = 0;
        std::partial_sum(offset.begin(), offset.end(), offset.begin());
        work.exclusion_slot.resize(offset[natoms]);
    }
#pragma omp for schedule(static)
    for (long a = 0; a < std::min(natoms, nlists); ++a)
        std::transform(exclusions[a].begin(), exclusions[a].end(), work.exclusion_slot.begin() + offset[a],
                       [&](int b) { return slot_of[b]; });
}

// Excluded atom pairs of the i-clusters [ci_begin, ci_end) of a column, merged
// per j-cluster: items [begin[k], begin[k+1]) belong to ci_begin + k. Found by the
// thread that searches the column (no serial index), all before the search, so the
// cache misses overlap; a candidate's mask then scans a few items.
void gather_exclusions(const ClusterGrid& grid, int ci_begin, int ci_end, const PairSearchWork& work,
                       std::vector<ClusterExclusion>& out, std::vector<int>& begin) {
    const int n = grid.cluster_i(), m = grid.cluster_j();
    const auto& order = grid.order();
    const int* offset = work.exclusion_offset.data();
    const int* slot = work.exclusion_slot.data();
    out.clear();
    begin.assign(1, 0);
    for (int ci = ci_begin; ci < ci_end; ++ci) {
        const auto first = static_cast<long>(out.size());
        for (int i = 0; i < n; ++i) {
            const int a = order[ci * n + i];
            if (a < 0) continue;
            for (int k = offset[a]; k < offset[a + 1]; ++k) {
                const int sb = slot[k];
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
void search_i_column(const ClusterGrid& grid, int column, int ci_begin, int ci_end, double rlist,
                     const PairSearchWork* exclusions, PairSearchThread& w) {
    const auto& bbi = grid.i_boxes();
    const BoundingBoxArrays& bbj = grid.j_boxes();
    const float *jlo_x = bbj.lo[0].data(), *jlo_y = bbj.lo[1].data(), *jlo_z = bbj.lo[2].data();
    const float *jhi_x = bbj.hi[0].data(), *jhi_y = bbj.hi[1].data(), *jhi_z = bbj.hi[2].data();
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
    const int per_zone = grid.ncx() * grid.ncy();
    const int i_zone = column / per_zone;
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
            const int col_xy = (cx - sx * grid.ncx()) + grid.ncx() * (cy - sy * grid.ncy());
            for (int zone = 0; zone < grid.num_zones(); ++zone) {
                if (zone & i_zone) continue;  // the zones share a bit: another rank's pairs
                const int col = zone * per_zone + col_xy;
                if (col_begin[col] == col_begin[col + 1]) continue;
                // Half list: a column whose j-clusters all precede the first i-cluster
                // only holds pairs of reverse entries.
                if (col_begin[col + 1] * m <= ci_begin * n) continue;
                neighbors.push_back({col, sx, sy, static_cast<float>(sx * box.lengths[0]),
                                     static_cast<float>(sy * box.lengths[1]), cell_lo_x, cell_lo_y});
            }
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
                while (cur < je && jlo_x[cur] <= jhi_x[cur] && jhi_z[cur] < zlo) ++cur;
                // j-cluster boxes of a column only grow in z (empty ones last, their
                // lo is +inf), so the candidates are a range, and skipping to cj_min
                // skips none of it.
                const int first = std::max(cur, cj_min);
                int last = first;
                while (last < je && jlo_z[last] <= zhi) ++last;
                const int count = last - first;
                if (count <= 0) continue;
                // Distances first, in SIMD lanes (the same float operations as
                // gap(), so the same list); then the hits' entries.
                if (static_cast<int>(w.d2.size()) < count) {
                    w.d2.resize(2 * count);
                    w.hits.resize(2 * count);
                }
                float* d2 = w.d2.data();
                const float blx = bi.lo[0], bly = bi.lo[1], blz = bi.lo[2];
                const float bhx = bi.hi[0], bhy = bi.hi[1], bhz = bi.hi[2];
                const float shx = nb.shx, shy = nb.shy;
                for (int q = 0; q < count; ++q) {
                    const int cj = first + q;
                    const float ex = std::max(std::max(0.0f, (jlo_x[cj] + shx) - bhx), blx - (jhi_x[cj] + shx));
                    const float ey = std::max(std::max(0.0f, (jlo_y[cj] + shy) - bhy), bly - (jhi_y[cj] + shy));
                    const float ez = std::max(std::max(0.0f, (jlo_z[cj] + shz) - bhz), blz - (jhi_z[cj] + shz));
                    d2[q] = ex * ex + ey * ey + ez * ez;
                }
                if (js.size() < nj + count) js.resize(std::max(2 * js.size(), nj + count));
                const std::int32_t shift = shift_index(nb.sx, nb.sy, sz);
                int* hit = w.hits.data();
                int nhit = 0;
                for (int q = 0; q < count; ++q) {
                    hit[nhit] = first + q;
                    nhit += d2[q] < rl2;
                }
                for (int h = 0; h < nhit; ++h) {
                    const JEntry e = j_entry(masks, hit[h], shift);
                    js[nj] = e;
                    nj += static_cast<std::size_t>((e.mask | e.excluded) != 0);
                }
            }
        }
        if (static_cast<std::int32_t>(nj) > j_begin) w.i.push_back({ci, j_begin, static_cast<std::int32_t>(nj)});
    }
    w.count_j = nj;
}

// Frees the build buffers' capacity when it exceeds three times the entries
// written this search, down to twice them (the contents are copied into the
// list by now). Growth doubles, so a buffer normally holds up to twice its
// share; the gap between the two factors keeps ordinary share changes from
// freeing and refilling megabytes (in water-24k and in.lj runs it never fires).
void trim_to_twice_used(PairSearchThread& w) {
    constexpr std::size_t kKeepAnyway = 4096;  // entries: small buffers stay
    if (w.j.size() > 3 * w.count_j + kKeepAnyway) {
        std::vector<JEntry>().swap(w.j);
        w.j.resize(2 * w.count_j);
    }
    if (w.i.capacity() > 3 * w.i.size() + kKeepAnyway) w.i.shrink_to_fit();
}

// Where each of work.parts starts in the merged list (prefix sums of the parts'
// sizes), and the list sized for them.
void place_parts(PairSearchWork& work, PairList& list) {
    const std::size_t np = work.parts.size();
    work.i_offset.assign(np + 1, 0);
    work.j_offset.assign(np + 1, 0);
    for (std::size_t k = 0; k < np; ++k) {
        const ListPart& p = work.parts[k];
        work.i_offset[k + 1] = work.i_offset[k] + (p.i_end - p.i_begin);
        work.j_offset[k + 1] = work.j_offset[k] + (p.j_end - p.j_begin);
    }
    resize_for_overwrite(list.i, work.i_offset[np]);
    resize_for_overwrite(list.j, work.j_offset[np]);
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

    // Threads take chunks of columns as they come (the work per column varies: the
    // half list keeps more of the wrapped neighbours of the first rows, and the
    // machine may be shared), each into its own buffers; the chunks are then
    // copied into the list in chunk order (in parallel), so the list does not
    // depend on the thread count or on who searched what.
    constexpr int kColumnsPerChunk = 4;
    const auto& col_j = grid.column_j_begin();
    const int ncol = static_cast<int>(col_j.size()) - 1;
    const int nchunks = (ncol + kColumnsPerChunk - 1) / kColumnsPerChunk;
    const int ratio_m = grid.cluster_j(), ratio_n = grid.cluster_i();
    if (static_cast<int>(work.threads.size()) < num_threads) work.threads.resize(num_threads);
    work.parts.resize(nchunks);
    work.exclusion_offset.resize(grid.slot_of().size() + 1);
#pragma omp parallel num_threads(num_threads)
    {
        index_exclusion_slots(grid, exclusions, work);
        const PairSearchWork* excl = work.exclusion_slot.empty() ? nullptr : &work;
        const int t = omp_get_thread_num();
        PairSearchThread& w = work.threads[t];
        w.i.clear();
        w.count_j = 0;
#pragma omp for schedule(dynamic, 1)
        for (int k = 0; k < nchunks; ++k) {
            ListPart part{t, w.i.size(), 0, w.count_j, 0};
            // Column c holds i-clusters [col_j[c]*M/N, col_j[c+1]*M/N).
            for (int c = k * kColumnsPerChunk; c < std::min(ncol, (k + 1) * kColumnsPerChunk); ++c)
                search_i_column(grid, c, col_j[c] * ratio_m / ratio_n, col_j[c + 1] * ratio_m / ratio_n, rlist,
                                excl, w);
            part.i_end = w.i.size();
            part.j_end = w.count_j;
            work.parts[k] = part;
        }
#pragma omp single
        place_parts(work, list);
#pragma omp for schedule(static)
        for (int k = 0; k < nchunks; ++k) {
            const ListPart& part = work.parts[k];
            const PairSearchThread& from = work.threads[part.thread];
            const auto j_shift = static_cast<std::int32_t>(work.j_offset[k] - part.j_begin);
            auto out_i = list.i.begin() + static_cast<long>(work.i_offset[k]);
            for (std::size_t e = part.i_begin; e < part.i_end; ++e)
                *out_i++ = {from.i[e].ci, from.i[e].j_begin + j_shift, from.i[e].j_end + j_shift};
            std::copy(from.j.begin() + static_cast<long>(part.j_begin), from.j.begin() + static_cast<long>(part.j_end),
                      list.j.begin() + static_cast<long>(work.j_offset[k]));
        }
        // (The loop's barrier: every part is copied.) A thread's buffers grow to
        // the largest share it ever took; after a search in which another thread
        // took most of the columns (dynamic schedule, a preempted thread), each
        // thread would hold a whole list's worth. Trimming a thread that holds
        // over three times what it wrote keeps them near twice the list, as the
        // memory estimate assumes; shares that stay about even never trigger it.
        trim_to_twice_used(w);
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
    work.parts.resize(num_threads);
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
        work.parts[t] = {t, 0, kept_i, 0, kept_j};
#pragma omp barrier
#pragma omp single
        {
            work.parts.resize(nt);
            place_parts(work, inner);
        }
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
