// Generated systems as the models see them: features of the shared stand-in
// (mdtune/feasibility.h) and mdcore's own resolve_config on it, so the rlist,
// pruning radius and PME grid of a config are exactly what mdcore computes.
#include <stdexcept>

#include "mdcore/engine.h"
#include "mdtune/core/feasibility.h"
#include "mdtune/models/features.h"

namespace mdtune::models {

SystemModel::SystemModel(const SystemDescriptor& system) : descriptor_(system), system_(stand_in_system(system)) {
    const mdcore::System& sys = *system_;
    SystemFeatures& f = features_;
    f.kind = system.kind;
    f.natoms = static_cast<long>(sys.natoms());
    f.volume = sys.box.volume();
    f.number_density = sys.number_density();
    long charged = 0;
    for (double q : sys.charge) charged += q != 0.0;
    f.charged_fraction = f.natoms ? static_cast<double>(charged) / static_cast<double>(f.natoms) : 0.0;
    f.rc = sys.rc;
    f.dt = sys.dt;
    f.constraints = static_cast<long>(sys.settles.size());
}

mdcore::EffectiveConfig SystemModel::resolve(const Config& config, const HardwareFeatures& hw) const {
    // The target machine's SIMD level (the config's unless auto/unset) and cores.
    const auto widest = mdcore::parse_simd_level(hw.widest_simd());
    const int threads = static_cast<int>(config.value<long>(Param::Threads).value_or(hw.cores));
    return resolve_on_stand_in(descriptor_, config, widest.value_or(mdcore::SimdLevel::None), threads);
}

}  // namespace mdtune::models
