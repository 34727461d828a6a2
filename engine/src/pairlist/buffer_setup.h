#pragma once
// Feeds a system (its summary: one class per mass, type and charge) and a cluster shape into the Verlet-buffer estimate.
#include "mdcore/run_config.h"
#include "mdcore/system_summary.h"
#include "pairlist/verlet_buffer.h"

namespace mdcore {

// rc and ewald_beta as used by the run (PME tuning scales rc; beta 0 = no Coulomb).
VerletBufferParams verlet_buffer_params(const SystemSummary& system, ClusterShape shape, double rc, double ewald_beta);

}  // namespace mdcore
