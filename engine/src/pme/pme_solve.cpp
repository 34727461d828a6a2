// PME solve: the influence function G(m), tabulated once per box and grid, applied
// to the transformed charge grid; energy and virial summed on the way.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "pme/pme_workspace.h"

namespace mdcore {

namespace {
constexpr double kPi = std::numbers::pi;
}  // namespace

double pme_influence_at(double prefactor, double beta, double volume, double mx, double my, double mz, double bx,
                        double by, double bz) {
    const double fac = kPi * kPi / (beta * beta);
    const double m2 = mx * mx + my * my + mz * mz;
    return prefactor * std::exp(-fac * m2) / (kPi * volume * m2 * bx * by * bz);
}

// The influence function depends only on the box and grid: tabulate it once
// instead of evaluating exp() per k-vector every step.
void pme_tabulate_influence(PmeWorkspace& w) {
    const PmeGrid& grid = w.grid;
    const double V = w.box.volume();
    w.influence.assign(static_cast<std::size_t>(grid.nx) * grid.ny * w.nzc, 0.0);
    for (int ix = 0; ix < grid.nx; ++ix)
        for (int iy = 0; iy < grid.ny; ++iy)
            for (int kz = 0; kz < w.nzc; ++kz) {
                if (ix == 0 && iy == 0 && kz == 0) continue;  // m = 0 left out (tin-foil)
                w.influence[(static_cast<std::size_t>(ix) * grid.ny + iy) * w.nzc + kz] =
                    pme_influence_at(w.prefactor, w.beta, V, w.mvec[0][ix], w.mvec[1][iy], kz / w.box.lengths[2],
                                     w.bmod[0][ix], w.bmod[1][iy], w.bmod[2][kz]);
            }
    w.influence_f.assign(w.influence.begin(), w.influence.end());
}

// Steps without energy need only the product: one float multiply per value, vectorised.
void pme_solve_forces_only(PmeWorkspace& w) {
    const long n = static_cast<long>(w.ncomplex);
    float* c = &w.cplx[0][0];
    const float* g = w.influence_f.data();
#pragma omp parallel for num_threads(w.nthreads) schedule(static)
    for (long k = 0; k < n; ++k) {
        c[2 * k] *= g[k];
        c[2 * k + 1] *= g[k];
    }
}

void pme_solve_line(fftwf_complex* line, const double* influence, int nz, int nzc, double mx, double my, double Lz,
                    double beta, bool want_virial, PmeSolveSums& sums) {
    const double fac = kPi * kPi / (beta * beta);
    for (int kz = 0; kz < nzc; ++kz) {
        const double eterm = influence[kz];  // 0 at m = 0 (tin-foil)
        if (eterm == 0.0) {
            line[kz][0] = line[kz][1] = 0.0f;
            continue;
        }
        const double mz = kz / Lz;
        const double m2 = mx * mx + my * my + mz * mz;
        const double re = line[kz][0], im = line[kz][1];
        // Half-complex layout: kz and -kz both stand behind interior planes.
        const double weight = (kz == 0 || (nz % 2 == 0 && kz == nz / 2)) ? 1.0 : 2.0;
        const double em = 0.5 * weight * eterm * (re * re + im * im);
        sums.energy += em;
        if (want_virial) {
            const double vf = 2.0 * (1.0 + fac * m2) / m2;
            sums.v[0] += em * (vf * mx * mx - 1.0);
            sums.v[1] += em * (vf * my * my - 1.0);
            sums.v[2] += em * (vf * mz * mz - 1.0);
            sums.v[3] += em * vf * mx * my;
            sums.v[4] += em * vf * mx * mz;
            sums.v[5] += em * vf * my * mz;
        }
        line[kz][0] = static_cast<float>(re * eterm);
        line[kz][1] = static_cast<float>(im * eterm);
    }
}

void pme_virial_from_sums(const double v[6], double* virial) {
    // -0.5 sum r F: 0.5 sum_m E_m (2 (1 + pi^2 m^2/beta^2) m_a m_b / m^2 - delta_ab).
    const double vir[9] = {v[0], v[3], v[4], v[3], v[1], v[5], v[4], v[5], v[2]};
    for (int c = 0; c < 9; ++c) virial[c] = 0.5 * vir[c];
}

// Multiply by G(m) over x-planes; energy and virial per thread, summed in thread order.
double pme_solve(PmeWorkspace& w, double* virial) {
    const int nx = w.grid.nx, ny = w.grid.ny, nz = w.grid.nz, nzc = w.nzc;
    const bool want_virial = virial != nullptr;
    std::fill(w.thread_acc.begin(), w.thread_acc.end(), 0.0);
#pragma omp parallel num_threads(w.nthreads)
    {
        double* acc = &w.thread_acc[static_cast<std::size_t>(omp_get_thread_num()) * 10];
        PmeSolveSums sums;
#pragma omp for schedule(static)
        for (int ix = 0; ix < nx; ++ix)
            for (int iy = 0; iy < ny; ++iy) {
                const std::size_t row_index = (static_cast<std::size_t>(ix) * ny + iy) * nzc;
                pme_solve_line(w.cplx + row_index, w.influence.data() + row_index, nz, nzc, w.mvec[0][ix],
                               w.mvec[1][iy], w.box.lengths[2], w.beta, want_virial, sums);
            }
        acc[0] = sums.energy;
        for (int c = 0; c < 6; ++c) acc[1 + c] = sums.v[c];
    }
    double energy = 0, v[6] = {};
    for (int t = 0; t < w.nthreads; ++t) {
        energy += w.thread_acc[t * 10];
        for (int c = 0; c < 6; ++c) v[c] += w.thread_acc[t * 10 + 1 + c];
    }
    if (want_virial) pme_virial_from_sums(v, virial);
    return energy;
}

}  // namespace mdcore
