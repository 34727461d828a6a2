// Generated systems as the models see them: features of the shared stand-in
// (mdtune/feasibility.h) and mdcore's own resolve_config on it, so the rlist,
// pruning radius and PME grid of a config are exactly what mdcore computes.
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "mdcore/engine.h"
#include "mdtune/feasibility.h"
#include "mdtune/features.h"

namespace mdtune {

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

std::optional<mdcore::EffectiveConfig> parse_effective_config(const std::string& json) {
    if (json.empty()) return std::nullopt;
    try {
        const auto j = nlohmann::json::parse(json);
        mdcore::EffectiveConfig e;
        const auto cluster = mdcore::parse_cluster_shape(j.at("cluster").get<std::string>());
        const auto simd = mdcore::parse_simd_level(j.at("simd").get<std::string>());
        if (!cluster || !simd) return std::nullopt;
        e.cluster = *cluster;
        e.simd = *simd;
        e.nstlist = j.at("nstlist").get<int>();
        e.nstprune = j.at("nstprune").get<int>();
        e.rc = j.at("rc").get<double>();
        e.rlist = j.at("rlist").get<double>();
        e.rlist_inner = j.at("rlist_inner").get<double>();
        e.threads = j.at("threads").get<int>();
        e.dt = j.value("dt", 0.0);
        e.pme = j.value("pme", false);
        e.pme_scale = j.value("pme_scale", 1.0);
        e.pme_spacing = j.value("pme_spacing", 0.0);
        e.constraints = j.value("constraints", 0);
        if (e.pme) {
            e.pme_grid = j.at("pme_grid").get<std::array<int, 3>>();
            e.pme_order = j.at("pme_order").get<int>();
        }
        return e;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

}  // namespace mdtune
