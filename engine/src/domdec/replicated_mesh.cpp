#include "domdec/replicated_mesh.h"

#include <algorithm>

namespace mdcore {

ReplicatedMesh::ReplicatedMesh(const Box& box, PmeGrid grid, int order, double beta, double epsilon_r, int threads,
                               SimdLevel simd, MPI_Comm pp_comm)
    : pme_(box, grid, order, beta, epsilon_r, threads, simd), comm_(pp_comm) {}

MeshResult ReplicatedMesh::compute(std::size_t n, const double* x, const double* y, const double* z, const double* q,
                                   float* fx, float* fy, float* fz) {
    int size = 1, rank = 0;
    MPI_Comm_size(comm_, &size);
    MPI_Comm_rank(comm_, &rank);
    // One gather of x, y, z, q interleaved: every rank gets every atom in rank order.
    const int mine = static_cast<int>(4 * n);
    counts_.resize(size);
    displs_.resize(size);
    MPI_Allgather(&mine, 1, MPI_INT, counts_.data(), 1, MPI_INT, comm_);
    int total = 0;
    for (int r = 0; r < size; ++r) {
        displs_[r] = total;
        total += counts_[r];
    }
    mine_.resize(mine);
    for (std::size_t i = 0; i < n; ++i) {
        mine_[4 * i] = x[i];
        mine_[4 * i + 1] = y[i];
        mine_[4 * i + 2] = z[i];
        mine_[4 * i + 3] = q[i];
    }
    all_.resize(total);
    MPI_Allgatherv(mine_.data(), mine, MPI_DOUBLE, all_.data(), counts_.data(), displs_.data(), MPI_DOUBLE, comm_);
    const std::size_t natoms = static_cast<std::size_t>(total / 4);
    x_.resize(natoms);
    y_.resize(natoms);
    z_.resize(natoms);
    q_.resize(natoms);
    for (std::size_t i = 0; i < natoms; ++i) {
        x_[i] = all_[4 * i];
        y_[i] = all_[4 * i + 1];
        z_[i] = all_[4 * i + 2];
        q_[i] = all_[4 * i + 3];
    }
    fx_.assign(natoms, 0.0f);
    fy_.assign(natoms, 0.0f);
    fz_.assign(natoms, 0.0f);
    MeshResult r;
    // Every rank computes the same energy from the same input: taken once, not summed.
    r.energy = pme_.compute(natoms, x_.data(), y_.data(), z_.data(), q_.data(), fx_.data(), fy_.data(), fz_.data(),
                            r.virial.data());
    const std::size_t first = static_cast<std::size_t>(displs_[rank] / 4);
    for (std::size_t i = 0; i < n; ++i) {
        fx[i] += fx_[first + i];
        fy[i] += fy_[first + i];
        fz[i] += fz_[first + i];
    }
    return r;
}

}  // namespace mdcore
