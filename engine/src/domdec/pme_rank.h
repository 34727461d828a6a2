#pragma once
// The PME side of PME-only ranks (--npme K): the loop a PME rank runs
// instead of MD. Each step it receives the coordinates and charges of the PP ranks it
// serves (pme_rank_protocol.h), computes the reciprocal-space part with the other PME
// ranks on all of them (ParallelPmeMesh over pme_comm), and sends back each PP rank's
// forces with the global energy and virial. It returns once every PP rank it serves
// has sent the stop message (PmeRankMesh::stop), on all PME ranks together.
#include <mpi.h>

#include "domdec/pme_rank_setup.h"

namespace mdcore {

// world: PP ranks 0 .. n_pp-1 then the PME ranks; pme_comm: the PME ranks only, in
// world order. Throws std::invalid_argument when the layout does not match
// setup.n_pp_ranks or the grid cannot be shared (ParallelPmeMesh), and
// std::runtime_error when some PP ranks stop while others still send coordinates. An
// exception leaves the other ranks waiting for messages: callers MPI_Abort on it.
void run_pme_rank(MPI_Comm world, MPI_Comm pme_comm, const PmeRankSetup& setup);

}  // namespace mdcore
