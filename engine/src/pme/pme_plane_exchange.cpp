// Grid-overlap exchange of the slab-decomposed PME mesh (pme_plane_exchange.h).
#include "pme/pme_plane_exchange.h"

#include <algorithm>
#include <climits>
#include <stdexcept>

#include "pme/pme_slabs.h"

namespace mdcore {

PmePlaneExchange::PmePlaneExchange(MPI_Comm comm, PmeGrid grid) : comm_(comm), grid_(grid) {
    int rank = 0;
    MPI_Comm_size(comm, &nranks_);
    MPI_Comm_rank(comm, &rank);
    x0_ = pme_slab_begin(grid.nx, rank, nranks_);
    nxl_ = pme_slab_size(grid.nx, rank, nranks_);
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

void PmePlaneExchange::sum_into_slab(const float* full_grid, float* slab) {
    MPI_Alltoallv(full_grid, to_counts_.data(), to_displs_.data(), MPI_FLOAT, received_.data(), from_counts_.data(),
                  from_displs_.data(), MPI_FLOAT, comm_);
    std::fill(slab, slab + static_cast<std::size_t>(nxl_) * plane_, 0.0f);
    // Sources in rank order: the sum depends only on the atoms' distribution.
    for (int s = 0; s < nranks_; ++s) {
        const float* in = received_.data() + from_displs_[s];
        float* out = slab + static_cast<std::size_t>(from_lo_[s] - x0_) * plane_;
        for (int k = 0; k < from_counts_[s]; ++k) out[k] += in[k];
    }
}

void PmePlaneExchange::return_from_slab(const float* slab, float* full_grid) {
    // The reverse of sum_into_slab: each source gets back the planes it sent.
    MPI_Alltoallv(slab, from_counts_.data(), slab_displs_.data(), MPI_FLOAT, full_grid, to_counts_.data(),
                  to_displs_.data(), MPI_FLOAT, comm_);
}

long PmePlaneExchange::planes_sent() const {
    long planes = 0;
    for (int d = 0; d < nranks_; ++d) planes += to_hi_[d] - to_lo_[d];
    return planes;
}

}  // namespace mdcore
