// Training samples from stored trials.
#include "mdtune/models/dataset.h"

#include <stdexcept>

namespace mdtune::models {

std::vector<Sample> make_samples(const std::vector<db::StoredTrial>& trials,
                                 const std::map<std::string, HardwareFeatures>& hardware) {
    // Keep one trial per point: the longest measurement, then the latest.
    std::map<std::string, const db::StoredTrial*> chosen;
    for (const db::StoredTrial& t : trials) {
        if (t.result.status != TrialStatus::Ok || !(t.result.ms_median > 0)) continue;
        // mdcore's features and candidates describe mdcore runs: another engine's trials are not its data.
        if (trial_engine(t.result) != "mdcore") continue;
        const std::string key = t.hardware_id + "|" + t.system.canonical() + "|" + t.config.canonical();
        auto [it, fresh] = chosen.emplace(key, &t);
        if (fresh) continue;
        const db::StoredTrial& old = *it->second;
        if (t.measure.steps > old.measure.steps || (t.measure.steps == old.measure.steps && t.id > old.id))
            it->second = &t;
    }
    std::map<std::string, SystemModel> systems;
    std::vector<Sample> out;
    out.reserve(chosen.size());
    for (const auto& [key, tp] : chosen) {
        const db::StoredTrial& t = *tp;
        const auto hw = hardware.find(t.hardware_id);
        if (hw == hardware.end())
            throw std::invalid_argument("trial " + std::to_string(t.id) + ": hardware " + t.hardware_id +
                                        " is not described in the hardware table");
        auto sys = systems.find(t.system.canonical());
        if (sys == systems.end()) {
            try {
                sys = systems.emplace(t.system.canonical(), SystemModel(t.system)).first;
            } catch (const std::invalid_argument&) {
                // A user's box whose files this process has not read: its features are unknown.
                if (!t.system.from_files()) throw;
                continue;
            }
        }
        // The effective settings mdcore recorded; resolve them ourselves only for
        // trials that lack them (older rows, synthetic data).
        const std::optional<mdcore::RunReport>& report = t.result.report;
        Sample s;
        s.trial_id = t.id;
        s.hardware_id = t.hardware_id;
        s.system = t.system;
        s.config = t.config;
        s.steps = t.measure.steps;
        s.features = compute_features(hw->second, sys->second.features(),
                                      report ? report->config : sys->second.resolve(t.config, hw->second));
        s.ms = t.result.ms_median;
        s.ms_min = t.result.ms_min;
        s.ms_max = t.result.ms_max;
        s.ratios = clean_ratios(t.result);
        s.timings = t.result.timings;
        out.push_back(std::move(s));
    }
    return out;
}

std::map<std::string, HardwareFeatures> hardware_of(const db::Store& store, const std::vector<db::StoredTrial>& trials) {
    std::map<std::string, HardwareFeatures> out;
    for (const db::StoredTrial& t : trials) {
        if (out.count(t.hardware_id)) continue;
        const auto json = store.hardware_json(t.hardware_id);
        if (!json) continue;  // make_samples names it if one of its trials is used
        try {
            HardwareFeatures f = hardware_features_from_json(*json);
            f.id = t.hardware_id;
            out.emplace(t.hardware_id, std::move(f));
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument(store.path() + ": hardware " + t.hardware_id + ": " + e.what());
        }
    }
    return out;
}

std::vector<Sample> load_samples(const db::Store& store) {
    db::TrialFilter ok;
    ok.status = TrialStatus::Ok;
    const auto trials = store.trials(ok);
    return make_samples(trials, hardware_of(store, trials));
}

std::set<std::string> invalid_configs(const std::vector<db::StoredTrial>& trials, const std::string& hardware_id,
                                      mdcore::SystemKind system_kind) {
    std::map<std::string, std::pair<long, long>> longest;  // config -> (longest invalid, longest ok) steps
    for (const db::StoredTrial& t : trials) {
        if (t.hardware_id != hardware_id || t.system.kind != system_kind || trial_engine(t.result) != "mdcore") continue;
        auto& [invalid, ok] = longest.try_emplace(t.config.canonical(), -1L, -1L).first->second;
        if (t.result.status == TrialStatus::Invalid) invalid = std::max(invalid, t.measure.steps);
        if (t.result.status == TrialStatus::Ok) ok = std::max(ok, t.measure.steps);
    }
    std::set<std::string> out;
    for (const auto& [config, steps] : longest)
        if (steps.first >= 0 && steps.first >= steps.second) out.insert(config);
    return out;
}

}  // namespace mdtune::models
