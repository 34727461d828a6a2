#include "mdtune/models/predict_query.h"

#include <chrono>

#include "mdtune/models/dataset.h"
#include "mdtune/models/gromacs_settings.h"
#include "mdtune/models/model_lookup.h"

namespace mdtune::models {

namespace {

std::string config_text(const Config& c) { return c.canonical().empty() ? "(defaults)" : c.canonical(); }

nlohmann::json ranked_json(const RankedConfig& r, const SystemDescriptor& system, const SystemFeatures& sys) {
    const GromacsSettings g = gromacs_settings(sys, r.effective);
    nlohmann::json mdp = nlohmann::json::object();
    for (const auto& [k, v] : g.mdp) mdp[k] = v;
    return {{"config", r.config.canonical()},
            {"ms_per_step", r.prediction.ms},
            {"ms_per_step_interval", {r.prediction.lo, r.prediction.hi}},
            {"ns_per_day", r.ns_per_day},
            {"ns_per_day_interval", {r.ns_lo, r.ns_hi}},
            {"extrapolated", r.prediction.extrapolated},
            {"uncovered", r.prediction.uncovered},
            {"rlist", r.effective.rlist},
            {"pme_grid", r.effective.pme_grid},
            {"mdcore", mdcore_command(system, r.config)},
            {"gromacs", {{"mdp", mdp}, {"mdrun", g.mdrun}, {"notes", g.notes}}}};
}

}  // namespace

PredictResult predict_configs(const PredictRequest& request) {
    const auto t0 = std::chrono::steady_clock::now();
    require_database(request.db);
    const db::Store store(request.db, db::Store::Mode::ReadOnly);
    PredictResult out;
    out.hardware = resolve_hardware(store, request.hardware);
    const auto loaded = latest_model(store, request.kind);
    if (!loaded)
        throw std::runtime_error("no " + (request.kind ? std::string(to_string(*request.kind)) + " " : std::string()) +
                                 "model in " + request.db + " (run `mdtune fit --db " + request.db + "` first)");
    out.model = loaded->row;
    db::TrialFilter f;  // Ok and Invalid runs of this kind here decide which configs break the drift target
    f.hardware_id = out.hardware.id;
    f.system_kind = request.system.kind_name();
    out.ranking = rank_configs(*loaded->model, request.system, out.hardware, request.grid,
                               invalid_configs(store.trials(f), out.hardware.id, request.system.kind));
    if (out.ranking.ranked.empty()) {
        std::string why;
        for (const auto& x : out.ranking.rejected) why += "\n  " + config_text(x.config) + ": " + x.reason;
        throw std::runtime_error("no feasible configuration for " + request.system.canonical() + " on " +
                                 out.hardware.id + ":" + why);
    }
    out.elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

bool best_indistinguishable_from_default(const Ranking& r) {
    if (!r.default_config || r.ranked.empty()) return false;
    return r.ranked[0].prediction.hi >= r.default_config->prediction.lo;
}

bool default_is_fastest(const Ranking& r) {
    return r.default_config && !r.ranked.empty() && r.default_config->prediction.ms <= r.ranked[0].prediction.ms;
}

nlohmann::json predict_json(const PredictRequest& request, const PredictResult& result, std::size_t top) {
    const Ranking& r = result.ranking;
    const db::StoredModel& m = result.model;
    nlohmann::json out;
    out["system"] = request.system.canonical();
    out["natoms"] = r.system_features.natoms;
    out["hardware"] = result.hardware.id;
    out["model"] = {{"id", m.id}, {"kind", m.kind}, {"created_at", m.created_at}, {"build_id", m.build_id}};
    out["ranked"] = nlohmann::json::array();
    for (std::size_t k = 0; k < std::min(top, r.ranked.size()); ++k)
        out["ranked"].push_back(ranked_json(r.ranked[k], request.system, r.system_features));
    if (r.default_config) {
        out["default"] = ranked_json(*r.default_config, request.system, r.system_features);
        out["indistinguishable_from_default"] = best_indistinguishable_from_default(r);
        out["keep_defaults"] = default_is_fastest(r);
    }
    out["candidates"] = r.ranked.size();
    out["rejected"] = r.rejected.size();
    out["elapsed_ms"] = result.elapsed_ms;
    return out;
}

}  // namespace mdtune::models
