// The Model base: training domain, widening outside it, JSON envelope, factory.
#include "mdtune/models/model.h"

#include <algorithm>
#include <cmath>

#include "mdtune/models/cost_model.h"
#include "mdtune/models/knn.h"
#include "mdtune/models/ridge.h"

namespace mdtune::models {

std::string_view to_string(ModelKind k) {
    switch (k) {
        case ModelKind::Ridge: return "ridge";
        case ModelKind::Cost: return "cost";
        case ModelKind::Knn: return "knn";
    }
    return "?";
}

std::optional<ModelKind> parse_model_kind(std::string_view s) {
    for (ModelKind k : kModelKinds)
        if (s == to_string(k)) return k;
    return std::nullopt;
}

nlohmann::json TrainingDomain::to_json() const {
    nlohmann::json j;
    j["natoms"] = nlohmann::json::object();
    for (const auto& [kind, range] : natoms) j["natoms"][kind] = {range.first, range.second};
    j["hardware"] = hardware;
    j["settings"] = settings.to_json();
    return j;
}

TrainingDomain TrainingDomain::from_json(const nlohmann::json& j) {
    TrainingDomain d;
    for (const auto& [kind, range] : j.at("natoms").items())
        d.natoms[kind] = {range.at(0).get<double>(), range.at(1).get<double>()};
    for (const auto& h : j.at("hardware")) d.hardware.insert(h.get<std::string>());
    if (j.contains("settings")) d.settings = Coverage::from_json(j.at("settings"));
    return d;
}

std::string feature_set_name(std::string_view version, const std::vector<std::string>& names) {
    std::string s = std::string(version) + ":";
    for (std::size_t i = 0; i < names.size(); ++i) s += (i ? "," : "") + names[i];
    return s;
}

bool ranks_before(const Prediction& a, const Prediction& b) {
    if (a.covered() != b.covered()) return a.covered();
    return a.ms < b.ms;
}

Prediction log_interval(double ms, double sigma) {
    Prediction p;
    p.ms = ms;
    p.lo = ms * std::exp(-kIntervalZ * sigma);
    p.hi = ms * std::exp(kIntervalZ * sigma);
    return p;
}

void Model::fit(const std::vector<Sample>& samples) {
    if (samples.empty()) throw ModelError(std::string(to_string(kind())) + " model: no samples to fit");
    TrainingDomain d;
    for (const Sample& s : samples) {
        auto [it, fresh] = d.natoms.emplace(s.features.system_kind, std::pair{s.features.natoms, s.features.natoms});
        if (!fresh) {
            it->second.first = std::min(it->second.first, s.features.natoms);
            it->second.second = std::max(it->second.second, s.features.natoms);
        }
        d.hardware.insert(s.hardware_id);
        d.settings.add(s.features);
    }
    do_fit(samples);
    domain_ = std::move(d);
}

Prediction Model::predict(const Features& f) const {
    Prediction p = do_predict(f);
    double widen = 1.0;
    const auto range = domain_.natoms.find(f.system_kind);
    if (range == domain_.natoms.end()) {
        widen *= 2.0;  // a system kind never seen: only the shared physics carries over
    } else {
        const auto [lo, hi] = range->second;
        double octaves = 0;
        if (f.natoms < lo) octaves = std::log2(lo / f.natoms);
        if (f.natoms > hi) octaves = std::log2(f.natoms / hi);
        widen *= 1.0 + 0.5 * octaves;
    }
    if (!domain_.hardware.empty() && !domain_.hardware.count(f.hardware_id)) widen *= 2.0;
    p.uncovered = domain_.settings.outside(f);
    p.uncovered_tunables = domain_.settings.tunables_outside(f);
    if (!p.uncovered.empty()) widen *= 2.0;
    if (widen > 1.0 + 1e-12) {
        p.extrapolated = true;
        p.lo = p.ms * std::pow(p.lo / p.ms, widen);
        p.hi = p.ms * std::pow(p.hi / p.ms, widen);
    }
    return p;
}

nlohmann::json Model::to_json() const {
    return {{"kind", std::string(to_string(kind()))},
            {"feature_set", feature_set()},
            {"domain", domain_.to_json()},
            {"params", params_json()}};
}

std::unique_ptr<Model> Model::from_json(const nlohmann::json& j) {
    try {
        const std::string kind_text = j.at("kind").get<std::string>();
        const auto kind = parse_model_kind(kind_text);
        if (!kind) throw ModelError("unknown model kind '" + kind_text + "'");
        auto m = make_model(*kind);
        if (j.at("feature_set").get<std::string>() != m->feature_set())
            throw ModelError("model was stored with feature set '" + j.at("feature_set").get<std::string>() +
                             "', this build reads '" + m->feature_set() + "': refit it with mdtune fit");
        m->load_params(j.at("params"));
        m->domain_ = TrainingDomain::from_json(j.at("domain"));
        return m;
    } catch (const nlohmann::json::exception& e) {
        throw ModelError(std::string("malformed model JSON: ") + e.what());
    }
}

std::unique_ptr<Model> make_model(ModelKind kind) {
    switch (kind) {
        case ModelKind::Ridge: return std::make_unique<RidgeModel>();
        case ModelKind::Cost: return std::make_unique<CostModel>();
        case ModelKind::Knn: return std::make_unique<KnnModel>();
    }
    throw ModelError("unknown model kind");
}

}  // namespace mdtune::models
