#pragma once
// The separate-PME-rank service (`--npme K`), implemented with the distributed
// mesh (ddpme). Declared weak: a build without it links, and
// pme_rank_service_linked() says whether it is there, so the layout check can
// refuse --npme K > 0 before the run instead of failing at link or run time.
#ifdef MDCORE_HAVE_MPI
#include <mpi.h>

#include "domdec/pme_rank_setup.h"
#endif

namespace mdcore {

#ifdef MDCORE_HAVE_MPI
// The loop a PME-only rank runs until the PP ranks say stop.
[[gnu::weak]] void run_pme_rank(MPI_Comm world, MPI_Comm pme_comm, const PmeRankSetup& setup);
#endif

bool pme_rank_service_linked();

}  // namespace mdcore
