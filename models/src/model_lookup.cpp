#include "mdtune/models/model_lookup.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <nlohmann/json.hpp>
#include <vector>

#include "mdtune/db/store.h"
#include "mdtune/models/model_record.h"
#include "mdtune/models/validation.h"

namespace mdtune::models {

namespace {

std::string pct(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f %%", 100.0 * v);
    return buf;
}

}  // namespace

void require_database(const std::string& path) {
    if (!std::filesystem::exists(path))
        throw db::DbRefusedError(path + ": no such database file (run `mdtune sweep SPACE.toml --db " + path +
                                 "` first)");
}

SystemDescriptor checked_system(const std::string& kind, long natoms, const std::string& natoms_text) {
    const auto typed = mdcore::parse_system_kind(kind);
    if (!typed) throw InputError("--system: unknown system '" + kind + "' (" + mdcore::system_kind_names() + ")");
    if (mdcore::is_water(*typed) && natoms % 3 != 0)
        throw InputError("--natoms: " + natoms_text + " is not a multiple of 3 (" + kind +
                         " counts atoms as 3 x nwater)");
    return SystemDescriptor{*typed, natoms, 1};
}

std::string node_type_of(const db::Store& store, const std::string& hardware_id) {
    const auto json = store.hardware_json(hardware_id);
    if (!json) return "";
    const auto j = nlohmann::json::parse(*json, nullptr, false);
    return j.is_object() ? j.value("node_type", std::string()) : std::string();
}

HardwareFeatures resolve_hardware(const db::Store& store, const std::string& spec) {
    const HardwareFeatures self = this_hardware();
    if (spec == "this" || spec == self.id) return self;
    const auto known = db::ModelStore(store).hardware_ids();
    std::vector<std::string> matches;
    for (const auto& id : known)
        if (id == spec) matches = {id};
    if (matches.empty())
        for (const auto& id : known)
            if (id.rfind(spec, 0) == 0) matches.push_back(id);
    if (matches.empty())  // a node type ("features: icelake", "<CPU>, 64 cores, 256 GiB")
        for (const auto& id : known)
            if (node_type_of(store, id) == spec) matches.push_back(id);
    if (matches.size() != 1) {
        std::string list;
        for (const auto& id : known) list += (list.empty() ? "" : ", ") + id;
        throw InputError("--hardware: " + std::string(matches.empty() ? "no" : "more than one") + " hardware '" + spec +
                         "' in " + store.path() + " (known: " + (list.empty() ? "none" : list) + "; or 'this')");
    }
    HardwareFeatures hw = hardware_features_from_json(*store.hardware_json(matches[0]));
    hw.id = matches[0];
    return hw;
}

std::optional<LoadedModel> latest_model(const db::Store& store, std::optional<ModelKind> kind) {
    const auto row =
        db::ModelStore(store).latest(kind ? std::optional<std::string>(std::string(to_string(*kind))) : std::nullopt);
    if (!row) return std::nullopt;
    return LoadedModel{*row, load_stored_model(*row)};
}

std::string cv_headline(const db::StoredModel& row) {
    // The groupings `auto` decides on (choose_kind): new sizes and machines. The
    // tunable grouping scores predictions for values no training trial had, which
    // predict ranks last anyway; pooled in, a linear model's extrapolation there
    // turned the headline into "MAPE 867903 %". It is quoted alone only when it is
    // all there is.
    try {
        const auto cv = nlohmann::json::parse(row.cv_json);
        struct Pool {
            std::vector<double> regrets;
            double ape = 0;
            std::size_t n = 0;
            std::vector<std::string> groupings;
        } primary, tunable;
        for (const auto& r : cv.at("results")) {
            if (r.at("kind") != row.kind) continue;
            const std::string grouping = r.value("grouping", "");
            Pool& p = grouping == to_string(Grouping::ByTunable) ? tunable : primary;
            const auto& o = r.at("overall");
            p.ape += o.at("mape").get<double>() * o.at("n").get<double>();
            p.n += o.at("n").get<std::size_t>();
            for (const auto& x : o.at("regrets")) p.regrets.push_back(x.at("regret").get<double>());
            if (!grouping.empty() && std::find(p.groupings.begin(), p.groupings.end(), grouping) == p.groupings.end())
                p.groupings.push_back(grouping);
        }
        const Pool& p = primary.n ? primary : tunable;
        if (!p.n) return "not cross-validated";
        std::string held_out;
        for (const auto& g : p.groupings) held_out += (held_out.empty() ? "" : " and ") + g;
        const double worst = p.regrets.empty() ? 0.0 : *std::max_element(p.regrets.begin(), p.regrets.end());
        return "CV" + (held_out.empty() ? std::string() : " holding out " + held_out) + ": median regret " +
               pct(median_of(p.regrets)) + ", worst " + pct(worst) + ", MAPE " + pct(p.ape / static_cast<double>(p.n));
    } catch (const std::exception&) {
        return "no CV scores";
    }
}

}  // namespace mdtune::models
