// The work of `mdtune mpi rules`, `show` and `evaluate` (see commands.h); the
// CLI only parses and prints.
#include "mdtune/mpi/commands.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>

#include "mdtune/core/file_text.h"
#include "mdtune/mpi/rules_builder.h"
#include "mdtune/process/digest.h"

namespace mdtune::mpi {

Dataset load_dataset(db::Store& store, const HardwareInfo& this_machine, const std::string& hardware,
                     const std::vector<models::mpi::Collective>& collectives) {
    if (store.schema_version() < 4)
        throw InputError(store.path() + " has no MPI tables yet (schema " + std::to_string(store.schema_version()) +
                         "); run `mdtune mpi sweep --db " + store.path() + "` first");
    db::MpiStore ms(store);
    Dataset d;
    d.hardware_id = hardware == "this" ? this_machine.id : hardware;
    db::MpiFilter f;
    f.hardware_id = d.hardware_id;
    std::vector<db::MpiMeasurement> all = ms.measurements(f);
    if (all.empty() && hardware == "this") {
        // The fingerprint can drift (memory size on a VM): a database of one machine is still that machine.
        std::set<std::string> ids;
        for (const auto& m : ms.measurements()) ids.insert(m.hardware_id);
        if (ids.size() == 1) {
            d.note = "no MPI rows for this machine's id " + d.hardware_id + "; using the only hardware in " +
                     store.path() + ", " + *ids.begin();
            d.hardware_id = *ids.begin();
            f.hardware_id = d.hardware_id;
            all = ms.measurements(f);
        }
    }
    std::map<std::string, std::size_t> per_library;
    for (const auto& m : all) ++per_library[m.mpi_library];
    if (per_library.empty())
        throw InputError("no MPI measurements for hardware " + d.hardware_id + " in " + store.path() +
                         " (run `mdtune mpi sweep` first, or pass --hardware ID)");
    d.mpi_library = per_library.begin()->first;
    for (const auto& [lib, n] : per_library)
        if (n > per_library[d.mpi_library]) d.mpi_library = lib;
    if (per_library.count(this_machine.mpi_library)) d.mpi_library = this_machine.mpi_library;
    for (auto& m : all) {
        if (m.mpi_library != d.mpi_library) continue;
        const auto c = models::mpi::parse_collective(m.collective);
        if (!c || std::find(collectives.begin(), collectives.end(), *c) == collectives.end()) continue;
        d.rows.push_back(m);
    }
    d.obs = models::mpi::observations_from(d.rows);
    if (const auto json = store.hardware_json(d.hardware_id)) {
        try {
            d.cores_per_node = nlohmann::json::parse(*json).value("physical_cores", 0);
        } catch (const std::exception&) {
        }
    }
    if (d.cores_per_node == 0 && d.hardware_id == this_machine.id) d.cores_per_node = this_machine.physical_cores;
    return d;
}

// ---- rules ------------------------------------------------------------------

std::string GuardDecision::note() const {
    char text[200];
    std::snprintf(text, sizeof text, "%s: held-out geometric-mean regret %.3f, Open MPI's default %.3f",
                  std::string(name(collective)).c_str(), held_out.geomean_regret, held_out.default_geomean_regret);
    return std::string(text) + (kept ? "" : ": left to Open MPI's default (no rules)");
}

std::string describe_ridge(const models::mpi::SelectionModel& m, const std::vector<models::mpi::Collective>& colls) {
    std::string s = "ridge";
    for (const auto c : colls) {
        char b[64];
        std::snprintf(b, sizeof b, " %s %g", std::string(name(c)).c_str(), m.ridge(c));
        s += b;
    }
    return s;
}

namespace {

std::string percent(double share) {
    char b[16];
    std::snprintf(b, sizeof b, "%.1f%%", 100 * share);
    return b;
}

std::vector<std::string> rules_header(const RulesResult& r, const RulesRequest& request) {
    const models::mpi::CvSummary& all = r.cv.overall;
    char held[256];
    std::snprintf(held, sizeof held,
                  "held-out regret (%s groups): %s of %zu points within 5%% of the best, geometric mean %.3f; "
                  "Open MPI's default %s, %.3f",
                  request.cv_group == models::mpi::CvGroup::Size ? "size" : "layout", percent(all.share_within5()).c_str(),
                  all.points, all.geomean_regret, percent(all.default_share_within5()).c_str(),
                  all.default_geomean_regret);
    std::vector<std::string> header = {
        "Open MPI coll_tuned dynamic rules (classic format of Open MPI 4.1), written by mdtune mpi rules",
        "use: mpirun --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename THIS_FILE ...",
        "hardware " + r.data.hardware_id + ", " + r.data.mpi_library + ", " + std::to_string(r.data.rows.size()) +
            " measurements",
        "model: per (collective, algorithm) ridge regression of log latency on features of (nodes, ranks per "
        "node, message size), " + describe_ridge(r.model, request.collectives) + "; " + describe(r.fit.features),
        held,
        "format: counts, then per collective: id, number of communicator sizes; per size: size, number of",
        "message rules; per rule: message size, algorithm (0 = Open MPI's default), fan-in/out, segment size.",
        "Message sizes are Open MPI's: bytes of the buffer for allreduce/bcast/reduce_scatter, bytes per rank",
        "times ranks for allgather/alltoall. '#' starts a comment (Open MPI's reader skips to the line end)."};
    for (const auto& g : r.guard) header.push_back("guard, one message size held out at a time: " + g.note());
    return header;
}

}  // namespace

RulesResult write_rules(db::Store& store, const HardwareInfo& this_machine, const RulesRequest& request) {
    RulesResult r;
    r.data = load_dataset(store, this_machine, request.hardware, request.collectives);
    if (r.data.obs.empty())
        throw InputError("no measurements of the requested collectives for hardware " + r.data.hardware_id);
    r.fit = request.fit;
    r.fit.cores_per_node = r.data.cores_per_node;
    r.model = models::mpi::SelectionModel::fit(r.data.obs, r.fit);
    r.cv = models::mpi::cross_validate(r.data.obs, request.cv_group, r.fit);

    // Guard: a collective whose model does not beat Open MPI's default on held-out
    // message sizes is left to Open MPI (no rules for it) rather than shipped.
    const models::mpi::CvReport guard_cv = request.cv_group == models::mpi::CvGroup::Size ? r.cv : models::mpi::cross_validate(r.data.obs, models::mpi::CvGroup::Size, r.fit);
    RulesOptions ro;
    for (const auto c : request.collectives) {
        const auto it = guard_cv.per_collective.find(c);
        if (it == guard_cv.per_collective.end()) continue;
        GuardDecision g{c, it->second, true};
        g.kept = !request.guard || g.held_out.default_points == 0 ||
                 g.held_out.geomean_regret < g.held_out.default_geomean_regret;
        if (g.kept) ro.collectives.push_back(c);
        r.guard.push_back(g);
    }
    ro.comm_sizes = request.comm_sizes;
    ro.ppn = request.ppn;
    ro.header = rules_header(r, request);
    r.file = build_rules(r.model, r.data.obs, ro);
    write_rules_file(request.out, r.file);
    r.file = read_rules_file(request.out);  // what was written must parse back
    for (const auto& c : r.file.collectives) {
        r.comm_sizes += c.comm_rules.size();
        for (const auto& cr : c.comm_rules) r.message_rules += cr.rules.size();
    }

    db::MpiStore ms(store);
    for (const auto c : r.model.collectives()) {
        db::MpiModelRow row;
        row.hardware_id = r.data.hardware_id;
        row.mpi_library = r.data.mpi_library;
        row.collective = std::string(name(c));
        row.feature_set = describe(r.fit.features);
        row.model_json = r.model.to_json(c);
        row.cv_json = r.cv.to_json();
        row.training_rows = static_cast<long>(r.model.training_rows(c));
        ms.put_model(row);
    }
    return r;
}

// ---- show -------------------------------------------------------------------

double Speedup::geomean() const { return sizes ? std::exp(log_sum / double(sizes)) : 1.0; }

namespace {

ShowRow show_row(const models::mpi::SelectionModel& model, models::mpi::Collective c, const models::mpi::Site& site, const models::mpi::SiteTable& t,
                 const std::optional<RulesFile>& rules) {
    ShowRow row;
    row.collective = c;
    row.site = site;
    row.best = t.best();
    if (!row.best) return row;
    row.predicted = model.best(c, site);
    if (row.predicted) {
        const auto it = t.ok.find(row.predicted->variant);
        if (it != t.ok.end()) row.predicted_measured_us = it->second;
        row.predicted_failed = !row.predicted_measured_us && t.failed.count(row.predicted->variant) > 0;
    }
    if (const auto def = t.ok.find(models::mpi::Variant{}); def != t.ok.end()) row.default_us = def->second;
    if (rules) {
        const auto dec = lookup(*rules, info(c).rules_id, site.ranks(), models::mpi::rule_message_size(c, site.bytes, site.ranks()));
        if (dec) row.rules_choice = models::mpi::Variant{dec->algorithm, dec->segsize, dec->faninout};
        row.rules_silent = !dec;
    }
    return row;
}

}  // namespace

ShowResult show_selection(db::Store& store, const HardwareInfo& this_machine, const ShowRequest& request) {
    ShowResult r;
    r.data = load_dataset(store, this_machine, request.hardware, request.collectives);
    models::mpi::FitOptions fit = request.fit;
    fit.cores_per_node = r.data.cores_per_node;
    const models::mpi::SelectionModel model = models::mpi::SelectionModel::fit(r.data.obs, fit);
    for (const auto& [key, t] : models::mpi::tabulate(r.data.obs)) {
        const auto& [c, site] = key;
        const auto& only = request.only_ranks;
        if (only && std::find(only->begin(), only->end(), site.ranks()) == only->end()) continue;
        ShowRow row = show_row(model, c, site, t, request.rules);
        if (row.best && row.default_us) {
            r.measured_best[c].log_sum += std::log(*row.default_us / row.best->second);
            ++r.measured_best[c].sizes;
            if (row.predicted_measured_us) {
                r.predicted_best[c].log_sum += std::log(*row.default_us / *row.predicted_measured_us);
                ++r.predicted_best[c].sizes;
            }
        }
        r.rows.push_back(std::move(row));
    }
    r.cv = models::mpi::cross_validate(r.data.obs, models::mpi::CvGroup::Layout, fit);
    r.worst = r.cv.points;
    std::stable_sort(r.worst.begin(), r.worst.end(), [](const auto& a, const auto& b) { return a.regret > b.regret; });
    if (r.worst.size() > request.worst) r.worst.resize(request.worst);
    return r;
}

// ---- evaluate ---------------------------------------------------------------

EvaluateResult evaluate_and_store(db::Store& store, const std::string& hardware_id, const std::string& rules_path,
                                  const LaunchContext& launch, const EvalOptions& options,
                                  const std::function<void(const std::string&)>& log,
                                  const std::function<bool()>& stop) {
    EvaluateResult r;
    {
        FileText file = read_file_text(rules_path);
        if (!file.ok()) throw InputError("--rules: cannot read '" + rules_path + "': it " + file.error);
        r.text = std::move(file.text);
    }
    parse_rules(r.text, rules_path);  // a file Open MPI would drop silently is refused here
    r.digest = process::fnv1a_hex(r.text);
    r.report = evaluate_rules(rules_path, launch, options, log, stop);
    if (r.report.points.empty()) return r;
    std::vector<db::MpiRulesEval> rows;
    for (const auto& p : r.report.points) {
        db::MpiRulesEval e;
        e.hardware_id = hardware_id;
        e.mpi_library = r.report.mpi_library;
        e.nodes = p.site.nodes;
        e.ppn = p.site.ppn;
        e.ranks = p.site.ranks();
        e.collective = std::string(name(p.collective));
        e.bytes = static_cast<long>(p.site.bytes);
        e.rounds = options.rounds;
        e.default_us = p.default_us;
        e.rules_us = p.rules_us;
        e.default_median_us = p.default_median_us;
        e.rules_median_us = p.rules_median_us;
        rows.push_back(e);
    }
    db::MpiStore(store).put_rules_evaluation(r.digest, r.text, rows);
    r.stored = true;
    return r;
}

}  // namespace mdtune::mpi
