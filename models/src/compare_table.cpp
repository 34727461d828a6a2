#include "mdtune/models/compare_table.h"

#include <algorithm>
#include <set>

#include "mdtune/core/input_error.h"
#include "mdtune/models/model_lookup.h"
#include "mdtune/models/predictor.h"
#include "mdtune/models/svg_plot.h"

namespace mdtune::models {

namespace {

// A generated system by kind and size (any seed); a user's box by its file digest.
std::string system_key(const std::string& hardware_id, const SystemDescriptor& s) {
    return hardware_id + "|" + (s.from_files() ? s.canonical() : s.kind_name() + ":" + std::to_string(s.natoms));
}

// The best Ok trial of each (machine, system), longest measurement first.
std::map<std::string, db::StoredTrial> best_measured(const std::vector<db::StoredTrial>& trials) {
    std::map<std::string, db::StoredTrial> best;
    for (const db::StoredTrial& t : trials) {
        auto [it, fresh] = best.emplace(system_key(t.hardware_id, t.system), t);
        if (fresh) continue;
        const db::StoredTrial& o = it->second;
        if (t.measure.steps > o.measure.steps ||
            (t.measure.steps == o.measure.steps && t.result.ms_median < o.result.ms_median))
            it->second = t;
    }
    return best;
}

// Values given per machine name, by hardware id.
std::map<std::string, double> by_hardware_id(const std::vector<std::pair<std::string, double>>& values,
                                             const char* flag, const CompareResult& r) {
    std::map<std::string, double> out;
    for (const auto& [name, v] : values) {
        std::string id;
        for (const auto& [n, hw] : r.machines)
            if (n == name || hw.id == name) id = hw.id;
        if (id.empty()) throw InputError(std::string("--") + flag + ": '" + name + "' is not one of --hardware");
        out[id] = v;
    }
    return out;
}

std::vector<SystemDescriptor> systems_to_compare(const CompareRequest& request, const CompareResult& r,
                                                 const std::vector<db::StoredTrial>& trials) {
    std::vector<SystemDescriptor> systems = request.systems;
    if (systems.empty()) {
        std::set<std::pair<mdcore::SystemKind, long>> seen;
        std::map<std::string, SystemDescriptor> boxes;  // users' boxes, by digest: measured cells only
        for (const db::StoredTrial& t : trials)
            for (const auto& [n, h] : r.machines) {
                if (t.hardware_id != h.id) continue;
                if (t.system.from_files()) boxes.emplace(t.system.files_digest, t.system);
                else seen.insert({t.system.kind, t.system.natoms});
            }
        for (const auto& [k, n] : seen) systems.push_back({k, n, 1});
        for (const auto& [digest, box] : boxes) systems.push_back(box);
        if (systems.empty())
            for (long n : {3000L, 6000L, 12000L, 24000L, 48000L}) systems.push_back({mdcore::SystemKind::Water, n, 1});
    }
    std::sort(systems.begin(), systems.end(), [](const SystemDescriptor& a, const SystemDescriptor& b) {
        return a.kind != b.kind ? a.kind_name() < b.kind_name() : a.natoms < b.natoms;  // kinds by name
    });
    return systems;
}

}  // namespace

std::string CompareCell::label() const {
    const std::string name = hardware == hardware_id && !node_type.empty() ? node_type : hardware;
    return name == hardware_id ? hardware_id : name + " (" + hardware_id.substr(0, 11) + ")";
}

CompareResult compare_hardware(const CompareRequest& request) {
    require_database(request.db);
    const db::Store store(request.db, db::Store::Mode::ReadOnly);
    CompareResult r;
    for (const auto& name : request.hardware) r.machines.emplace_back(name, resolve_hardware(store, name));
    if (r.machines.empty()) throw InputError("--hardware: no hardware named");
    const auto price = by_hardware_id(request.price, "price", r);
    const auto watts = by_hardware_id(request.watts, "watts", r);

    db::TrialFilter ok;
    ok.status = TrialStatus::Ok;
    const auto trials = store.trials(ok);
    const auto best = best_measured(trials);
    r.systems = systems_to_compare(request, r, trials);

    std::optional<LoadedModel> loaded;
    bool tried_model = false;
    for (const SystemDescriptor& sys : r.systems)
        for (const auto& [name, hw] : r.machines) {
            CompareCell c;
            c.hardware = name;
            c.hardware_id = hw.id;
            c.node_type = node_type_of(store, hw.id);
            c.system = sys;
            if (const auto m = best.find(system_key(hw.id, sys)); m != best.end()) {
                c.measured = true;
                c.ns_per_day = c.lo = c.hi = m->second.result.ns_per_day;
                c.config = m->second.config.canonical();
            } else if (!sys.from_files()) {  // a user's box without its files: no features to predict from
                if (!tried_model) {
                    loaded = latest_model(store, request.kind);
                    tried_model = true;
                    r.model_missing = !loaded;
                    if (loaded) r.model = loaded->row;
                }
                if (loaded) {
                    const Ranking ranking = rank_configs(*loaded->model, sys, hw);
                    if (!ranking.ranked.empty()) {
                        c.ns_per_day = ranking.ranked[0].ns_per_day;
                        c.lo = ranking.ranked[0].ns_lo;
                        c.hi = ranking.ranked[0].ns_hi;
                        c.config = ranking.ranked[0].config.canonical();
                    }
                }
            }
            if (c.ns_per_day > 0) {
                if (const auto p = price.find(hw.id); p != price.end()) c.per_kilo_price = c.ns_per_day / p->second * 1000.0;
                if (const auto w = watts.find(hw.id); w != watts.end()) c.per_kilowatt = c.ns_per_day / (w->second / 1000.0);
            }
            r.cells.push_back(std::move(c));
        }
    return r;
}

std::string compare_plot_svg(const CompareResult& result) {
    std::set<std::string> kinds;
    for (const auto& s : result.systems) kinds.insert(s.kind_name());
    std::map<std::string, PlotSeries> series;
    std::vector<std::string> order;
    for (const CompareCell& c : result.cells) {
        if (!(c.ns_per_day > 0)) continue;
        std::string label = c.hardware;
        if (kinds.size() > 1) label += " (" + c.system.kind_name() + ")";
        if (!series.count(label)) order.push_back(label);
        series[label].label = label;
        series[label].points.push_back({static_cast<double>(c.system.natoms), c.ns_per_day, c.measured});
    }
    std::vector<PlotSeries> list;
    for (const auto& l : order) list.push_back(series[l]);
    return render_svg(list, "ns/day by system size (filled: measured, hollow: predicted)");
}

}  // namespace mdtune::models
