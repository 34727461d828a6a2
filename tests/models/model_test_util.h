#pragma once
// Synthetic trials for the model tests: real features (mdcore's own resolve on
// small stand-in systems), invented timings from known per-task coefficients.
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "mdtune/models/cost_model.h"
#include "mdtune/models/dataset.h"
#include "mdtune/models/features.h"

namespace mdtune::test {

inline models::HardwareFeatures test_hardware(const std::string& id = "hw-test", int cores = 4) {
    models::HardwareFeatures hw;
    hw.id = id;
    hw.cores = cores;
    hw.physical_cores = cores;
    hw.simd_levels = {"none", "avx2", "avx512"};
    hw.cache_per_core_mb = 2.0;
    return hw;
}

inline std::string hardware_json(const models::HardwareFeatures& hw) {
    HardwareInfo info;
    info.id = hw.id;
    info.hardware_threads = hw.cores;
    info.physical_cores = hw.physical_cores;
    info.simd = {"avx2", "fma", "avx512f", "avx512vl", "avx512dq"};  // mdcore's AVX-512 needs F, VL and DQ
    info.caches = {CacheInfo{2, "Unified", 2 * 1024 * 1024, 1}};
    return info.to_json();
}

// Deterministic noise in [-1, 1) from a string (FNV-1a).
inline double unit_noise(const std::string& s) {
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    return static_cast<double>(h % 100000) / 100000.0 * 2.0 - 1.0;
}

// Known coefficients per task: a plausible machine (seconds per unit of work).
inline std::vector<Eigen::VectorXd> true_cost_coefficients(double speed = 1.0) {
    std::vector<Eigen::VectorXd> c;
    for (const models::CostTask& t : models::cost_tasks()) c.push_back(Eigen::VectorXd::Zero(static_cast<Eigen::Index>(t.terms.size())));
    auto set = [&](std::string_view task, int term, double v) {
        for (std::size_t k = 0; k < models::cost_tasks().size(); ++k)
            if (models::cost_tasks()[k].name == task) c[k](term) = v / speed;
    };
    set("search", 0, 4e-8);
    set("search", 3, 2e-7);
    set("search", 4, 2e-5);
    set("prune", 0, 6e-9);
    set("prune", 3, 5e-6);
    set("nonbonded", 0, 1.2e-8);
    set("nonbonded", 1, 1.0e-8);
    set("nonbonded", 2, 1.1e-8);
    set("nonbonded", 4, 2.4e-8);
    set("nonbonded", 5, 2.0e-8);
    set("nonbonded", 6, 2.1e-8);
    set("nonbonded", 9, 3e-9);
    set("nonbonded", 11, 1e-5);
    set("pme_spread", 0, 2e-9);
    set("pme_spread", 3, 1e-9);
    set("pme_fft", 0, 3e-9);
    set("pme_fft", 2, 4e-6);
    set("pme_solve", 0, 2e-9);
    set("pme_gather", 0, 2.5e-9);
    set("constraints", 0, 5e-8);
    set("update", 0, 4e-9);
    set("update", 2, 2e-6);
    set("other", 1, 1e-9);
    set("other", 2, 5e-6);
    set("other", 3, 1e-5);
    return c;
}

struct SyntheticSpec {
    std::vector<SystemDescriptor> systems{{"lj", 500, 1}, {"lj", 2000, 1}, {"lj", 4000, 1},
                                          {"water", 1500, 1}, {"water", 3000, 1}, {"water", 6000, 1}};
    std::vector<std::string> clusters{"4x4", "4x8", "8x4"};
    std::vector<long> nstlists{10, 20, 40};
    std::vector<long> threads{1, 2, 4};
    std::vector<double> pme_scales{1.0, 1.2};
    double noise = 0.0;  // relative, deterministic per trial
    double speed = 1.0;
};

// Stored trials whose timings follow the true coefficients exactly (plus optional noise).
inline std::vector<db::StoredTrial> synthetic_trials(const models::HardwareFeatures& hw, const SyntheticSpec& spec = {},
                                                 long first_id = 1) {
    // Memoised: resolving a few hundred configs through mdcore is the slow part of these tests.
    static std::map<std::string, std::vector<db::StoredTrial>> memo;
    std::string key = hw.id + "|" + std::to_string(hw.cores) + "|" + std::to_string(spec.noise) + "|" +
                      std::to_string(spec.speed) + "|" + std::to_string(first_id);
    for (const auto& d : spec.systems) key += d.canonical() + ",";
    for (const auto& c : spec.clusters) key += c + ",";
    for (long n : spec.nstlists) key += std::to_string(n) + ",";
    for (long t : spec.threads) key += std::to_string(t) + ",";
    for (double s : spec.pme_scales) key += std::to_string(s) + ",";
    if (const auto it = memo.find(key); it != memo.end()) return it->second;
    const auto coef = true_cost_coefficients(spec.speed);
    std::vector<db::StoredTrial> out;
    long id = first_id;
    for (const SystemDescriptor& d : spec.systems) {
        const models::SystemModel sys(d);
        const bool charged = sys.features().charged_fraction > 0;
        for (const auto& cluster : spec.clusters)
            for (long nstlist : spec.nstlists)
                for (double scale : charged ? spec.pme_scales : std::vector<double>{0.0})
                    for (long t : spec.threads) {
                        Config c;
                        c.set(Param::Cluster, cluster);
                        c.set(Param::Nstlist, nstlist);
                        if (scale > 0) c.set(Param::PmeScale, scale);
                        c.set(Param::Threads, t);
                        const models::Features f = models::compute_features(hw, sys.features(), sys.resolve(c, hw));
                        db::StoredTrial tr;
                        tr.id = id++;
                        tr.hardware_id = hw.id;
                        tr.system = d;
                        tr.config = c;
                        tr.build_id = "build-test";
                        tr.result.status = TrialStatus::Ok;
                        double total = 0;
                        for (std::size_t k = 0; k < models::cost_tasks().size(); ++k) {
                            const double s = coef[k].dot(models::cost_terms(k, f));
                            if (s > 0) tr.result.timings[std::string(models::cost_tasks()[k].name)] = s;
                            total += s;
                        }
                        const double factor = 1.0 + spec.noise * unit_noise(hw.id + d.canonical() + c.canonical());
                        tr.result.ms_median = 1000.0 * total * factor;
                        tr.result.ms_min = tr.result.ms_median * 0.98;
                        tr.result.ms_max = tr.result.ms_median * 1.02;
                        tr.result.ns_per_day = sys.features().dt * 86400.0 / tr.result.ms_median;
                        tr.result.repeats = 3;
                        out.push_back(std::move(tr));
                    }
    }
    memo.emplace(key, out);
    return out;
}

inline std::vector<models::Sample> synthetic_samples(const models::HardwareFeatures& hw, const SyntheticSpec& spec = {}) {
    return models::make_samples(synthetic_trials(hw, spec), {{hw.id, hw}});
}

}  // namespace mdtune::test
