// PP side of the PME-only ranks (pme_rank_mesh.h).
#include "domdec/pme_rank_mesh.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <stdexcept>
#include <string>

#include "domdec/pme_rank_protocol.h"

namespace mdcore {

void check_pme_rank_layout(int world_size, int npme) {
    const int n_pp = world_size - npme;
    if (npme < 1 || n_pp < 1 || npme > n_pp)
        throw std::invalid_argument("PME ranks: --npme " + std::to_string(npme) + " with " +
                                    std::to_string(world_size) + " ranks leaves " + std::to_string(n_pp) +
                                    " PP ranks; npme must lie in [1, number of PP ranks]");
}

PmeRankMesh::PmeRankMesh(MPI_Comm world, int npme) : world_(world) {
    int size = 0, rank = 0;
    MPI_Comm_size(world, &size);
    MPI_Comm_rank(world, &rank);
    check_pme_rank_layout(size, npme);
    const int n_pp = size - npme;
    if (rank >= n_pp)
        throw std::invalid_argument("PmeRankMesh: world rank " + std::to_string(rank) + " is a PME rank (the last " +
                                    std::to_string(npme) + " of " + std::to_string(size) + ")");
    pme_rank_ = n_pp + pme_index_serving(rank, n_pp, npme);
    std::fill(std::begin(requests_), std::end(requests_), MPI_REQUEST_NULL);
}

PmeRankMesh::~PmeRankMesh() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    if (pending_) MPI_Waitall(3, requests_, MPI_STATUSES_IGNORE);  // the answer to an unfinished step
    pending_ = false;
    if (!stopped_) stop();
}

void PmeRankMesh::begin(std::size_t n, const double* x, const double* y, const double* z, const double* q) {
    if (pending_) throw std::logic_error("PmeRankMesh: begin() called twice without finish()");
    if (stopped_) throw std::logic_error("PmeRankMesh: begin() after stop()");
    if (n > static_cast<std::size_t>(INT_MAX / 4))  // MPI counts are int
        throw std::invalid_argument("PmeRankMesh: " + std::to_string(n) + " atoms on one rank exceed MPI's int counts");
    n_ = n;
    send_.resize(4 * n);
    std::copy(x, x + n, send_.begin());
    std::copy(y, y + n, send_.begin() + n);
    std::copy(z, z + n, send_.begin() + 2 * n);
    std::copy(q, q + n, send_.begin() + 3 * n);
    forces_.resize(3 * n);
    const int count = static_cast<int>(4 * n);
    MPI_Irecv(forces_.data(), static_cast<int>(3 * n), MPI_FLOAT, pme_rank_, kPmeTagForces, world_, &requests_[1]);
    MPI_Irecv(result_, kPmeResultDoubles, MPI_DOUBLE, pme_rank_, kPmeTagResult, world_, &requests_[2]);
    // The coordinates leave before the PP work starts. Through Open MPI's
    // copy-in/copy-out shared memory (mpi_world.cpp) a large message moves only
    // while its sender is inside MPI, so one left in flight would reach the PME
    // rank at finish(), after the nonbonded work: water-24k 1 PP + 1 PME rank ran
    // at 10.6 ms/step that way. The PME rank is already waiting for it.
    MPI_Isend(send_.data(), count, MPI_DOUBLE, pme_rank_, kPmeTagCoordinates, world_, &requests_[0]);
    MPI_Wait(&requests_[0], MPI_STATUS_IGNORE);
    pending_ = true;
}

MeshResult PmeRankMesh::finish(float* fx, float* fy, float* fz) {
    if (!pending_) throw std::logic_error("PmeRankMesh: finish() without begin()");
    const auto t0 = std::chrono::steady_clock::now();
    MPI_Waitall(3, requests_, MPI_STATUSES_IGNORE);
    wait_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    pending_ = false;
    for (std::size_t i = 0; i < n_; ++i) {
        fx[i] += forces_[i];
        fy[i] += forces_[n_ + i];
        fz[i] += forces_[2 * n_ + i];
    }
    MeshResult r;
    r.energy = result_[0];
    std::copy(result_ + 1, result_ + kPmeResultDoubles, r.virial.begin());
    return r;
}

MeshResult PmeRankMesh::compute(std::size_t n, const double* x, const double* y, const double* z, const double* q,
                                float* fx, float* fy, float* fz) {
    begin(n, x, y, z, q);
    return finish(fx, fy, fz);
}

void PmeRankMesh::stop() {
    if (stopped_) return;
    if (pending_) throw std::logic_error("PmeRankMesh: stop() while a step is unfinished");
    MPI_Send(nullptr, 0, MPI_DOUBLE, pme_rank_, kPmeTagStop, world_);
    stopped_ = true;
}

}  // namespace mdcore
