// The slab-decomposed smooth-PME mesh (parallel_pme_mesh.h): spread -> exchange ->
// distributed FFT -> solve -> inverse FFT -> exchange back -> gather.
#include "pme/parallel_pme_mesh.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <vector>

#include "mdcore/units.h"
#include "pme/pme_plane_exchange.h"
#include "pme/pme_slab_fft.h"
#include "pme/pme_workspace.h"
#include "util/thread_count.h"

namespace mdcore {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

MPI_Comm duplicate(MPI_Comm comm) {
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_Comm_dup(comm, &dup);
    return dup;
}

}  // namespace

struct ParallelPmeMesh::Impl {
    Impl(MPI_Comm c, PmeGrid grid, int threads) : comm(c), fft(c, grid, threads), exchange(c, grid) {}
    ~Impl() {
        int finalized = 0;
        MPI_Finalized(&finalized);
        if (!finalized) MPI_Comm_free(&comm);
    }

    MPI_Comm comm;
    PmeWorkspace local;  // this rank's whole-size grid: its spread, then the potential it gathers from
    PmeSlabFft fft;
    PmePlaneExchange exchange;
    std::vector<double> influence;  // G(m) in the transposed layout of fft.transform()
    std::vector<char> touched;      // x-planes this rank's atoms touch
    ParallelPmeTimes times;
    std::vector<float> influence_f;  // the same in float, for the solve without energy
    bool want_energy = true;         // the energy and virial sums cost more than the rest of the solve
};

namespace {

// The influence function on this rank's part of the transposed transform.
void tabulate_slab_influence(const PmeWorkspace& w, const PmeSlabFft& fft, std::vector<double>& influence) {
    const int nx = w.grid.nx, nzc = fft.nzc();
    influence.assign(static_cast<std::size_t>(fft.y_count()) * nx * nzc, 0.0);
    for (int yl = 0; yl < fft.y_count(); ++yl) {
        const int y = fft.y0() + yl;
        for (int x = 0; x < nx; ++x)
            for (int kz = 0; kz < nzc; ++kz) {
                if (x == 0 && y == 0 && kz == 0) continue;  // m = 0 left out (tin-foil)
                influence[(static_cast<std::size_t>(yl) * nx + x) * nzc + kz] =
                    pme_influence_at(w.prefactor, w.beta, w.box.volume(), w.mvec[0][x], w.mvec[1][y],
                                     kz / w.box.lengths[2], w.bmod[0][x], w.bmod[1][y], w.bmod[2][kz]);
            }
    }
}

// Solve on this rank's lines; returns energy + 6 virial sums of this rank's modes.
PmeSolveSums solve_slab(PmeWorkspace& w, PmeSlabFft& fft, const std::vector<double>& influence, bool want_virial) {
    const int nx = w.grid.nx, nzc = fft.nzc();
    const long lines = static_cast<long>(fft.y_count()) * nx;
    std::fill(w.thread_acc.begin(), w.thread_acc.end(), 0.0);
#pragma omp parallel num_threads(w.nthreads)
    {
        PmeSolveSums sums;
#pragma omp for schedule(static)
        for (long line = 0; line < lines; ++line) {
            const int yl = static_cast<int>(line / nx), x = static_cast<int>(line % nx);
            pme_solve_line(fft.transform() + line * nzc, influence.data() + line * nzc, w.grid.nz, nzc, w.mvec[0][x],
                           w.mvec[1][fft.y0() + yl], w.box.lengths[2], w.beta, want_virial, sums);
        }
        double* acc = &w.thread_acc[static_cast<std::size_t>(omp_get_thread_num()) * 10];
        acc[0] = sums.energy;
        for (int c = 0; c < 6; ++c) acc[1 + c] = sums.v[c];
    }
    PmeSolveSums total;  // in thread order: reproducible for a thread count
    for (int t = 0; t < w.nthreads; ++t) {
        total.energy += w.thread_acc[t * 10];
        for (int c = 0; c < 6; ++c) total.v[c] += w.thread_acc[t * 10 + 1 + c];
    }
    return total;
}

}  // namespace

ParallelPmeMesh::ParallelPmeMesh(MPI_Comm comm, const Box& box, PmeGrid grid, int order, double beta, double epsilon_r,
                                 int threads, SimdLevel simd) {
    pme_check_parameters(box, grid, order, beta, epsilon_r);
    const int nthreads = threads > 0 ? threads : default_thread_count();
    impl_ = std::make_unique<Impl>(duplicate(comm), grid, nthreads);
    PmeWorkspace& w = impl_->local;
    w.box = box;
    w.grid = grid;
    w.order = order;
    w.beta = beta;
    w.prefactor = units::kCoulomb / epsilon_r;
    w.nthreads = nthreads;
    w.nzc = grid.nz / 2 + 1;
    w.nreal = static_cast<std::size_t>(grid.nx) * grid.ny * grid.nz;
    w.real = static_cast<float*>(fftwf_malloc(sizeof(float) * w.nreal));
    if (!w.real) throw std::runtime_error("PME mesh: allocation of the local grid failed");
    // The serial Pme's default spread and gather: the mesh kernels on per-thread
    // slabs, folded into this rank's whole-size grid.
    w.mesh = pme_mesh_kernels(simd == SimdLevel::Auto ? SimdLevel::None : simd);
    pme_tabulate_frequencies(w);
    w.thread_acc.assign(static_cast<std::size_t>(w.nthreads) * 10, 0.0);
    pme_allocate_slabs(w);
    tabulate_slab_influence(w, impl_->fft, impl_->influence);
    impl_->influence_f.assign(impl_->influence.begin(), impl_->influence.end());
}

ParallelPmeMesh::~ParallelPmeMesh() = default;

const ParallelPmeTimes& ParallelPmeMesh::times() const { return impl_->times; }

void ParallelPmeMesh::set_energy_wanted(bool wanted) { impl_->want_energy = wanted; }

MeshResult ParallelPmeMesh::compute(std::size_t n, const double* x, const double* y, const double* z, const double* q,
                                    float* fx, float* fy, float* fz) {
    Impl& m = *impl_;
    PmeWorkspace& w = m.local;
    PmeStageTimes& st = m.times.stages;
    const double* pos[3] = {x, y, z};

    auto t0 = std::chrono::steady_clock::now();
    pme_spread(w, n, pos, q);
    // An atom with first x-plane b spreads onto planes b, b-1, ..., b-order+1 (mod nx).
    const int nx = w.grid.nx;
    m.touched.assign(nx, 0);
    for (std::size_t i = 0; i < n; ++i)
        if (q[i] != 0.0) {
            const int b = w.mesh_base[pme_base_index(i, 0)];
            for (int j = 0; j < w.order; ++j) m.touched[b - j < 0 ? b - j + nx : b - j] = 1;
        }
    st.spread += seconds_since(t0);

    t0 = std::chrono::steady_clock::now();
    m.exchange.set_touched_planes(m.touched);
    m.exchange.add_into_own_planes(w.real);
    m.times.planes_sent += m.exchange.planes_sent();
    m.times.exchange += seconds_since(t0);

    t0 = std::chrono::steady_clock::now();
    float* own_planes = w.real + static_cast<std::size_t>(m.fft.x0()) * w.grid.ny * w.grid.nz;
    m.fft.forward(own_planes);
    st.fft += seconds_since(t0);

    t0 = std::chrono::steady_clock::now();
    double sums[7] = {};
    MPI_Request reduction = MPI_REQUEST_NULL;
    if (m.want_energy) {
        const PmeSolveSums local = solve_slab(w, m.fft, m.influence, true);
        st.solve += seconds_since(t0);
        t0 = std::chrono::steady_clock::now();
        sums[0] = local.energy;
        for (int c = 0; c < 6; ++c) sums[1 + c] = local.v[c];
        MPI_Iallreduce(MPI_IN_PLACE, sums, 7, MPI_DOUBLE, MPI_SUM, m.comm, &reduction);  // overlaps the inverse FFT
        m.times.exchange += seconds_since(t0);
    } else {
        // The product alone, in float, as Pme::compute_forces: no sums, no reduction.
        float* c = &m.fft.transform()[0][0];
        const float* g = m.influence_f.data();
        const long count = static_cast<long>(m.influence_f.size());
#pragma omp parallel for num_threads(w.nthreads) schedule(static)
        for (long k = 0; k < count; ++k) {
            c[2 * k] *= g[k];
            c[2 * k + 1] *= g[k];
        }
        st.solve += seconds_since(t0);
    }

    t0 = std::chrono::steady_clock::now();
    m.fft.backward(own_planes);
    st.fft += seconds_since(t0);

    t0 = std::chrono::steady_clock::now();
    m.exchange.return_to_touched_planes(w.real);
    MPI_Wait(&reduction, MPI_STATUS_IGNORE);
    m.times.exchange += seconds_since(t0);

    t0 = std::chrono::steady_clock::now();
    pme_gather(w, n, q, fx, fy, fz);
    st.gather += seconds_since(t0);

    MeshResult result;
    result.energy = sums[0];
    pme_virial_from_sums(sums + 1, result.virial.data());
    return result;
}

}  // namespace mdcore
