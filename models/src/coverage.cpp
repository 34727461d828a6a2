// The settings a model's training trials covered.
#include "mdtune/models/coverage.h"

#include "mdtune/core/format_number.h"

#include <algorithm>

namespace mdtune::models {

namespace {

// The numeric settings judged by range; the cut-off per kind, since kinds have their own.
// The candidate's own settings, then the system's properties.
std::vector<std::pair<std::string, double>> tunable_settings(const Features& f) {
    return {{"nstlist", f.nstlist}, {"threads", f.threads},           {"simd_width", f.simd_width},
            {"ranks", f.ranks},     {"npme", f.npme},                 {"rc:" + f.system_kind, f.rc}};
}

std::vector<std::pair<std::string, double>> system_settings(const Features& f) {
    // Constraints and bonded terms per atom: a protein is outside what water boxes trained.
    const double n = std::max(1.0, f.natoms);
    return {{"density", f.density},
            {"charged_fraction", f.charged_fraction},
            {"lincs_per_atom", f.lincs_constraints / n},
            {"bonded_per_atom", f.bonded_interactions / n}};
}

std::string number(double v) { return format_number("%.4g", v); }

}  // namespace

void Coverage::add(const Features& f) {
    clusters_.insert(f.cluster());
    for (const auto& settings : {tunable_settings(f), system_settings(f)})
        for (const auto& [name, v] : settings) {
            auto [it, fresh] = ranges_.emplace(name, std::pair{v, v});
            if (fresh) continue;
            it->second.first = std::min(it->second.first, v);
            it->second.second = std::max(it->second.second, v);
        }
}

void Coverage::add_outside(const std::vector<std::pair<std::string, double>>& settings,
                           std::vector<std::string>& out, bool with_untrained) const {
    for (const auto& [name, v] : settings) {
        const auto it = ranges_.find(name);
        if (it == ranges_.end()) {
            if (with_untrained) out.push_back(name + " = " + number(v) + " (never trained)");
            continue;
        }
        const auto [lo, hi] = it->second;
        const double slack = 1e-9 * std::max(1.0, std::abs(hi));
        if (v < lo - slack || v > hi + slack)
            out.push_back(name + " = " + number(v) + " (trained " + number(lo) + " - " + number(hi) + ")");
    }
}

std::size_t Coverage::tunables_outside(const Features& f) const {
    std::vector<std::string> out;
    if (empty()) return 0;
    if (!clusters_.count(f.cluster())) out.push_back(f.cluster());
    // A setting never trained at all (rc of a system kind no trial had) is so for
    // every candidate of this system alike.
    add_outside(tunable_settings(f), out, false);
    return out.size();
}

std::vector<std::string> Coverage::outside(const Features& f) const {
    std::vector<std::string> out;
    if (empty()) return out;
    if (!clusters_.count(f.cluster())) {
        std::string seen;
        for (const auto& c : clusters_) seen += (seen.empty() ? "" : ", ") + c;
        out.push_back("cluster = " + f.cluster() + " (trained " + seen + ")");
    }
    add_outside(tunable_settings(f), out, true);
    add_outside(system_settings(f), out, true);
    return out;
}

nlohmann::json Coverage::to_json() const {
    nlohmann::json ranges = nlohmann::json::object();
    for (const auto& [name, r] : ranges_) ranges[name] = {r.first, r.second};
    return {{"clusters", clusters_}, {"ranges", ranges}};
}

Coverage Coverage::from_json(const nlohmann::json& j) {
    Coverage c;
    if (j.is_null()) return c;
    for (const auto& s : j.at("clusters")) c.clusters_.insert(s.get<std::string>());
    for (const auto& [name, r] : j.at("ranges").items()) c.ranges_[name] = {r.at(0).get<double>(), r.at(1).get<double>()};
    return c;
}

}  // namespace mdtune::models
