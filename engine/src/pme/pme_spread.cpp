// PME spread: B-spline stencils of each charged atom (kept for gather) and its
// order^3 block of charge on the grid. Two paths:
//   slab            stencils of many atoms at once at the run's SIMD level; thread t owns
//                   the x-planes [x0_t, x1_t) and spreads the atoms whose first x-plane it
//                   owns into a private slab of those planes plus the order-1 below; each
//                   thread then writes its own planes, adding the neighbours' halo planes,
//                   so there is neither a whole-grid copy per thread nor a serial pass;
//   reference       (the default, Pme::use_reference_path) one atom at a time into a
//                   whole-grid copy per thread, the copies summed in thread order (as
//                   first written; tests compare the slab path against it).
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

// One atom's order^3 block into a slab whose plane 0 is grid plane x0 - (P-1). Where
// the atom's z-run does not wrap, its P points are one contiguous piece of the line.
template <int P>
void spread_atom(float* slab, int x0, int ny, int nz, double q, const AtomStencil& st) {
    const int zbase = st.idx[2][0];
    const bool contiguous = zbase >= P - 1;
    for (int a = 0; a < P; ++a) {
        const double qa = q * st.th[0][a];
        const int lx = st.idx[0][0] - a - x0 + (P - 1);
        for (int b = 0; b < P; ++b) {
            const double qab = qa * st.th[1][b];
            float* row = slab + (static_cast<std::size_t>(lx) * ny + st.idx[1][b]) * nz;
            if (contiguous) {
                float* line = row + zbase - (P - 1);  // line[P-1-c] is point zbase - c
                for (int c = 0; c < P; ++c) line[P - 1 - c] += static_cast<float>(qab * st.th[2][c]);
            } else {
                for (int c = 0; c < P; ++c) row[st.idx[2][c]] += static_cast<float>(qab * st.th[2][c]);
            }
        }
    }
}

template <int P>
void spread_slab(PmeWorkspace& w, std::size_t n, const double* q, int tid, int team) {
    const int nx = w.grid.nx, ny = w.grid.ny, nz = w.grid.nz;
    const std::size_t plane = static_cast<std::size_t>(ny) * nz;
    const int x0 = static_cast<int>(static_cast<long>(nx) * tid / team);
    const int x1 = static_cast<int>(static_cast<long>(nx) * (tid + 1) / team);
    std::vector<float>& slab = w.slabs[tid];
    const std::size_t size = static_cast<std::size_t>(x1 - x0 + P - 1) * plane;
    if (slab.size() < size) slab.resize(size);  // only when the team shrank below nthreads
    std::fill(slab.begin(), slab.begin() + size, 0.0f);
    for (std::size_t i = 0; i < n; ++i) {
        if (q[i] == 0.0) continue;
        const AtomStencil& st = w.stencils[i];
        const int xb = st.idx[0][0];
        if (xb >= x0 && xb < x1) spread_atom<P>(slab.data(), x0, ny, nz, q[i], st);
    }
}

// Plane x of the grid: the owner's slab plus every thread's halo planes that map onto x
// (thread u's slab planes 0..P-2 are grid planes x0_u - (P-1) .. x0_u - 1, mod nx).
void reduce_plane(PmeWorkspace& w, int x, int owner, int team) {
    const int nx = w.grid.nx, p = w.order;
    const std::size_t plane = static_cast<std::size_t>(w.grid.ny) * w.grid.nz;
    const int x0 = static_cast<int>(static_cast<long>(nx) * owner / team);
    float* out = w.real + static_cast<std::size_t>(x) * plane;
    const float* own = w.slabs[owner].data() + static_cast<std::size_t>(x - x0 + p - 1) * plane;
    std::copy(own, own + plane, out);
    for (int u = 0; u < team; ++u) {
        const int x0u = static_cast<int>(static_cast<long>(nx) * u / team);
        const int below = ((x0u - x) % nx + nx) % nx;  // planes from x up to x0_u
        if (below < 1 || below > p - 1) continue;
        const float* halo = w.slabs[u].data() + static_cast<std::size_t>(p - 1 - below) * plane;
        for (std::size_t k = 0; k < plane; ++k) out[k] += halo[k];
    }
}

void pme_spread_slabs(PmeWorkspace& w, std::size_t n, const double* const pos[3], const double* q) {
    PmeSplineArgs args;
    for (int a = 0; a < 3; ++a) args.pos[a] = pos[a], args.length[a] = w.box.lengths[a];
    args.dims[0] = w.grid.nx, args.dims[1] = w.grid.ny, args.dims[2] = w.grid.nz;
    args.order = w.order;
    args.stencils = w.stencils.data();
    if (static_cast<int>(w.slabs.size()) < w.nthreads) w.slabs.resize(w.nthreads);
    const std::size_t blocks = (n + kPmeSplineLanes - 1) / kPmeSplineLanes;
#pragma omp parallel num_threads(w.nthreads)
    {
        const int tid = omp_get_thread_num();
        const int team = omp_get_num_threads();
#pragma omp for schedule(static)
        for (std::size_t b = 0; b < blocks; ++b)
            w.spline(args, b * kPmeSplineLanes, std::min(n, (b + 1) * kPmeSplineLanes));
        // implicit barrier: every stencil is ready
        switch (w.order) {
            case 4: spread_slab<4>(w, n, q, tid, team); break;
            case 5: spread_slab<5>(w, n, q, tid, team); break;
            default: spread_slab<6>(w, n, q, tid, team); break;
        }
#pragma omp barrier
        const int x0 = static_cast<int>(static_cast<long>(w.grid.nx) * tid / team);
        const int x1 = static_cast<int>(static_cast<long>(w.grid.nx) * (tid + 1) / team);
        for (int x = x0; x < x1; ++x) reduce_plane(w, x, tid, team);
    }
}

}  // namespace

void pme_spread(PmeWorkspace& w, std::size_t n, const double* const pos[3], const double* q) {
    if (w.stencils.size() < n) w.stencils.resize(n);
    if (w.reference_path)
        pme_spread_reference(w, n, pos, q);
    else
        pme_spread_slabs(w, n, pos, q);
}

}  // namespace mdcore
