// The feasibility check: machine limits, then mdcore's resolve_config on the
// system's cached summary (no particles: microseconds at any size).
#include "mdtune/core/feasibility.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <variant>

#include "mdcore/generators.h"
#include "mdcore/system_summary.h"
#include "mdtune/core/system_files.h"

namespace mdtune::inline core {
namespace {

std::mutex g_mutex;
constexpr std::size_t kMaxResolved = 4096;

// What a system's resolution reads: its summary and, for a box with an .mdp, the
// .mdp's PME settings (tunables, so they are not part of the summary).
struct SystemEntry {
    std::shared_ptr<const mdcore::SystemSummary> summary;
    mdcore::MdpPmeSettings mdp_pme;
};

SystemEntry cached_entry(const SystemDescriptor& system);

SystemEntry build_entry(const SystemDescriptor& d) {
    if (d.from_files()) {  // describe_system_files remembers a box it reads; here: one read back from a database
        if (d.gro.empty() || d.top.empty())
            throw std::invalid_argument("system " + d.canonical() + ": its .gro/.top files are not known to this process");
        SystemDescriptor now;
        try {
            now = describe_system_files(d.gro, d.top, d.mdp);
        } catch (const std::exception& e) {
            throw std::invalid_argument("system " + d.canonical() + ": " + e.what());
        }
        if (now.files_digest != d.files_digest)
            throw std::invalid_argument("system " + d.canonical() + ": " + d.gro + " / " + d.top +
                                        (d.mdp.empty() ? "" : " / " + d.mdp) +
                                        " changed since its trials were measured (digest " + now.files_digest + ")");
        return cached_entry(now);
    }
    if (d.natoms <= 0) throw std::invalid_argument("system " + d.canonical() + " has no atoms");
    if (mdcore::is_water(d.kind) && d.natoms < 3)
        throw std::invalid_argument("system " + d.canonical() + " has no water molecule");
    return {std::make_shared<const mdcore::SystemSummary>(mdcore::named_system_summary(d.kind, d.natoms, d.seed)), {}};
}

// Machine limits a config names explicitly; "" when within them.
std::string machine_reason(const Config& config, const HardwareCaps& hw) {
    if (const auto t = config.value<long>(Param::Threads); t && *t > hw.cores)
        return "threads = " + std::to_string(*t) + " exceeds the " + std::to_string(hw.cores) + " hardware threads";
    if (const int ranks = ranks_of(config); ranks > 1 && !hw.oversubscribe) {
        const long threads = threads_per_rank(config, hw.cores);
        if (ranks > hw.cores || ranks * threads > hw.cores)
            return "ranks x threads = " + std::to_string(ranks) + " x " + std::to_string(threads) + " exceeds the " +
                   std::to_string(hw.cores) + " hardware threads ([launch] oversubscribe = true allows it)";
    }
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

std::map<std::string, SystemEntry>& summary_cache() {
    static std::map<std::string, SystemEntry> cache;
    return cache;
}

SystemEntry cached_entry(const SystemDescriptor& system) {
    auto& cache = summary_cache();
    const std::string key = system.canonical();
    {
        const std::lock_guard lock(g_mutex);
        if (const auto it = cache.find(key); it != cache.end()) return it->second;
    }
    SystemEntry built = build_entry(system);
    const std::lock_guard lock(g_mutex);
    if (cache.size() >= kMaxResolved) cache.clear();  // summaries are small; the bound is for lazy sweeps
    return cache.emplace(key, std::move(built)).first->second;
}

}  // namespace

int ranks_of(const Config& config) { return static_cast<int>(config.value<long>(Param::Ranks).value_or(1)); }

int threads_per_rank(const Config& config, int cores) {
    if (const auto t = config.value<long>(Param::Threads)) return static_cast<int>(*t);
    return std::max(1, cores / ranks_of(config));
}

void remember_system_summary(const SystemDescriptor& system, std::shared_ptr<const mdcore::SystemSummary> summary,
                             const mdcore::MdpPmeSettings& mdp_pme) {
    const std::lock_guard lock(g_mutex);
    summary_cache()[system.canonical()] = SystemEntry{std::move(summary), mdp_pme};
}

std::shared_ptr<const mdcore::SystemSummary> system_summary(const SystemDescriptor& system) {
    return cached_entry(system).summary;
}

mdcore::RunConfig system_run_config(const SystemDescriptor& system, const Config& config) {
    mdcore::RunConfig rc = config.run_config();
    if (!system.from_files()) return rc;
    cached_entry(system).mdp_pme.apply(rc, [&](Param p) { return config.get(p) != nullptr; });
    return rc;
}

mdcore::EffectiveConfig resolve_for_system(const SystemDescriptor& system, const Config& config,
                                            mdcore::SimdLevel simd, int threads,
                                            const mdcore::ResolveOptions& given) {
    mdcore::ResolveOptions options = given;
    options.planned_ranks = ranks_of(config);  // this process is one rank; the trial runs on these
    mdcore::RunConfig rc = system_run_config(system, config);  // the .mdp's PME settings under the config's
    if (rc.simd != mdcore::SimdLevel::Auto) simd = rc.simd;
    if (simd == mdcore::SimdLevel::Auto) simd = mdcore::SimdLevel::None;
    if (!rc.cluster)  // the target's default, not this CPU's
        rc.cluster = mdcore::default_cluster_shape(simd, rc.nb, system_summary(system)->charged_atoms() > 0);
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
            outcome = mdcore::resolve_config(*system_summary(system), rc, mdcore::RunControl{}, options);
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

std::string machine_infeasible_reason(const Config& config, const HardwareCaps& hw) { return machine_reason(config, hw); }

std::string infeasible_reason(const SystemDescriptor& system, const Config& config, const HardwareCaps& hw) {
    if (std::string why = machine_reason(config, hw); !why.empty()) return why;
    try {
        (void)resolve_for_system(system, config, widest(hw), threads_per_rank(config, hw.cores),
                                 mdcore::ResolveOptions{hw.local});
    } catch (const std::exception& e) {  // a bad value, or mdcore's refusal
        return e.what();
    }
    return "";
}

}  // namespace mdtune::core
