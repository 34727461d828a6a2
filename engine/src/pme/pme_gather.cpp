// PME gather: F_i = -q_i grad phi from the potential grid and the stencils spread
// kept, chain rule d u_a / d x_a = K_a / L_a. The default path runs the mesh kernel of
// the run's SIMD level on the float stencils (pme_mesh_kernels.h); the reference path
// is the loop as first written, in double, on the reference spread's stencils.
#include <omp.h>

#include <algorithm>

#include "pme/pme_workspace.h"

namespace mdcore {

namespace {

struct GatherGeometry {
    int ny, nz;
    double sx, sy, sz;  // K_a / L_a
};

void gather_atom(const float* phi, const GatherGeometry& g, int p, double q, const AtomStencil& st, float& fx,
                 float& fy, float& fz) {
    double gx = 0, gy = 0, gz = 0;
    for (int a = 0; a < p; ++a) {
        for (int b = 0; b < p; ++b) {
            const float* row = phi + (static_cast<std::size_t>(st.idx[0][a]) * g.ny + st.idx[1][b]) * g.nz;
            double s0 = 0, s1 = 0;  // sum_c th_z phi, sum_c dth_z phi
            for (int c = 0; c < p; ++c) {
                const double ph = row[st.idx[2][c]];
                s0 += st.th[2][c] * ph;
                s1 += st.dth[2][c] * ph;
            }
            gx += st.dth[0][a] * st.th[1][b] * s0;
            gy += st.th[0][a] * st.dth[1][b] * s0;
            gz += st.th[0][a] * st.th[1][b] * s1;
        }
    }
    fx -= static_cast<float>(q * g.sx * gx);
    fy -= static_cast<float>(q * g.sy * gy);
    fz -= static_cast<float>(q * g.sz * gz);
}

}  // namespace

void pme_gather(PmeWorkspace& w, std::size_t n, const double* q, float* fx, float* fy, float* fz) {
    const GatherGeometry g{w.grid.ny, w.grid.nz, w.grid.nx / w.box.lengths[0], w.grid.ny / w.box.lengths[1],
                           w.grid.nz / w.box.lengths[2]};
    const float* phi = w.real;
    if (!w.reference_path) {
        PmeGatherInput in;
        in.phi = phi;
        in.dims[0] = w.grid.nx, in.dims[1] = w.grid.ny, in.dims[2] = w.grid.nz;
        in.scale[0] = g.sx, in.scale[1] = g.sy, in.scale[2] = g.sz;
        in.order = w.order;
        const PmeMeshStencils st{w.mesh_base.data(), w.mesh_th.data(), w.mesh_dth.data()};
        constexpr std::size_t kBlock = 64;
#pragma omp parallel num_threads(w.nthreads)
        {
            const int tid = omp_get_thread_num();
            const double start = omp_get_wtime();
            const auto [a0, a1] = w.gather_shares.range(tid, omp_get_num_threads(), n, kBlock);
            for (std::size_t i = a0; i < a1; i += kBlock) w.mesh.gather(in, i, std::min(a1, i + kBlock), q, st, fx, fy, fz);
            w.gather_shares.record(tid, static_cast<double>(a1 - a0), omp_get_wtime() - start);
            timed_region_end(w.waits, tid);
        }
        w.gather_shares.rebalance();
        return;
    }
    const int p = w.order;
#pragma omp parallel for num_threads(w.nthreads) schedule(static)
    for (std::size_t i = 0; i < n; ++i) {
        if (q[i] == 0.0) continue;
        gather_atom(phi, g, p, q[i], w.stencils[i], fx[i], fy[i], fz[i]);
    }
}

}  // namespace mdcore
