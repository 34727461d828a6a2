// Smooth particle-mesh Ewald (Essmann et al., J. Chem. Phys. 103, 8577 (1995)):
// set-up and the per-step sequence spread -> r2c FFT -> solve -> c2r FFT -> gather.
// Each stage lives in its own file (pme_spread.cpp, pme_fft.cpp, pme_solve.cpp,
// pme_gather.cpp); conventions are in pme_workspace.h.
#include "pme/pme.h"

#include <chrono>
#include <climits>
#include <memory>
#include <stdexcept>
#include <string>

#include "mdcore/units.h"
#include "pme/pme_workspace.h"
#include "util/thread_count.h"

namespace mdcore {

struct Pme::Impl : PmeWorkspace {};

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

// Each thread's padded spread slab (its share of the x-planes plus order-1 below, y and
// z lines padded by order-1), allocated here so the step loop does not.
void pme_allocate_slabs(PmeWorkspace& w) {
    const int pad = w.order - 1;
    const std::size_t plane = static_cast<std::size_t>(w.grid.ny + pad) * (w.grid.nz + pad);
    w.slabs.resize(w.nthreads);
    w.slab_atoms.resize(w.nthreads);
    for (int t = 0; t < w.nthreads; ++t) {
        const long x0 = static_cast<long>(w.grid.nx) * t / w.nthreads;
        const long x1 = static_cast<long>(w.grid.nx) * (t + 1) / w.nthreads;
        w.slabs[t].resize(static_cast<std::size_t>(x1 - x0 + pad) * plane);
    }
}

void pme_check_parameters(const Box& box, PmeGrid grid, int order, double beta, double epsilon_r) {
    if (order < 4 || order > kPmeMaxOrder)
        throw std::invalid_argument("Pme: order must be 4, 5 or 6, got " + std::to_string(order));
    for (int n : {grid.nx, grid.ny, grid.nz})
        if (n < 2 * order)
            throw std::invalid_argument("Pme: grid dimension " + std::to_string(n) + " below 2*order = " + std::to_string(2 * order));
    // The mesh gather indexes the grid with 32-bit lane offsets (hardware gathers).
    if (static_cast<long long>(grid.nx) * grid.ny * grid.nz > INT_MAX)
        throw std::invalid_argument("Pme: grid " + std::to_string(grid.nx) + "x" + std::to_string(grid.ny) + "x" +
                                    std::to_string(grid.nz) + " has more than 2^31 points");
    for (double l : box.lengths)
        if (!(l > 0)) throw std::invalid_argument("Pme: box lengths must be positive");
    if (!(beta > 0)) throw std::invalid_argument("Pme: beta must be positive");
    if (!(epsilon_r > 0)) throw std::invalid_argument("Pme: epsilon_r must be positive");
}

void pme_tabulate_frequencies(PmeWorkspace& w) {
    const int dims[3] = {w.grid.nx, w.grid.ny, w.grid.nz};
    for (int a = 0; a < 3; ++a) {
        w.bmod[a] = bspline_moduli(dims[a], w.order);
        w.mvec[a].resize(dims[a]);
        for (int k = 0; k < dims[a]; ++k) w.mvec[a][k] = (k <= dims[a] / 2 ? k : k - dims[a]) / w.box.lengths[a];
    }
}

Pme::Pme(const Box& box, PmeGrid grid, int order, double beta, double epsilon_r, int num_threads, SimdLevel simd)
    : impl_(nullptr), grid_(grid), order_(order) {
    pme_check_parameters(box, grid, order, beta, epsilon_r);

    auto impl = std::make_unique<Impl>();
    impl->box = box;
    impl->grid = grid;
    impl->order = order;
    impl->beta = beta;
    impl->prefactor = units::kCoulomb / epsilon_r;
    impl->nthreads = num_threads > 0 ? num_threads : default_thread_count();
    impl->fft_threads = num_threads;
    pme_allocate_and_plan(*impl);

    pme_tabulate_frequencies(*impl);
    pme_tabulate_influence(*impl);
    impl->thread_acc.assign(static_cast<std::size_t>(impl->nthreads) * 10, 0.0);
    impl->mesh = pme_mesh_kernels(simd == SimdLevel::Auto ? SimdLevel::None : simd);
    pme_allocate_slabs(*impl);
    impl_ = impl.release();
}

Pme::~Pme() { delete impl_; }

void Pme::use_reference_path(bool on) {
    PmeWorkspace& w = *impl_;
    w.reference_path = on;
    if (on)
        pme_allocate_reference_copies(w);
    else
        pme_allocate_slabs(w);
}

void Pme::set_thread_waits(ThreadWaits* waits) { impl_->waits = waits; }

void Pme::set_thread_balance(bool on) {
    for (ThreadShares* s : {&impl_->spline_shares, &impl_->plane_shares, &impl_->gather_shares})
        s->reset(impl_->nthreads, on);
    // A thread's planes then vary from call to call; its slab grows when they
    // exceed its largest count so far (pme_spread.cpp), not to a whole grid per
    // thread up front.
}

double Pme::compute(std::size_t n, const double* x, const double* y, const double* z, const double* q, float* fx,
                    float* fy, float* fz, double* virial) {
    const double* pos[3] = {x, y, z};
    return run(n, pos, q, fx, fy, fz, true, virial);
}

void Pme::compute_forces(std::size_t n, const double* x, const double* y, const double* z, const double* q, float* fx,
                         float* fy, float* fz) {
    const double* pos[3] = {x, y, z};
    run(n, pos, q, fx, fy, fz, false, nullptr);
}

double Pme::run(std::size_t n, const double* const pos[3], const double* q, float* fx, float* fy, float* fz,
                bool energy_wanted, double* virial) {
    PmeWorkspace& w = *impl_;

    auto t0 = std::chrono::steady_clock::now();
    pme_spread(w, n, pos, q);
    times_.spread += seconds_since(t0);

    t0 = std::chrono::steady_clock::now();
    pme_fft_forward(w);
    times_.fft += seconds_since(t0);

    t0 = std::chrono::steady_clock::now();
    double energy = 0.0;
    if (energy_wanted)
        energy = pme_solve(w, virial);
    else
        pme_solve_forces_only(w);
    times_.solve += seconds_since(t0);

    t0 = std::chrono::steady_clock::now();
    pme_fft_backward(w);  // real now holds phi
    times_.fft += seconds_since(t0);

    t0 = std::chrono::steady_clock::now();
    pme_gather(w, n, q, fx, fy, fz);
    times_.gather += seconds_since(t0);
    return energy;
}

}  // namespace mdcore
