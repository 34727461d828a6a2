#pragma once
// The one feasibility check sweeps, predictions and tuning share: whether a
// (system, config) point can run on a machine. It is mdcore's own resolve_config
// on a stand-in of the system (every rule mdcore applies to the config: rc x
// pme_scale below half the box, rlist limits, PME order and accuracy, memory)
// plus the machine's limits (threads, SIMD levels; ranks and GPUs join here).
#include <memory>
#include <string>
#include <vector>

#include "mdcore/engine.h"
#include "mdtune/core/config.h"
#include "mdtune/core/trial.h"

namespace mdtune::inline core {

// What a machine offers, for the machine checks.
struct HardwareCaps {
    int cores = 1;                         // hardware threads usable
    bool has_gpu = false;
    std::vector<std::string> simd_levels;  // mdcore levels it runs, e.g. {"none","avx2","avx512"}
};

// A generated system as mdcore run --system builds it, without the water seam
// relaxation (which moves atoms but changes neither box nor composition). Built
// once per descriptor and shared; throws std::invalid_argument for an unknown
// kind or no atoms.
std::shared_ptr<const mdcore::System> stand_in_system(const SystemDescriptor& system);

// The settings mdcore resolves `config` to on the stand-in, for a machine whose
// SIMD level is `simd` (Auto: the config's or None): cluster default and
// threads follow the target, not this machine. Throws std::invalid_argument
// (mdcore's message) when mdcore would refuse the config.
mdcore::EffectiveConfig resolve_on_stand_in(const SystemDescriptor& system, const Config& config,
                                            mdcore::SimdLevel simd, int threads);

// Why the point cannot run on `hw`, "" when it can.
std::string infeasible_reason(const SystemDescriptor& system, const Config& config, const HardwareCaps& hw);

}  // namespace mdtune::core
