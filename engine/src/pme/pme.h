#pragma once
// Smooth particle-mesh Ewald (Essmann et al., J. Chem. Phys. 103, 8577 (1995)):
// reciprocal-space Coulomb energy and forces with order-p B-splines on an
// nx x ny x nz grid, FFTW single-precision r2c/c2r, OpenMP in spread/solve/gather.
#include <array>
#include <cstddef>
#include <vector>

#include "mdcore/run_config.h"
#include "mdcore/system.h"
// The direct-Ewald oracle PME is tested against, visible here for its users.
#include "pme/ewald_direct.h"
#include "timing/thread_waits.h"

namespace mdcore {

struct PmeGrid {
    int nx = 0, ny = 0, nz = 0;
};

// Ewald splitting parameter beta (nm^-1) with erfc(beta rc) = ewald_rtol, as
// GROMACS' calc_ewaldcoeff_q (bisection).
double ewald_beta(double rc, double ewald_rtol);

// Smallest n >= length / spacing and >= 2*order (pme_grid.cpp) whose prime factors are
// all in {2, 3, 5, 7}, or 44 or 52 (GROMACS' list): FFT-friendly sizes.
int pme_grid_size(double length, double spacing, int order);
PmeGrid pme_grid_for_spacing(const Box& box, double spacing, int order);

struct PmeStageTimes {
    double spread = 0, fft = 0, solve = 0, gather = 0;  // seconds, accumulated
};

class Pme {
public:
    // order 4, 5 or 6. Throws std::invalid_argument for a grid dimension below
    // 2*order, an unsupported order or a SIMD level not compiled in (Auto: none).
    // FFTW plans are created once here. simd: the level of the spline kernel.
    Pme(const Box& box, PmeGrid grid, int order, double beta, double epsilon_r, int num_threads,
        SimdLevel simd = SimdLevel::None);
    ~Pme();
    Pme(const Pme&) = delete;
    Pme& operator=(const Pme&) = delete;

    // Reciprocal-space energy (kJ/mol) of n charges at (x,y,z) (nm, any image);
    // forces are ADDED to fx/fy/fz (kJ/mol/nm). Atoms with q == 0 are skipped.
    // virial (optional, 3x3 row-major, -0.5 sum r_i F_i convention as GROMACS) is overwritten.
    double compute(std::size_t n, const double* x, const double* y, const double* z, const double* q,
                   float* fx, float* fy, float* fz, double* virial = nullptr);
    // The same forces without the energy and virial sums (steps that sample no energy):
    // the solve is then one float multiply per transform value.
    void compute_forces(std::size_t n, const double* x, const double* y, const double* z, const double* q, float* fx,
                        float* fy, float* fz);

    // false (the default): spread and gather by the mesh kernels of the SIMD level
    // (float stencils of many atoms at once, padded per-thread slabs, contiguous
    // z-runs; pme_mesh_kernels.h). true: the paths as first written (double stencils
    // one atom at a time, a whole-grid copy per thread), kept as the reference the
    // default is tested against (test_pme_paths.cpp).
    void use_reference_path(bool on);

    // Barrier waits of the spread and gather threads go to `waits` (null: not timed).
    void set_thread_waits(ThreadWaits* waits);
    // On: the splines, the spread and the gather split their work over the threads
    // by shares adapted from each call's times (util/thread_balance.h); the
    // grid then agrees between runs to float rounding (the plane split moves
    // which slab a charge lands in). Off (the default): even splits.
    void set_thread_balance(bool on);

    const PmeStageTimes& stage_times() const { return times_; }
    PmeGrid grid() const { return grid_; }
    int order() const { return order_; }

private:
    double run(std::size_t n, const double* const pos[3], const double* q, float* fx, float* fy, float* fz,
               bool energy, double* virial);
    struct Impl;
    Impl* impl_;
    PmeGrid grid_;
    int order_;
    PmeStageTimes times_;
};

}  // namespace mdcore
