// PME spread: B-spline stencils of each atom (kept for gather) and its order^3 block
// of charge on the grid. Two paths:
//   slab            (the default) float stencils of many atoms at once at the run's SIMD
//                   level (pme_mesh_kernels.h); thread t owns the x-planes [x0_t, x1_t)
//                   and spreads the atoms whose first x-plane it owns into a private slab
//                   of those planes plus order-1 below, padded in y and z so that no index
//                   wraps; each thread then writes its own planes, folding in every slab
//                   plane that maps onto them: no whole-grid copy per thread, no serial pass;
//   reference       (Pme::use_reference_path) double stencils one atom at a time into a
//                   whole-grid copy per thread, the copies summed in thread order (as first
//                   written; tests compare the slab path against it).
// Both depend only on the thread count; they differ by float rounding.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "pme/pme_workspace.h"

namespace mdcore {

namespace {

void atom_stencil(const PmeWorkspace& w, const double* const pos[3], std::size_t i, AtomStencil& st) {
    const int dims[3] = {w.grid.nx, w.grid.ny, w.grid.nz};
    for (int a = 0; a < 3; ++a) {
        const int K = dims[a];
        double s = pos[a][i] / w.box.lengths[a];
        s -= std::floor(s);  // any image -> [0,1)
        const double u = s * K;
        int base = static_cast<int>(u);
        const double f = u - base;
        if (base >= K) base -= K;  // s*K may round up to K
        bspline(f, w.order, st.th[a], st.dth[a]);
        for (int j = 0; j < w.order; ++j) {
            int k = base - j + K;
            if (k >= K) k -= K;
            st.idx[a][j] = k;
        }
    }
}

void pme_spread_reference(PmeWorkspace& w, std::size_t n, const double* const pos[3], const double* q) {
    const int p = w.order;
    const int ny = w.grid.ny, nz = w.grid.nz;
    pme_allocate_reference_copies(w);
#pragma omp parallel num_threads(w.nthreads)
    {
        const int tid = omp_get_thread_num();
        // The team may be smaller than nthreads (nested or dynamic OpenMP): only its copies count.
        const int team = omp_get_num_threads();
        float* g = tid == 0 ? w.real : w.thread_grids[tid - 1];
        std::memset(g, 0, sizeof(float) * w.nreal);
#pragma omp for schedule(static)
        for (std::size_t i = 0; i < n; ++i) {
            if (q[i] == 0.0) continue;
            AtomStencil& st = w.stencils[i];
            atom_stencil(w, pos, i, st);
            for (int a = 0; a < p; ++a) {
                const double qa = q[i] * st.th[0][a];
                for (int b = 0; b < p; ++b) {
                    const double qab = qa * st.th[1][b];
                    float* row = g + (static_cast<std::size_t>(st.idx[0][a]) * ny + st.idx[1][b]) * nz;
                    for (int c = 0; c < p; ++c) row[st.idx[2][c]] += static_cast<float>(qab * st.th[2][c]);
                }
            }
        }
        // implicit barrier: all copies complete
        if (team > 1) {
#pragma omp for schedule(static)
            for (std::size_t k = 0; k < w.nreal; ++k) {
                float s = w.real[k];
                for (int t = 0; t < team - 1; ++t) s += w.thread_grids[t][k];
                w.real[k] = s;
            }
        }
    }
}

PmeMeshStencils mesh_stencils(PmeWorkspace& w) {
    return {w.mesh_base.data(), w.mesh_th.data(), w.mesh_dth.data()};
}

// Adds one padded slab plane onto a grid plane, folding the order-1 padded lines and
// points below 0 back onto the top of the grid (periodic).
void fold_plane(float* out, const float* in, int ny, int nz, int pad, int nz_pad) {
    for (int ly = 0; ly < ny + pad; ++ly) {
        const int y = ly < pad ? ly - pad + ny : ly - pad;
        float* row = out + static_cast<std::size_t>(y) * nz;
        const float* src = in + static_cast<std::size_t>(ly) * nz_pad;
        for (int z = 0; z < nz; ++z) row[z] += src[z + pad];
        for (int lz = 0; lz < pad; ++lz) row[lz - pad + nz] += src[lz];
    }
}

// Every thread: splines of a share of the atoms, then (after a barrier) the charges of
// the atoms whose first x-plane it owns onto its private padded slab, then (after a
// second barrier) its own grid planes as the sum of every slab plane that maps onto
// them. No whole-grid copies, no serial pass; the result depends only on the team size.
void pme_spread_slabs(PmeWorkspace& w, std::size_t n, const double* const pos[3], const double* q) {
    const int p = w.order, pad = p - 1;
    const int nx = w.grid.nx, ny = w.grid.ny, nz = w.grid.nz;
    const int ny_pad = ny + pad, nz_pad = nz + pad;
    const std::size_t slab_plane = static_cast<std::size_t>(ny_pad) * nz_pad;
    const std::size_t grid_plane = static_cast<std::size_t>(ny) * nz;
    if (w.mesh_base.size() < pme_stencil_ints(n)) {
        w.mesh_base.resize(pme_stencil_ints(n));
        w.mesh_th.resize(pme_stencil_floats(n, p));
        w.mesh_dth.resize(pme_stencil_floats(n, p));
    }
    if (static_cast<int>(w.slabs.size()) < w.nthreads) w.slabs.resize(w.nthreads);
    if (static_cast<int>(w.slab_atoms.size()) < w.nthreads) w.slab_atoms.resize(w.nthreads);
    const PmeMeshStencils st = mesh_stencils(w);
    PmeSplineInput in;
    for (int a = 0; a < 3; ++a) in.pos[a] = pos[a], in.length[a] = w.box.lengths[a];
    in.dims[0] = nx, in.dims[1] = ny, in.dims[2] = nz;
    in.order = p;
    constexpr std::size_t kBlock = 64;
    // Thread t of a team owns the grid's x-planes [plane(t), plane(t + 1)).
    auto plane = [&](int t, int team) { return static_cast<int>(w.plane_shares.range(t, team, nx).first); };
#pragma omp parallel num_threads(w.nthreads)
    {
        const int tid = omp_get_thread_num();
        const int team = omp_get_num_threads();
        double start = omp_get_wtime();
        const auto [a0, a1] = w.spline_shares.range(tid, team, n, kBlock);
        for (std::size_t i = a0; i < a1; i += kBlock) w.mesh.splines(in, i, std::min(a1, i + kBlock), st);
        w.spline_shares.record(tid, static_cast<double>(a1 - a0), omp_get_wtime() - start);
        timed_barrier(w.waits, tid);  // every stencil is ready
        start = omp_get_wtime();
        const int x0 = plane(tid, team), x1 = plane(tid + 1, team);
        std::vector<int>& mine = w.slab_atoms[tid];
        mine.clear();
        for (std::size_t i = 0; i < n; ++i) {
            const int xb = st.base[pme_base_index(i, 0)];
            if (xb >= x0 && xb < x1) mine.push_back(static_cast<int>(i));
        }
        std::vector<float>& slab = w.slabs[tid];
        const std::size_t size = static_cast<std::size_t>(x1 - x0 + pad) * slab_plane;
        if (slab.size() < size) slab.resize(size);  // a new largest plane count (balancing, or another team)
        std::fill(slab.begin(), slab.begin() + size, 0.0f);
        w.mesh.spread(PmeSlab{slab.data(), x0, ny_pad, nz_pad}, p, mine.data(), mine.size(), q, st);
        double seconds = omp_get_wtime() - start;
        timed_barrier(w.waits, tid);
        start = omp_get_wtime();
        for (int x = x0; x < x1; ++x) {
            float* out = w.real + static_cast<std::size_t>(x) * grid_plane;
            std::fill(out, out + grid_plane, 0.0f);
            // Slab plane l of thread u is grid plane x0(u) - pad + l (mod nx); a slab
            // longer than the grid (one thread) has two planes on some grid planes.
            for (int u = 0; u < team; ++u) {
                const int x0u = plane(u, team), x1u = plane(u + 1, team);
                for (int l = ((x - x0u + pad) % nx + nx) % nx; l < x1u - x0u + pad; l += nx)
                    fold_plane(out, w.slabs[u].data() + static_cast<std::size_t>(l) * slab_plane, ny, nz, pad, nz_pad);
            }
        }
        // The planes' time: the spread of their atoms and the fold onto them.
        seconds += omp_get_wtime() - start;
        w.plane_shares.record(tid, x1 - x0, seconds);
        timed_region_end(w.waits, tid);
    }
    w.spline_shares.rebalance();
    w.plane_shares.rebalance();
}

}  // namespace

void pme_spread(PmeWorkspace& w, std::size_t n, const double* const pos[3], const double* q) {
    if (w.reference_path) {
        if (w.stencils.size() < n) w.stencils.resize(n);
        pme_spread_reference(w, n, pos, q);
    } else
        pme_spread_slabs(w, n, pos, q);
}

}  // namespace mdcore
