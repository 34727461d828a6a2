#pragma once
// The grid-overlap exchange of the slab-decomposed PME mesh. Each rank spreads its own
// atoms (any atoms, anywhere) onto a whole-size local grid; per owner rank, it sends
// the one contiguous range of x-planes that its atoms touched inside the owner's slab,
// and after the solve it receives the potential of that same range back for gather.
// The own slab's planes never move: the distributed FFT runs on them in place.
//
// Why ranges of touched planes rather than a reduce-scatter of whole slabs (for 2-8
// ranks, where both are one all-to-all): a reduce-scatter always sends (P-1)/P of the
// grid per rank, mostly zeros, whereas a range is only what the atoms touched. When
// the domain decomposition cuts x as the slabs do, a rank sends its neighbour just
// order-1 planes; for the 24,153-atom water box (54^3 grid at 0.12 nm, 11.7 KB a
// plane) at 4 ranks that is 35 KB each way per step against 472 KB. With atoms
// scattered at random (or a DD that does not cut x) the ranges grow to whole slabs
// and the volume becomes the reduce-scatter's, never more. MPI_Alltoallv sends
// straight from the local grid (the ranges are contiguous there): no packing.
#include <mpi.h>

#include <vector>

#include "pme/pme.h"

namespace mdcore {

class PmePlaneExchange {
public:
    PmePlaneExchange(MPI_Comm comm, PmeGrid grid);

    // Collective: touched[x] != 0 for each x-plane this rank's atoms spread onto. Sets
    // the ranges the next two calls move.
    void set_touched_planes(const std::vector<char>& touched);
    // Collective: this rank's own x-planes of full_grid (its spread, zero where it
    // spread nothing) get every other rank's contributions added; of the other
    // planes only the touched ones are read.
    void add_into_own_planes(float* full_grid);
    // Collective: the touched planes of full_grid outside the own slab get the
    // owners' values (the own planes already hold them).
    void return_to_touched_planes(float* full_grid);

    // Planes this rank sent to other ranks in the last exchange.
    long planes_sent() const;

private:
    MPI_Comm comm_;
    int nranks_ = 1, rank_ = 0, x0_ = 0, nxl_ = 0;
    PmeGrid grid_;
    int plane_ = 0;  // floats per x-plane
    // Per rank d: my touched planes [lo, hi) inside d's slab, and (from d) d's inside mine.
    std::vector<int> to_lo_, to_hi_, from_lo_, from_hi_;
    // In floats; slab_displs_: where each source's range starts in my slab.
    std::vector<int> to_counts_, to_displs_, from_counts_, from_displs_, slab_displs_;
    std::vector<float> received_;
};

}  // namespace mdcore
