// PME gather: F_i = -q_i grad phi from the potential grid and the stencils spread
// kept, chain rule d u_a / d x_a = K_a / L_a.
#include "pme/pme_workspace.h"

namespace mdcore {

void pme_gather(PmeWorkspace& w, std::size_t n, const double* q, float* fx, float* fy, float* fz) {
    const int p = w.order;
    const int nx = w.grid.nx, ny = w.grid.ny, nz = w.grid.nz;
    const double sx = nx / w.box.lengths[0], sy = ny / w.box.lengths[1], sz = nz / w.box.lengths[2];
    const float* phi = w.real;
#pragma omp parallel for num_threads(w.nthreads) schedule(static)
    for (std::size_t i = 0; i < n; ++i) {
        if (q[i] == 0.0) continue;
        const AtomStencil& st = w.stencils[i];
        double gx = 0, gy = 0, gz = 0;
        for (int a = 0; a < p; ++a) {
            for (int b = 0; b < p; ++b) {
                const float* row = phi + (static_cast<std::size_t>(st.idx[0][a]) * ny + st.idx[1][b]) * nz;
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
        fx[i] -= static_cast<float>(q[i] * sx * gx);
        fy[i] -= static_cast<float>(q[i] * sy * gy);
        fz[i] -= static_cast<float>(q[i] * sz * gz);
    }
}

}  // namespace mdcore
