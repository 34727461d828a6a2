#pragma once
// Feeds a System and a cluster shape into the Verlet-buffer estimate.
#include "mdcore/run_config.h"
#include "mdcore/system.h"
#include "pairlist/verlet_buffer.h"

namespace mdcore {

VerletBufferParams verlet_buffer_params(const System& system, ClusterShape shape);

}  // namespace mdcore
