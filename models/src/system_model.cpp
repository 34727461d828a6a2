// Stand-ins of generated systems (built without the water relaxation run, which
// takes seconds and changes neither the box nor the composition) and mdcore's own
// resolve_config on them: the rlist, pruning radius and PME grid a config would
// get, exactly as mdcore computes them.
#include <stdexcept>

#include "mdcore/engine.h"
#include "mdcore/generators.h"
#include "mdtune/features.h"

namespace mdtune {
namespace {

bool is_water(const std::string& kind) { return kind == "water" || kind == "water-ions"; }

mdcore::System build_stand_in(const SystemDescriptor& d) {
    if (d.natoms <= 0) throw std::invalid_argument("system " + d.canonical() + " has no atoms");
    if (is_water(d.kind)) {
        if (d.natoms < 3) throw std::invalid_argument("system " + d.canonical() + " has no water molecule");
        mdcore::WaterSpec spec;  // the same spec mdcore run --system water|water-ions uses
        spec.nwater = d.natoms / 3;
        spec.nacl_molar = d.kind == "water-ions" ? 0.15 : 0.0;
        spec.seed = d.seed;
        spec.relax_steps = 0;
        return mdcore::make_water_system(spec);
    }
    return mdcore::make_named_system(d.kind, d.natoms, d.seed);
}

}  // namespace

SystemModel::SystemModel(const SystemDescriptor& system) : descriptor_(system) {
    auto sys = std::make_shared<mdcore::System>(build_stand_in(system));
    SystemFeatures& f = features_;
    f.kind = system.kind;
    f.natoms = static_cast<long>(sys->natoms());
    f.volume = sys->box.volume();
    f.number_density = sys->number_density();
    long charged = 0;
    for (double q : sys->charge) charged += q != 0.0;
    f.charged_fraction = f.natoms ? static_cast<double>(charged) / static_cast<double>(f.natoms) : 0.0;
    f.rc = sys->rc;
    f.dt = sys->dt;
    f.constraints = static_cast<long>(sys->settles.size());
    system_ = std::move(sys);
}

mdcore::EffectiveConfig SystemModel::resolve(const Config& config, const HardwareFeatures& hw) const {
    // The SIMD level of the target machine: the config's unless auto/unset.
    std::string simd = config.value<std::string>(Param::Simd).value_or("auto");
    if (simd == "auto") simd = hw.widest_simd();
    const int threads = static_cast<int>(config.value<long>(Param::Threads).value_or(hw.cores));

    Config key_config = config;
    key_config.set(Param::Threads, 0L);
    key_config.set(Param::Simd, simd);
    const std::string key = key_config.canonical();
    auto it = cache_.find(key);
    if (it == cache_.end()) {
        mdcore::RunConfig rc;
        if (const auto c = config.value<std::string>(Param::Cluster)) {
            rc.cluster = mdcore::parse_cluster_shape(*c);
            if (!rc.cluster) throw std::invalid_argument("cluster = " + *c + " is not a cluster shape");
        } else {
            // mdcore's default shape follows the SIMD level it runs with.
            rc.cluster = simd == "avx512" ? mdcore::ClusterShape::k8x4 : mdcore::ClusterShape::k4x4;
        }
        rc.nstlist = static_cast<int>(config.value<long>(Param::Nstlist).value_or(0));
        rc.nstprune = static_cast<int>(config.value<long>(Param::Nstprune).value_or(0));
        if (const auto r = config.value<double>(Param::Rlist)) rc.rlist = *r;
        rc.pme_scale = config.value<double>(Param::PmeScale).value_or(rc.pme_scale);
        rc.pme_spacing = config.value<double>(Param::PmeSpacing).value_or(rc.pme_spacing);
        rc.pme_order = static_cast<int>(config.value<long>(Param::PmeOrder).value_or(rc.pme_order));
        rc.threads = 1;                         // set below; never "all cores of this machine"
        rc.simd = mdcore::SimdLevel::None;      // always resolvable here; the target's level is set below
        mdcore::EffectiveConfig eff = mdcore::resolve_config(*system_, rc, mdcore::RunControl{});
        const auto level = mdcore::parse_simd_level(simd);
        if (!level) throw std::invalid_argument("simd = " + simd + " is not a SIMD level");
        eff.simd = *level;
        it = cache_.emplace(key, eff).first;
    }
    mdcore::EffectiveConfig eff = it->second;
    eff.threads = threads;
    return eff;
}

}  // namespace mdtune
