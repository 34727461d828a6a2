#pragma once
// The PP side of PME-only ranks (--npme K, so the mesh overlaps the PP ranks' pair forces): each PP rank sends its home
// atoms' coordinates and charges to the PME rank serving it (pme_rank_protocol.h)
// and receives their reciprocal-space forces, the global energy and the virial. The
// PME side is run_pme_rank (pme_rank.h). begin() posts non-blocking sends and
// receives and returns at once, so the caller can compute its nonbonded forces
// before finish() waits; compute() is begin() then finish().
#include <mpi.h>

#include <cstddef>
#include <vector>

#include "domdec/mesh_solver.h"

namespace mdcore {

class PmeRankMesh : public MeshSolver {
public:
    // Called on every PP rank (world ranks 0 .. size-npme-1). Throws
    // std::invalid_argument when npme < 1 or npme is not below world's size, or when
    // there are more PME ranks than PP ranks, or when called on a PME rank.
    PmeRankMesh(MPI_Comm world, int npme);
    // Sends the stop message if stop() was not called (and MPI is still running).
    ~PmeRankMesh() override;
    PmeRankMesh(const PmeRankMesh&) = delete;
    PmeRankMesh& operator=(const PmeRankMesh&) = delete;

    // Copies the n atoms and posts the messages; the arrays may change afterwards.
    // Throws std::logic_error when a begin() is still unfinished or after stop().
    void begin(std::size_t n, const double* x, const double* y, const double* z, const double* q);
    // Waits for this step's answer and ADDS the forces of the n atoms of begin().
    MeshResult finish(float* fx, float* fy, float* fz);
    MeshResult compute(std::size_t n, const double* x, const double* y, const double* z, const double* q, float* fx,
                       float* fy, float* fz) override;
    // Tells the serving PME rank that the run is over; every PP rank must stop (or be
    // destroyed) for run_pme_rank to return. Idempotent.
    void stop();

    int serving_rank() const { return pme_rank_; }         // world rank of the PME rank serving this one
    double wait_seconds() const { return wait_seconds_; }  // accumulated in finish()

private:
    MPI_Comm world_;
    int pme_rank_ = -1;
    bool pending_ = false, stopped_ = false;
    std::size_t n_ = 0;
    std::vector<double> send_;   // x, y, z, q
    std::vector<float> forces_;  // fx, fy, fz
    double result_[10] = {};
    MPI_Request requests_[3];
    double wait_seconds_ = 0;
};

}  // namespace mdcore
