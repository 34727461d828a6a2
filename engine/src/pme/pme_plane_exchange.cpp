// Grid-overlap exchange of the slab-decomposed PME mesh (pme_plane_exchange.h).
#include "pme/pme_plane_exchange.h"

#include <algorithm>
#include <climits>
#include <stdexcept>

#include "pme/pme_slabs.h"

namespace mdcore {

PmePlaneExchange::PmePlaneExchange(MPI_Comm comm, PmeGrid grid) : comm_(comm), grid_(grid) {
    MPI_Comm_size(comm, &nranks_);
    MPI_Comm_rank(comm, &rank_);
    x0_ = pme_slab_begin(grid.nx, rank_, nranks_);
    nxl_ = pme_slab_size(grid.nx, rank_, nranks_);
    // MPI counts and displacements are int: the whole grid must fit.
    if (static_cast<long long>(grid.nx) * grid.ny * grid.nz > INT_MAX)
        throw std::invalid_argument("PME mesh: a grid above 2^31 points cannot be exchanged with MPI int counts");
    plane_ = grid.ny * grid.nz;
    for (auto* v : {&to_lo_, &to_hi_, &from_lo_, &from_hi_, &to_counts_, &to_displs_, &from_counts_, &from_displs_,
                    &slab_displs_})
        v->assign(nranks_, 0);
}

void PmePlaneExchange::set_touched_planes(const std::vector<char>& touched) {
    for (int d = 0; d < nranks_; ++d) {
        const int b = pme_slab_begin(grid_.nx, d, nranks_), e = pme_slab_begin(grid_.nx, d + 1, nranks_);
        int lo = e, hi = b;
        for (int x = b; x < e; ++x)
            if (touched[x]) lo = std::min(lo, x), hi = x + 1;
        if (lo >= hi) lo = hi = b;  // nothing for d
        to_lo_[d] = lo, to_hi_[d] = hi;
    }
    std::vector<int> mine(2 * nranks_), theirs(2 * nranks_);
    for (int d = 0; d < nranks_; ++d) mine[2 * d] = to_lo_[d], mine[2 * d + 1] = to_hi_[d];
    MPI_Alltoall(mine.data(), 2, MPI_INT, theirs.data(), 2, MPI_INT, comm_);
    int received = 0;
    for (int d = 0; d < nranks_; ++d) {
        // The own slab's planes stay where they are: no range to or from this rank.
        if (d == rank_) to_lo_[d] = to_hi_[d] = theirs[2 * d] = theirs[2 * d + 1] = x0_;
        from_lo_[d] = theirs[2 * d], from_hi_[d] = theirs[2 * d + 1];
        to_counts_[d] = (to_hi_[d] - to_lo_[d]) * plane_;
        to_displs_[d] = to_lo_[d] * plane_;
        from_counts_[d] = (from_hi_[d] - from_lo_[d]) * plane_;
        from_displs_[d] = received;
        slab_displs_[d] = (from_lo_[d] - x0_) * plane_;
        received += from_counts_[d];
    }
    received_.resize(received);
}

void PmePlaneExchange::add_into_own_planes(float* full_grid) {
    MPI_Alltoallv(full_grid, to_counts_.data(), to_displs_.data(), MPI_FLOAT, received_.data(), from_counts_.data(),
                  from_displs_.data(), MPI_FLOAT, comm_);
    // Onto this rank's own spread, the other sources in rank order: the sum depends
    // only on the atoms' distribution.
    for (int s = 0; s < nranks_; ++s) {
        const float* in = received_.data() + from_displs_[s];
        float* out = full_grid + static_cast<std::size_t>(from_lo_[s]) * plane_;
        for (int k = 0; k < from_counts_[s]; ++k) out[k] += in[k];
    }
}

void PmePlaneExchange::return_to_touched_planes(float* full_grid) {
    // The reverse of add_into_own_planes: each source gets back the planes it sent.
    // Sent from the own planes, received elsewhere in the same grid: disjoint buffers.
    const float* own = full_grid + static_cast<std::size_t>(x0_) * plane_;
    MPI_Alltoallv(own, from_counts_.data(), slab_displs_.data(), MPI_FLOAT, full_grid, to_counts_.data(),
                  to_displs_.data(), MPI_FLOAT, comm_);
}

long PmePlaneExchange::planes_sent() const {
    long planes = 0;
    for (int d = 0; d < nranks_; ++d) planes += to_hi_[d] - to_lo_[d];
    return planes;
}

}  // namespace mdcore
