#pragma once
// What the smooth-PME stages share: grids, FFTW plans, tabulated spline moduli and
// influence function, and the per-atom stencils spread keeps for gather. One per
// Pme object; the stages (pme_spread.cpp, pme_fft.cpp, pme_solve.cpp,
// pme_gather.cpp) each read and write their part of it.
//
// Conventions: fractional coordinate u = K s with s = x/L wrapped into [0,1); an atom
// at u = floor(u) + f puts weight M_p(f + j) on grid point floor(u) - j (j = 0..p-1),
// so Q(k) = sum_i q_i prod_a M_p(u_ia - k_a) (periodic). FFTW's r2c gives
// Qh(m) = sum_k Q(k) exp(-2 pi i m.k/K); the energy is 0.5 sum_m G(m) |Qh(m)|^2 with
// G(m) = exp(-pi^2 m^2/beta^2) / (pi V m^2) / prod_a |b_a(m_a)|^2, and the potential
// phi = c2r(G Qh) (FFTW's unnormalised inverse) is exactly the convolution theta*Q.
#include <fftw3.h>

#include <cstddef>
#include <mutex>
#include <vector>

#include "mdcore/system.h"
#include "pme/bspline.h"
#include "pme/pme.h"
#include "pme/pme_mesh_kernels.h"
#include "util/thread_balance.h"

namespace mdcore {

struct PmeWorkspace {
    Box box;
    PmeGrid grid;
    int order = 4;
    double beta = 0, prefactor = 0;  // prefactor = kCoulomb / epsilon_r
    int nthreads = 1;
    int fft_threads = 1;  // the thread count the caller asked for (<= 0: one FFT thread)
    int nzc = 0;  // nz/2+1 complex z-planes
    std::size_t nreal = 0, ncomplex = 0;
    float* real = nullptr;                // charge grid, then potential phi
    fftwf_complex* cplx = nullptr;        // its transform
    std::vector<float*> thread_grids;     // reference spread: whole-grid copies for threads 1..n-1
    bool reference_path = false;          // spread and gather as first written (Pme::use_reference_path)
    PmeMeshKernels mesh{};                // the optimised path's kernels at the run's SIMD level
    std::vector<int> mesh_base;           // its float stencils (pme_mesh_kernels.h)
    std::vector<float> mesh_th, mesh_dth;
    std::vector<std::vector<float>> slabs;     // per thread: its padded spread slab (PmeSlab)
    std::vector<std::vector<int>> slab_atoms;  // per thread: the atoms whose first x-plane it owns
    fftwf_plan fwd = nullptr, bwd = nullptr;
    std::vector<double> bmod[3];
    std::vector<double> mvec[3];          // m_a / L_a for each grid index (signed frequency)
    std::vector<AtomStencil> stencils;    // the reference path's stencils
    std::vector<double> thread_acc;       // per thread: energy + 6 virial components (stride 10)
    std::vector<double> influence;        // G(m) per complex grid point (0 at m = 0)
    std::vector<float> influence_f;       // the same in float, for the solve without energy
    ThreadWaits* waits = nullptr;         // barrier waits of spread and gather (null: not timed)
    // Each thread's part of the splines (atoms), of the spread and fold (x-planes)
    // and of the gather (atoms); adapted to the threads' speeds when balancing.
    ThreadShares spline_shares, plane_shares, gather_shares;

    PmeWorkspace() = default;
    PmeWorkspace(const PmeWorkspace&) = delete;
    PmeWorkspace& operator=(const PmeWorkspace&) = delete;
    ~PmeWorkspace();
};

// Throws std::invalid_argument for an order outside 4..6, a grid dimension below
// 2*order, a non-positive box edge, beta or epsilon_r (pme.cpp; every PME front end).
void pme_check_parameters(const Box& box, PmeGrid grid, int order, double beta, double epsilon_r);
// pme.cpp: w.bmod and w.mvec (signed frequencies m/L) from w.grid, w.order and w.box.
void pme_tabulate_frequencies(PmeWorkspace& w);

// pme_fft.cpp: FFTW's planner is not thread-safe; every plan is made under this lock,
// which also sets the thread count of the plans made while it is held.
std::unique_lock<std::mutex> pme_fftw_planner_lock(int plan_threads);
// pme_fft.cpp: whether a grid of this many points gets timed (FFTW_MEASURE) and
// threaded plans; smaller ones keep reproducible single-thread ESTIMATE plans.
bool pme_fft_plans_measured(long grid_points);
// While one lives, every grid gets ESTIMATE plans: a timed plan picks its algorithm
// by the machine's noise and so rounds differently from run to run, and a set-up
// that must give the same result in every process (each MPI rank generates the same
// water box) cannot have that.
class PmeEstimatedPlansScope {
public:
    PmeEstimatedPlansScope();
    ~PmeEstimatedPlansScope();
    PmeEstimatedPlansScope(const PmeEstimatedPlansScope&) = delete;
    PmeEstimatedPlansScope& operator=(const PmeEstimatedPlansScope&) = delete;
};
// pme_fft.cpp: grids and plans (throws std::runtime_error when FFTW fails), transforms.
void pme_allocate_and_plan(PmeWorkspace& w);
void pme_allocate_reference_copies(PmeWorkspace& w);  // the reference spread's whole-grid copies
// pme.cpp: each thread's padded slab of the mesh spread (w.nthreads, even plane split).
void pme_allocate_slabs(PmeWorkspace& w);
void pme_fft_forward(PmeWorkspace& w);   // real (charges) -> cplx
void pme_fft_backward(PmeWorkspace& w);  // cplx -> real (potential)

// pme_spread.cpp: stencils of every atom, charges onto w.real (w.reference_path: the
// reference spread and w.stencils; otherwise the slab spread and w.mesh_*).
void pme_spread(PmeWorkspace& w, std::size_t n, const double* const pos[3], const double* q);

// pme_solve.cpp: the influence table (set-up), and the solve that multiplies the
// transform by it and returns the energy (virial, 3x3 row-major, when not null), or
// only multiplies.
void pme_tabulate_influence(PmeWorkspace& w);
double pme_solve(PmeWorkspace& w, double* virial);
void pme_solve_forces_only(PmeWorkspace& w);  // the product alone (steps without energy)

// The pieces of the solve that do not depend on the grid's layout in memory (the
// slab-decomposed mesh, parallel_pme_mesh.cpp, stores its transform transposed).
// G(m) for m = (mx, my, mz) nm^-1 and the three |b(m_a)|^2.
double pme_influence_at(double prefactor, double beta, double volume, double mx, double my, double mz, double bx,
                        double by, double bz);
// Energy and the six virial sums (xx, yy, zz, xy, xz, yz) of the modes a thread solved.
struct PmeSolveSums {
    double energy = 0, v[6] = {};
};
// One kz-line of the half-complex transform at fixed (mx, my): multiplied by its G,
// energy (and virial sums when want_virial) added to sums.
void pme_solve_line(fftwf_complex* line, const double* influence, int nz, int nzc, double mx, double my, double Lz,
                    double beta, bool want_virial, PmeSolveSums& sums);
// -0.5 sum r F, 3x3 row-major, from the summed virial sums.
void pme_virial_from_sums(const double v[6], double* virial);

// pme_gather.cpp: F_i -= q_i grad phi at each charged atom.
void pme_gather(PmeWorkspace& w, std::size_t n, const double* q, float* fx, float* fy, float* fz);

}  // namespace mdcore
