#pragma once
// Feeds a System and a cluster shape into the Verlet-buffer estimate.
#include "mdcore/run_config.h"
#include "mdcore/system.h"
#include "pairlist/verlet_buffer.h"

namespace mdcore {

// rc and ewald_beta as used by the run (PME tuning scales rc; beta 0 = no Coulomb).
VerletBufferParams verlet_buffer_params(const System& system, ClusterShape shape, double rc, double ewald_beta);

}  // namespace mdcore
