// PME gather: F_i = -q_i grad phi from the potential grid and the stencils spread
// kept, chain rule d u_a / d x_a = K_a / L_a. The optimised path has the order fixed at
// compile time and reads an atom's z-run as one contiguous piece of the grid line
// where it does not wrap; the reference path is the loop as first written. Both sum
// the same products in the same order: identical forces.
#include <type_traits>

#include "pme/pme_workspace.h"

namespace mdcore {

namespace {

struct GatherGeometry {
    int ny, nz;
    double sx, sy, sz;  // K_a / L_a
};

// Order: int (the reference) or std::integral_constant (fixed at compile time);
// z_point(row, c): the potential at the atom's c-th z point of a grid line.
template <typename Order, typename ZPoint>
void gather_atom(const float* phi, const GatherGeometry& g, Order p, double q, const AtomStencil& st, ZPoint z_point,
                 float& fx, float& fy, float& fz) {
    double gx = 0, gy = 0, gz = 0;
    for (int a = 0; a < p; ++a) {
        for (int b = 0; b < p; ++b) {
            const float* row = phi + (static_cast<std::size_t>(st.idx[0][a]) * g.ny + st.idx[1][b]) * g.nz;
            double s0 = 0, s1 = 0;  // sum_c th_z phi, sum_c dth_z phi
            for (int c = 0; c < p; ++c) {
                const double ph = z_point(row, c);
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

template <int P>
void gather_atom_fixed(const float* phi, const GatherGeometry& g, double q, const AtomStencil& st, float& fx, float& fy,
                       float& fz) {
    const std::integral_constant<int, P> order;
    const int zbase = st.idx[2][0];
    if (zbase >= P - 1)  // points zbase, zbase-1, ... lie side by side on the line
        gather_atom(phi, g, order, q, st, [zbase](const float* row, int c) { return row[zbase - c]; }, fx, fy, fz);
    else
        gather_atom(phi, g, order, q, st, [&st](const float* row, int c) { return row[st.idx[2][c]]; }, fx, fy, fz);
}

}  // namespace

void pme_gather(PmeWorkspace& w, std::size_t n, const double* q, float* fx, float* fy, float* fz) {
    const GatherGeometry g{w.grid.ny, w.grid.nz, w.grid.nx / w.box.lengths[0], w.grid.ny / w.box.lengths[1],
                           w.grid.nz / w.box.lengths[2]};
    const float* phi = w.real;
    const int p = w.order;
    const bool reference = w.reference_path;
#pragma omp parallel for num_threads(w.nthreads) schedule(static)
    for (std::size_t i = 0; i < n; ++i) {
        if (q[i] == 0.0) continue;
        const AtomStencil& st = w.stencils[i];
        if (reference)
            gather_atom(phi, g, p, q[i], st, [&st](const float* row, int c) { return row[st.idx[2][c]]; }, fx[i], fy[i],
                        fz[i]);
        else if (p == 4)
            gather_atom_fixed<4>(phi, g, q[i], st, fx[i], fy[i], fz[i]);
        else if (p == 5)
            gather_atom_fixed<5>(phi, g, q[i], st, fx[i], fy[i], fz[i]);
        else
            gather_atom_fixed<6>(phi, g, q[i], st, fx[i], fy[i], fz[i]);
    }
}

}  // namespace mdcore
