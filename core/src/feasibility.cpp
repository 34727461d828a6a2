// The feasibility check: machine limits, then mdcore's resolve_config on a
// cached stand-in of the system.
#include "mdtune/core/feasibility.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <variant>

#include "mdcore/generators.h"

namespace mdtune::inline core {
namespace {

std::mutex g_mutex;
constexpr std::size_t kMaxResolved = 4096;

std::shared_ptr<const mdcore::System> build_stand_in(const SystemDescriptor& d) {
    const mdcore::SystemKind kind = d.kind;
    if (d.natoms <= 0) throw std::invalid_argument("system " + d.canonical() + " has no atoms");
    if (mdcore::is_water(kind)) {
        if (d.natoms < 3) throw std::invalid_argument("system " + d.canonical() + " has no water molecule");
        mdcore::WaterSpec spec = mdcore::water_spec_of(kind);  // the spec mdcore run --system uses
        spec.nwater = d.natoms / 3;
        spec.seed = d.seed;
        spec.relax_steps = 0;
        return std::make_shared<const mdcore::System>(mdcore::make_water_system(spec));
    }
    return std::make_shared<const mdcore::System>(mdcore::make_named_system(kind, d.natoms, d.seed));
}

// Machine limits a config names explicitly; "" when within them.
std::string machine_reason(const Config& config, const HardwareCaps& hw) {
    if (const auto t = config.value<long>(Param::Threads); t && *t > hw.cores)
        return "threads = " + std::to_string(*t) + " exceeds the " + std::to_string(hw.cores) + " hardware threads";
    if (const auto s = config.value<std::string>(Param::Simd); s && *s != "auto") {
        if (std::find(hw.simd_levels.begin(), hw.simd_levels.end(), *s) == hw.simd_levels.end())
            return "simd = " + *s + " is not available on this machine";
    }
    // Offload modes: a task on the GPU needs a machine with one.
    if (!hw.has_gpu)
        for (Param p : {Param::NbOffload, Param::PmeOffload, Param::UpdateOffload})
            if (const auto mode = config.value<std::string>(p); mode && *mode == "gpu")
                return std::string(param_info(p).name) + " = gpu needs a GPU; this machine has none";
    return "";
}

mdcore::SimdLevel widest(const HardwareCaps& hw) {
    for (mdcore::SimdLevel l : {mdcore::SimdLevel::Avx512, mdcore::SimdLevel::Avx2})
        if (std::find(hw.simd_levels.begin(), hw.simd_levels.end(), mdcore::to_string(l)) != hw.simd_levels.end())
            return l;
    return mdcore::SimdLevel::None;
}

}  // namespace

std::shared_ptr<const mdcore::System> stand_in_system(const SystemDescriptor& system) {
    static std::map<std::string, std::shared_ptr<const mdcore::System>> cache;
    const std::string key = system.canonical();
    {
        const std::lock_guard lock(g_mutex);
        if (const auto it = cache.find(key); it != cache.end()) return it->second;
    }
    auto built = build_stand_in(system);
    const std::lock_guard lock(g_mutex);
    return cache.emplace(key, std::move(built)).first->second;
}

mdcore::EffectiveConfig resolve_on_stand_in(const SystemDescriptor& system, const Config& config,
                                            mdcore::SimdLevel simd, int threads,
                                            const mdcore::ResolveOptions& options) {
    mdcore::RunConfig rc = config.run_config();
    if (rc.simd != mdcore::SimdLevel::Auto) simd = rc.simd;
    if (simd == mdcore::SimdLevel::Auto) simd = mdcore::SimdLevel::None;
    if (!rc.cluster) rc.cluster = mdcore::default_cluster_shape(simd, rc.nb);  // the target's default, not this CPU's
    rc.threads = 1;                     // set below; never "all cores of this machine"
    rc.simd = mdcore::SimdLevel::None;  // always resolvable here; the target's level is set below

    // The buffer estimate is the costly part: resolved settings are kept per
    // (system, config without threads and SIMD, shape, memory check); refusals are kept too.
    static std::map<std::string, std::variant<mdcore::EffectiveConfig, std::string>> resolved;
    Config key_config = config;
    key_config.set(Param::Threads, 0L);
    key_config.set(Param::Simd, std::string("none"));
    key_config.set(Param::Cluster, std::string(mdcore::to_string(*rc.cluster)));
    const std::string key = system.canonical() + "|" + key_config.canonical() +
                            (options.check_host_memory ? "" : "|any-memory");
    std::optional<std::variant<mdcore::EffectiveConfig, std::string>> outcome;
    {
        const std::lock_guard lock(g_mutex);
        if (const auto it = resolved.find(key); it != resolved.end()) outcome = it->second;
    }
    if (!outcome) {
        try {
            outcome = mdcore::resolve_config(*stand_in_system(system), rc, mdcore::RunControl{}, options);
        } catch (const std::exception& e) {  // invalid_argument, InputError (memory, limits)
            outcome = std::string(e.what());
        }
        const std::lock_guard lock(g_mutex);
        if (resolved.size() >= kMaxResolved) resolved.clear();  // lazy sweeps over huge spaces stay small
        resolved.emplace(key, *outcome);
    }
    if (const std::string* refusal = std::get_if<std::string>(&*outcome)) throw std::invalid_argument(*refusal);
    mdcore::EffectiveConfig eff = std::get<mdcore::EffectiveConfig>(*outcome);
    eff.simd = simd;
    eff.threads = threads;
    return eff;
}

std::string infeasible_reason(const SystemDescriptor& system, const Config& config, const HardwareCaps& hw) {
    if (std::string why = machine_reason(config, hw); !why.empty()) return why;
    try {
        (void)resolve_on_stand_in(system, config, widest(hw), hw.cores, mdcore::ResolveOptions{hw.local});
    } catch (const std::exception& e) {  // a bad value, or mdcore's refusal
        return e.what();
    }
    return "";
}

}  // namespace mdtune::core
