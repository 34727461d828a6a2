#pragma once
// Smooth PME with its mesh decomposed in x-slabs over the ranks of a communicator
// (for domain decomposition: --npme 0, and among the PME-only ranks). Every rank passes its own atoms, any
// atoms anywhere; each spreads them onto a local grid (the serial Pme's mesh
// kernels), the touched planes go to their slab owners (pme_plane_exchange.h), the
// distributed FFT (pme_slab_fft.h) and the solve run on the slabs, the potential
// comes back the same way and each rank gathers forces on its own atoms.
#include <mpi.h>

#include <memory>

#include "domdec/mesh_solver.h"
#include "mdcore/system.h"
#include "pme/pme.h"

namespace mdcore {

struct ParallelPmeTimes {
    PmeStageTimes stages;  // fft includes the transposes
    double exchange = 0;   // grid-overlap exchanges and the energy/virial reduction, seconds
    long planes_sent = 0;  // x-planes sent by the exchanges, accumulated
};

class ParallelPmeMesh : public MeshSolver {
public:
    // Collective over comm (duplicated, so its messages never meet the caller's).
    // Throws std::invalid_argument for the serial Pme's bad parameters and for more
    // ranks than grid.nx or grid.ny. threads: OpenMP threads of spread/solve/gather.
    // simd: the level of the spread and gather kernels (pme_mesh_kernels.h; Auto
    // means None, as for Pme).
    ParallelPmeMesh(MPI_Comm comm, const Box& box, PmeGrid grid, int order, double beta, double epsilon_r, int threads,
                    SimdLevel simd = SimdLevel::None);
    ~ParallelPmeMesh() override;
    ParallelPmeMesh(const ParallelPmeMesh&) = delete;
    ParallelPmeMesh& operator=(const ParallelPmeMesh&) = delete;

    // Collective. Forces are added for this rank's n atoms; energy and virial (the
    // serial Pme's convention) are the sums over all ranks' atoms, on every rank.
    MeshResult compute(std::size_t n, const double* x, const double* y, const double* z, const double* q, float* fx,
                       float* fy, float* fz) override;

    const ParallelPmeTimes& times() const;
    PmeStageTimes stage_times() const override { return times().stages; }
    void set_energy_wanted(bool wanted) override;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace mdcore
