#include "mdtune/models/model_lookup.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <nlohmann/json.hpp>
#include <vector>

#include "mdtune/models/model_record.h"
#include "mdtune/models/validation.h"

namespace mdtune::models {

namespace {

constexpr const char* kKinds[] = {"lj", "argon", "lammps-lj", "water", "water-ions"};

std::string pct(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f %%", 100.0 * v);
    return buf;
}

}  // namespace

void require_database(const std::string& path) {
    if (!std::filesystem::exists(path))
        throw std::runtime_error(path + ": no such database (run `mdtune sweep SPACE.toml --db " + path + "` first)");
}

SystemDescriptor checked_system(const std::string& kind, long natoms, const std::string& natoms_text) {
    if (std::none_of(std::begin(kKinds), std::end(kKinds), [&](const char* k) { return kind == k; }))
        throw InputError("--system: unknown system '" + kind + "' (lj, argon, lammps-lj, water, water-ions)");
    if ((kind == "water" || kind == "water-ions") && natoms % 3 != 0)
        throw InputError("--natoms: " + natoms_text + " is not a multiple of 3 (" + kind +
                         " counts atoms as 3 x nwater)");
    return SystemDescriptor{kind, natoms, 1};
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
    try {
        const auto cv = nlohmann::json::parse(row.cv_json);
        std::vector<double> regrets;
        double ape = 0;
        std::size_t n = 0;
        for (const auto& r : cv.at("results")) {
            if (r.at("kind") != row.kind) continue;
            const auto& o = r.at("overall");
            ape += o.at("mape").get<double>() * o.at("n").get<double>();
            n += o.at("n").get<std::size_t>();
            for (const auto& x : o.at("regrets")) regrets.push_back(x.at("regret").get<double>());
        }
        if (!n) return "not cross-validated";
        return "CV median regret " + pct(median_of(regrets)) + ", MAPE " + pct(ape / static_cast<double>(n));
    } catch (const std::exception&) {
        return "no CV scores";
    }
}

}  // namespace mdtune::models
