// HardwareFeatures from a fingerprint, from its stored JSON, or of this machine.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "mdcore/engine.h"
#include "mdtune/models/features.h"

namespace mdtune::models {
namespace {

bool has(const std::vector<std::string>& flags, const char* f) {
    return std::find(flags.begin(), flags.end(), f) != flags.end();
}

// The levels mdcore's kernels would run with these CPU flags (mdcore's one rule).
std::vector<std::string> levels_from_flags(const std::vector<std::string>& flags) {
    std::vector<std::string> levels;
    for (mdcore::SimdLevel l : {mdcore::SimdLevel::None, mdcore::SimdLevel::Avx2, mdcore::SimdLevel::Avx512})
        if (mdcore::simd_supported(l, flags)) levels.emplace_back(mdcore::to_string(l));
    return levels;
}

// L2 and beyond, each divided among the cores that share it: what a thread's
// working set (pair-list cells, PME grid slabs) can keep close.
double cache_per_core_mb(const std::vector<CacheInfo>& caches, int cores) {
    double bytes = 0;
    for (const CacheInfo& c : caches) {
        if (c.level < 2 || c.type == "Instruction") continue;
        const int shared = c.shared_by_cores > 0 ? c.shared_by_cores : std::max(1, cores);
        bytes += static_cast<double>(c.size_bytes) / shared;
    }
    return bytes > 0 ? bytes / (1024.0 * 1024.0) : 1.0;
}

}  // namespace

std::string HardwareFeatures::widest_simd() const {
    if (has(simd_levels, "avx512")) return "avx512";
    if (has(simd_levels, "avx2")) return "avx2";
    return "none";
}

int HardwareFeatures::simd_width() const {
    const std::string w = widest_simd();
    return w == "avx512" ? 16 : w == "avx2" ? 8 : 1;
}

HardwareCaps HardwareFeatures::caps() const {
    HardwareCaps c;
    c.cores = cores;
    c.has_gpu = has_gpu;
    c.simd_levels = simd_levels;
    c.local = this_machine;
    return c;
}

HardwareFeatures hardware_features(const HardwareInfo& info) {
    HardwareFeatures f;
    f.id = info.id;
    f.cores = std::max(1, info.hardware_threads);
    f.physical_cores = std::max(1, info.physical_cores > 0 ? info.physical_cores : f.cores);
    f.simd_levels = levels_from_flags(info.simd);
    f.cache_per_core_mb = cache_per_core_mb(info.caches, f.physical_cores);
    f.has_gpu = !info.gpus.empty();
    if (f.has_gpu) {
        const GpuInfo& g = info.gpus.front();
        f.gpu_model = g.model;
        f.gpu_multiprocessors = g.multiprocessors;
        f.gpu_clock_mhz = g.clock_mhz;
        f.gpu_memory_bandwidth_gbs = g.memory_bandwidth_gbs;
    }
    return f;
}

HardwareFeatures hardware_features_from_json(const std::string& json) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(json);
    } catch (const std::exception& e) {
        throw std::invalid_argument(std::string("hardware description is not JSON: ") + e.what());
    }
    if (!j.is_object()) throw std::invalid_argument("hardware description is not a JSON object");
    HardwareInfo info;
    try {
        info.id = j.value("id", std::string());
        info.hardware_threads = j.value("hardware_threads", 0);
        info.physical_cores = j.value("physical_cores", 0);
        info.simd = j.value("simd", std::vector<std::string>{});
        if (j.contains("caches"))
            for (const auto& c : j["caches"])
                info.caches.push_back(CacheInfo{c.value("level", 0), c.value("type", std::string()),
                                                c.value("size_bytes", 0L), c.value("shared_by_cores", 0)});
        if (j.contains("gpus"))
            for (const auto& g : j["gpus"])
                info.gpus.push_back(GpuInfo{g.value("model", std::string()), g.value("memory_bytes", 0L),
                                            g.value("compute_capability", std::string()), g.value("multiprocessors", 0),
                                            g.value("clock_mhz", 0), g.value("memory_bandwidth_gbs", 0.0)});
    } catch (const nlohmann::json::exception& e) {
        throw std::invalid_argument(std::string("hardware description has a malformed field: ") + e.what());
    }
    if (info.hardware_threads <= 0) throw std::invalid_argument("hardware description lacks hardware_threads");
    return hardware_features(info);
}

HardwareFeatures this_hardware() {
    HardwareFeatures f = hardware_features(detect_hardware());
    // What this build can actually run, not just what the CPU has.
    f.simd_levels.clear();
    for (auto l : mdcore::available_simd_levels()) f.simd_levels.emplace_back(mdcore::to_string(l));
    if (f.simd_levels.empty()) f.simd_levels.emplace_back("none");
    f.this_machine = true;
    return f;
}

}  // namespace mdtune::models
