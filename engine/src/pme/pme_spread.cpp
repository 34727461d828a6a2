// PME spread: B-spline weights of each charged atom (kept for gather) and its
// order^3 block of charge on the grid.
#include <omp.h>

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

}  // namespace

// Each thread owns a contiguous block of atoms and its own grid copy; the copies are
// summed in thread order, so the result depends only on the thread count.
void pme_spread(PmeWorkspace& w, std::size_t n, const double* const pos[3], const double* q) {
    const int p = w.order;
    const int ny = w.grid.ny, nz = w.grid.nz;
    if (w.stencils.size() < n) w.stencils.resize(n);
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

}  // namespace mdcore
