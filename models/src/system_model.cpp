// Systems as the models see them: features of the system's summary
// (mdtune/feasibility.h) and mdcore's own resolve_config on it, so the rlist,
// pruning radius and PME grid of a config are exactly what mdcore computes.
#include <stdexcept>

#include "mdcore/engine.h"
#include "mdtune/core/feasibility.h"
#include "mdtune/models/features.h"

namespace mdtune::models {

SystemModel::SystemModel(const SystemDescriptor& system) : descriptor_(system) {
    const std::shared_ptr<const mdcore::SystemSummary> summary = system_summary(system);
    const mdcore::SystemSummary& sys = *summary;
    SystemFeatures& f = features_;
    f.kind = system.kind_name();
    f.natoms = sys.natoms;
    f.volume = sys.box.volume();
    f.box = {sys.box.lengths[0], sys.box.lengths[1], sys.box.lengths[2]};
    f.number_density = sys.number_density();
    f.charged_fraction = f.natoms ? sys.charged_atoms() / static_cast<double>(f.natoms) : 0.0;
    f.rc = sys.rc;
    f.dt = sys.dt;
    f.constraints = sys.settles;
    f.distance_constraints = sys.distance_constraints;
    f.bonded_interactions = sys.bonded_interactions;
}

mdcore::EffectiveConfig SystemModel::resolve(const Config& config, const HardwareFeatures& hw) const {
    // The target machine's SIMD level (the config's unless auto/unset) and cores.
    const auto widest = mdcore::parse_simd_level(hw.widest_simd());
    const int threads = threads_per_rank(config, hw.cores);
    return resolve_for_system(descriptor_, config, widest.value_or(mdcore::SimdLevel::None), threads,
                               mdcore::ResolveOptions{hw.this_machine});
}

}  // namespace mdtune::models
