// mdtune fit | predict | tune | compare: the models as users meet them. The
// work is in the models library; this file parses flags and prints.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "cli/commands.h"
#include "mdcore/cli_args.h"
#include "mdcore/engine.h"
#include "mdtune/gromacs_settings.h"
#include "mdtune/measurement_identity.h"
#include "mdtune/model_guided.h"
#include "mdtune/model_record.h"
#include "mdtune/model_store.h"
#include "mdtune/predictor.h"
#include "mdtune/process/stop_signals.h"
#include "mdtune/selection.h"
#include "mdtune/svg_plot.h"
#include "mdtune/sweep.h"

namespace mdtune::cli {

using mdcore::cli::UsageError;

namespace {

constexpr const char* kDefaultDb = "mdtune.db";
constexpr const char* kKinds[] = {"lj", "argon", "lammps-lj", "water", "water-ions"};

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

std::string fmt(const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}
std::string pct(double v) { return fmt("%.1f %%", 100.0 * v); }
std::string config_text(const std::string& c) { return c.empty() ? "(defaults)" : c; }
std::string config_text(const Config& c) { return config_text(c.canonical()); }

std::vector<std::string> split(const std::string& text, char sep) {
    std::vector<std::string> out;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, sep);)
        if (!item.empty()) out.push_back(item);
    return out;
}

// A database that must already exist: never create an empty file by reading.
void require_db(const std::string& path) {
    if (!std::filesystem::exists(path))
        throw std::runtime_error(path + ": no such database (run `mdtune sweep SPACE.toml --db " + path + "` first)");
}

std::optional<ModelKind> model_flag(const mdcore::cli::ArgMap& opts, bool allow_auto) {
    const std::string m = opts.text("model").value_or(allow_auto ? "auto" : "");
    if (m.empty() || (allow_auto && m == "auto")) return std::nullopt;
    if (const auto k = parse_model_kind(m)) return k;
    throw UsageError("--model: '" + m + "' is not " + (allow_auto ? "auto, " : "") + "ridge, cost or knn");
}

SystemDescriptor system_flags(const mdcore::cli::ArgMap& opts) {
    const auto kind = opts.text("system");
    if (!kind) throw UsageError("--system KIND is required (lj, argon, lammps-lj, water, water-ions)");
    if (std::none_of(std::begin(kKinds), std::end(kKinds), [&](const char* k) { return *kind == k; }))
        throw UsageError("--system: unknown system '" + *kind + "' (lj, argon, lammps-lj, water, water-ions)");
    const auto natoms = opts.integer("natoms", 1, 100'000'000);
    if (!natoms) throw UsageError("--natoms N is required");
    if ((*kind == "water" || *kind == "water-ions") && *natoms % 3 != 0)
        throw UsageError("--natoms: " + std::to_string(*natoms) + " is not a multiple of 3 (" + *kind +
                         " counts atoms as 3 x nwater)");
    return SystemDescriptor{*kind, *natoms, 1};
}

// The node type recorded in a hardware fingerprint ("" in databases from before it).
std::string node_type_of(const Store& store, const std::string& hardware_id) {
    const auto json = store.hardware_json(hardware_id);
    if (!json) return "";
    const auto j = nlohmann::json::parse(*json, nullptr, false);
    return j.is_object() ? j.value("node_type", std::string()) : std::string();
}

// "this", a hardware id of the database, an unambiguous prefix of one, or a node type.
HardwareFeatures hardware_flag(const Store& store, const std::string& spec) {
    const HardwareFeatures self = this_hardware();
    if (spec == "this" || spec == self.id) return self;
    const auto known = ModelStore(store).hardware_ids();
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
        throw UsageError("--hardware: " + std::string(matches.empty() ? "no" : "more than one") + " hardware '" +
                         spec + "' in " + store.path() + " (known: " + (list.empty() ? "none" : list) + "; or 'this')");
    }
    HardwareFeatures hw = hardware_features_from_json(*store.hardware_json(matches[0]));
    hw.id = matches[0];
    return hw;
}

struct LoadedModel {
    StoredModel row;
    std::unique_ptr<Model> model;
};

std::optional<LoadedModel> latest_model(const Store& store, std::optional<ModelKind> kind) {
    const auto row = ModelStore(store).latest(kind ? std::optional<std::string>(std::string(to_string(*kind)))
                                                   : std::nullopt);
    if (!row) return std::nullopt;
    return LoadedModel{*row, load_stored_model(*row)};
}

std::string cv_headline(const StoredModel& row) {
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

// ---- fit -------------------------------------------------------------------------

void print_cv_block(const CvResult& cv) {
    for (const GroupResult& g : cv.groups) {
        if (!g.skipped.empty()) {
            std::printf("  %-6s %-14s %6zu  %s\n", std::string(to_string(cv.kind)).c_str(), g.group.c_str(), g.train_n,
                        ("skipped: " + g.skipped).c_str());
            continue;
        }
        const Scores& s = g.scores;
        std::printf("  %-6s %-20s %6zu %5zu %8s %9s %10s %8s %8zu\n", std::string(to_string(cv.kind)).c_str(),
                    g.group.c_str(), g.train_n, s.n, pct(s.mape).c_str(), pct(s.coverage).c_str(),
                    s.regrets.empty() ? "-" : pct(s.regret_median).c_str(),
                    s.regrets.empty() ? "-" : pct(s.regret_max).c_str(), s.regrets.size());
    }
    const Scores& o = cv.overall;
    std::printf("  %-6s %-20s %6s %5zu %8s %9s %10s %8s %8zu\n", std::string(to_string(cv.kind)).c_str(),
                "all held-out", "", o.n, pct(o.mape).c_str(), pct(o.coverage).c_str(),
                o.regrets.empty() ? "-" : pct(o.regret_median).c_str(),
                o.regrets.empty() ? "-" : pct(o.regret_max).c_str(), o.regrets.size());
}

void print_cv_table(const Selection& sel) {
    for (Grouping g : {Grouping::BySize, Grouping::ByHardware}) {
        bool header = false;
        for (const CvResult& cv : sel.cv) {
            if (cv.grouping != g) continue;
            if (!header) {
                std::printf("\ncross-validation, leave one %s group out (a held-out group is never in training)\n",
                            g == Grouping::BySize ? "size (octave of atoms)" : "hardware");
                std::printf("  %-6s %-20s %6s %5s %8s %9s %10s %8s %8s\n", "model", "held-out group", "train", "test",
                            "MAPE", "in 90%", "regret med", "worst", "systems");
                header = true;
            } else {
                std::printf("\n");
            }
            print_cv_block(cv);
        }
    }
}

// Held-out sizes: fitted without them, scored on them, with the speed-up the
// predicted config gives over mdcore's defaults (both measured).
void print_holdout(const Model& model, const std::vector<Sample>& test) {
    const Scores s = evaluate(model, test);
    std::printf("\nheld-out sizes (never in fitting): %zu trials, MAPE %s, %s inside the 90 %% interval\n", s.n,
                pct(s.mape).c_str(), pct(s.coverage).c_str());
    std::printf("  %-26s %-8s %7s %7s %8s %10s %10s %10s %9s %9s\n", "system", "hardware", "configs", "MAPE", "regret",
                "pred ms", "best ms", "default ms", "tuned x", "best x");
    std::map<std::string, std::vector<const Sample*>> by_system;
    for (const Sample& t : test) by_system[t.hardware_id + "|" + t.system.canonical()].push_back(&t);
    for (const SystemRegret& r : s.regrets) {
        const auto& list = by_system[r.hardware_id + "|" + r.system.canonical()];
        double ape = 0;
        std::optional<double> def;
        for (const Sample* t : list) {
            ape += std::abs(model.predict(t->features).ms - t->ms) / t->ms;
            if (t->config.canonical().empty()) def = t->ms;
        }
        std::printf("  %-26s %-8s %7zu %7s %8s %10.3f %10.3f %10s %9s %9s\n", r.system.canonical().c_str(),
                    r.hardware_id.substr(0, 8).c_str(), r.configs, pct(ape / static_cast<double>(list.size())).c_str(),
                    pct(r.regret).c_str(), r.predicted_ms, r.best_ms, def ? fmt("%.3f", *def).c_str() : "-",
                    def ? fmt("%.2fx", *def / r.predicted_ms).c_str() : "-",
                    def ? fmt("%.2fx", *def / r.best_ms).c_str() : "-");
        std::printf("  %-26s predicted best %s\n  %-26s measured best  %s\n", "", config_text(r.predicted_config).c_str(),
                    "", config_text(r.best_config).c_str());
    }
    if (!s.regrets.empty())
        std::printf("  summary: median regret %s, worst %s, MAPE %s\n", pct(s.regret_median).c_str(),
                    pct(s.regret_max).c_str(), pct(s.mape).c_str());
}

// ---- predict ---------------------------------------------------------------------

void print_gromacs(const SystemFeatures& sys, const mdcore::EffectiveConfig& eff, const char* indent) {
    const GromacsSettings g = gromacs_settings(sys, eff);
    std::string mdp;
    for (const auto& [k, v] : g.mdp) mdp += (mdp.empty() ? "" : "; ") + k + " = " + v;
    std::printf("%sGROMACS  %s\n%s         %s\n", indent, mdp.c_str(), indent, g.mdrun.c_str());
    for (const auto& n : g.notes) std::printf("%s         (%s)\n", indent, n.c_str());
}

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
            {"rlist", r.effective.rlist},
            {"pme_grid", r.effective.pme_grid},
            {"mdcore", mdcore_command(system, r.config)},
            {"gromacs", {{"mdp", mdp}, {"mdrun", g.mdrun}, {"notes", g.notes}}}};
}

// ---- tune ------------------------------------------------------------------------

// Steps for about `target_ms` of measured time per repeat at the predicted speed.
long auto_steps(double predicted_ms, double target_ms) {
    const double steps = std::clamp(target_ms / std::max(1e-3, predicted_ms), 100.0, 5000.0);
    return static_cast<long>(std::round(steps / 50.0) * 50.0);
}

// ---- compare ---------------------------------------------------------------------

struct Cell {
    std::string hardware;  // as given on the command line
    std::string hardware_id;
    std::string node_type;  // the row label when the hardware was named by id
    SystemDescriptor system;
    bool measured = false;
    double ns_per_day = 0, lo = 0, hi = 0;
    std::string config;
};

std::map<std::string, double> per_hardware_values(const std::optional<std::string>& text, const char* flag,
                                                  const std::map<std::string, std::string>& name_to_id) {
    std::map<std::string, double> out;  // by hardware id
    if (!text) return out;
    for (const auto& item : split(*text, ',')) {
        const auto eq = item.find('=');
        if (eq == std::string::npos) throw UsageError(std::string("--") + flag + ": '" + item + "' is not NAME=VALUE");
        const std::string name = item.substr(0, eq), value = item.substr(eq + 1);
        std::string id;
        for (const auto& [n, i] : name_to_id)
            if (n == name || i == name) id = i;
        if (id.empty()) throw UsageError(std::string("--") + flag + ": '" + name + "' is not one of --hardware");
        char* end = nullptr;
        const double v = std::strtod(value.c_str(), &end);
        if (value.empty() || *end || !(v > 0))
            throw UsageError(std::string("--") + flag + ": '" + value + "' is not a positive number");
        out[id] = v;
    }
    return out;
}

std::vector<SystemDescriptor> systems_flag(const std::optional<std::string>& text) {
    std::vector<SystemDescriptor> out;
    if (!text) return out;
    for (const auto& item : split(*text, ',')) {
        const auto colon = item.find(':');
        if (colon == std::string::npos) throw UsageError("--systems: '" + item + "' is not KIND:NATOMS");
        mdcore::cli::ArgMap one({"--system", item.substr(0, colon), "--natoms", item.substr(colon + 1)},
                                {{"system", true}, {"natoms", true}});
        out.push_back(system_flags(one));
    }
    return out;
}

}  // namespace

int fit_command(const Args& args) {
    const mdcore::cli::ArgMap opts(args, {{"db", true}, {"model", true}, {"holdout-natoms", true}});
    const std::optional<ModelKind> only = model_flag(opts, true);
    std::set<long> holdout;
    for (const auto& n : split(opts.text("holdout-natoms").value_or(""), ',')) {
        try {
            std::size_t used = 0;
            const long v = std::stol(n, &used);
            if (used != n.size() || v <= 0) throw std::invalid_argument(n);
            holdout.insert(v);
        } catch (const std::exception&) {
            throw UsageError("--holdout-natoms: '" + n + "' is not a positive atom count");
        }
    }
    const std::string path = opts.text("db").value_or(kDefaultDb);
    require_db(path);
    Store store(path);
    const auto all = load_samples(store);
    std::vector<Sample> train, test;
    for (const Sample& s : all) (holdout.count(s.system.natoms) ? test : train).push_back(s);
    if (!holdout.empty() && test.empty())
        throw UsageError("--holdout-natoms: no ok trials of those sizes in " + path);
    require_enough_samples(train, path);

    std::set<std::string> machines, sizes;
    for (const Sample& s : train) {
        machines.insert(s.hardware_id);
        sizes.insert(s.system.kind + ":" + std::to_string(s.system.natoms));
    }
    std::printf("mdtune fit: %zu ok trials (%zu machine%s, %zu systems) from %s%s\n", train.size(), machines.size(),
                machines.size() == 1 ? "" : "s", sizes.size(), path.c_str(),
                holdout.empty() ? "" : (", " + std::to_string(test.size()) + " held out").c_str());
    const auto t0 = Clock::now();
    const Selection sel = select_model(train, only);
    const double cv_ms = ms_since(t0);
    print_cv_table(sel);
    if (sel.cv.empty()) std::printf("\n(no cross-validation: the trials cover one size group on one machine)\n");
    if (!only && sel.cv.size() > 1) {
        std::printf("\n  %-6s %8s %9s %10s %8s   (all groupings pooled)\n", "model", "MAPE", "in 90%", "regret med",
                    "worst");
        for (ModelKind k : kModelKinds) {
            const KindSummary s = summarise(sel, k);
            std::printf("  %-6s %8s %9s %10s %8s%s\n", std::string(to_string(k)).c_str(), pct(s.mape).c_str(),
                        pct(s.coverage).c_str(), pct(s.regret_median).c_str(), pct(s.regret_max).c_str(),
                        k == sel.chosen ? "   <- chosen" : "");
        }
    }
    std::printf("\n%s: %s — %s\n", only ? "model" : "auto", std::string(to_string(sel.chosen)).c_str(),
                sel.reason.c_str());

    const auto t1 = Clock::now();
    auto model = make_model(sel.chosen);
    model->fit(train);
    const double fit_ms = ms_since(t1);
    const long id = ModelStore(store).insert(to_stored_model(*model, train, sel, current_build_id()));
    std::printf("fitted %s on %zu trials in %.0f ms (cross-validation %.1f s); stored as model #%ld in %s\n",
                std::string(to_string(sel.chosen)).c_str(), train.size(), fit_ms, cv_ms / 1000.0, id, path.c_str());
    if (!test.empty()) {
        print_holdout(*model, test);
        // Every kind on the same held-out sizes, for comparison with the choice.
        std::printf("\n  %-6s %8s %9s %10s %8s   (held-out sizes, each kind fitted on the same trials)\n", "model",
                    "MAPE", "in 90%", "regret med", "worst");
        for (ModelKind k : kModelKinds) {
            auto other = make_model(k);
            try {
                other->fit(train);
            } catch (const ModelError& e) {
                std::printf("  %-6s %s\n", std::string(to_string(k)).c_str(), e.what());
                continue;
            }
            const Scores s = evaluate(*other, test);
            std::printf("  %-6s %8s %9s %10s %8s%s\n", std::string(to_string(k)).c_str(), pct(s.mape).c_str(),
                        pct(s.coverage).c_str(), s.regrets.empty() ? "-" : pct(s.regret_median).c_str(),
                        s.regrets.empty() ? "-" : pct(s.regret_max).c_str(), k == sel.chosen ? "   <- chosen" : "");
        }
    }
    return 0;
}

int predict_command(const Args& args) {
    const auto t0 = Clock::now();
    const mdcore::cli::ArgMap opts(args, {{"db", true},
                                          {"system", true},
                                          {"natoms", true},
                                          {"hardware", true},
                                          {"top", true},
                                          {"json", false},
                                          {"model", true}});
    const SystemDescriptor system = system_flags(opts);
    const auto top = static_cast<std::size_t>(opts.integer("top", 1, 10'000).value_or(5));
    const std::optional<ModelKind> kind = model_flag(opts, false);
    const std::string path = opts.text("db").value_or(kDefaultDb);
    require_db(path);
    const Store store(path, Store::Mode::ReadOnly);
    const std::string hw_name = opts.text("hardware").value_or("this");
    const HardwareFeatures hw = hardware_flag(store, hw_name);
    const auto loaded = latest_model(store, kind);
    if (!loaded)
        throw std::runtime_error("no " + (kind ? std::string(to_string(*kind)) + " " : std::string()) + "model in " +
                                 path + " (run `mdtune fit --db " + path + "` first)");
    TrialFilter f;  // Ok and Invalid runs of this kind here decide which configs break the drift target
    f.hardware_id = hw.id;
    f.system_kind = system.kind;
    const Ranking r = rank_configs(*loaded->model, system, hw, CandidateGrid{}, invalid_configs(store.trials(f), hw.id, system.kind));
    if (r.ranked.empty()) {
        std::string why;
        for (const auto& x : r.rejected) why += "\n  " + config_text(x.config) + ": " + x.reason;
        throw std::runtime_error("no feasible configuration for " + system.canonical() + " on " + hw.id + ":" + why);
    }
    const double elapsed = ms_since(t0);
    const std::size_t shown = std::min(top, r.ranked.size());

    if (opts.has("json")) {
        nlohmann::json out;
        out["system"] = system.canonical();
        out["natoms"] = r.system_features.natoms;
        out["hardware"] = hw.id;
        out["model"] = {{"id", loaded->row.id}, {"kind", loaded->row.kind}, {"created_at", loaded->row.created_at},
                        {"build_id", loaded->row.build_id}};
        out["ranked"] = nlohmann::json::array();
        for (std::size_t k = 0; k < shown; ++k) out["ranked"].push_back(ranked_json(r.ranked[k], system, r.system_features));
        if (r.default_config) out["default"] = ranked_json(*r.default_config, system, r.system_features);
        out["candidates"] = r.ranked.size();
        out["rejected"] = r.rejected.size();
        out["elapsed_ms"] = elapsed;
        std::cout << out.dump(2) << "\n";
        return 0;
    }

    std::printf("mdtune predict: %s (%ld atoms) on %s%s\n", system.kind.c_str(), r.system_features.natoms, hw.id.c_str(),
                hw_name == "this" ? " (this machine)" : "");
    std::printf("model #%ld %s fitted %s (%s)\n", loaded->row.id, loaded->row.kind.c_str(),
                loaded->row.created_at.c_str(), cv_headline(loaded->row).c_str());
    std::printf("%zu feasible candidates, %zu rejected by constraints; 90 %% intervals\n\n", r.ranked.size(),
                r.rejected.size());
    int width = 10;
    for (std::size_t k = 0; k < shown; ++k)
        width = std::max(width, static_cast<int>(config_text(r.ranked[k].config).size()));
    std::printf("  %-4s %-*s %10s %19s %10s %21s\n", "rank", width, "config", "ms/step", "(interval)", "ns/day",
                "(interval)");
    auto row = [&](const std::string& label, const RankedConfig& c) {
        std::printf("  %-4s %-*s %10.3f %8.3f - %-8.3f %10.2f %9.2f - %-9.2f%s\n", label.c_str(), width,
                    config_text(c.config).c_str(), c.prediction.ms, c.prediction.lo, c.prediction.hi, c.ns_per_day,
                    c.ns_lo, c.ns_hi, c.prediction.extrapolated ? " *" : "");
    };
    for (std::size_t k = 0; k < shown; ++k) row(std::to_string(k + 1), r.ranked[k]);
    if (r.default_config) {
        row("dflt", *r.default_config);
        std::printf("\n  predicted speed-up of rank 1 over mdcore's defaults: %.2fx\n",
                    r.default_config->prediction.ms / r.ranked[0].prediction.ms);
    }
    if (std::any_of(r.ranked.begin(), r.ranked.begin() + static_cast<std::ptrdiff_t>(shown),
                    [](const RankedConfig& c) { return c.prediction.extrapolated; }))
        std::printf("  * outside the sizes or machines the model was trained on: interval widened\n");
    const RankedConfig& best = r.ranked[0];
    std::printf("\n  run it   %s\n", mdcore_command(system, best.config).c_str());
    print_gromacs(r.system_features, best.effective, "  ");
    std::printf("\nanswered in %.0f ms without running MD\n", elapsed);
    return 0;
}

int tune_command(const Args& args) {
    const mdcore::cli::ArgMap opts(args, {{"db", true},
                                          {"system", true},
                                          {"natoms", true},
                                          {"budget", true},
                                          {"top", true},
                                          {"steps", true},
                                          {"repeats", true},
                                          {"model", true},
                                          {"mdcore", true}});
    const SystemDescriptor system = system_flags(opts);
    const auto top = static_cast<std::size_t>(opts.integer("top", 1, 1000).value_or(5));
    const auto budget = static_cast<std::size_t>(opts.integer("budget", 2, 100'000).value_or(top + 1));
    const std::optional<ModelKind> kind = model_flag(opts, false);
    const std::string path = opts.text("db").value_or(kDefaultDb);
    require_db(path);
    Store store(path);

    const HardwareInfo info = detect_hardware();
    const HardwareFeatures hw = this_hardware();
    store.put_hardware(info.id, info.to_json());
    const std::string mdcore = opts.text("mdcore").value_or(default_mdcore_path());
    MeasurementIdentity identity;
    try {
        identity = identify_measurement(mdcore, {}, environ);  // trials keyed as a sweep keys them
    } catch (const MdcoreNotFound& e) {
        throw UsageError(e.what());
    }
    SweepContext ctx;
    ctx.hardware_id = info.id;
    ctx.build_id = measurement_build_id(identity);
    ctx.caps = hw.caps();
    store.put_build(ctx.build_id, measurement_build_json(identity));

    auto loaded = latest_model(store, kind);
    if (!loaded) {
        // No model yet: fit one now from what the database holds, and keep it.
        const auto samples = load_samples(store);
        require_enough_samples(samples, path);
        std::printf("no stored model in %s: fitting one (%s) from %zu trials\n", path.c_str(),
                    kind ? std::string(to_string(*kind)).c_str() : "auto", samples.size());
        const Selection sel = select_model(samples, kind);
        auto model = make_model(sel.chosen);
        model->fit(samples);
        StoredModel row = to_stored_model(*model, samples, sel, current_build_id());
        row.id = ModelStore(store).insert(row);
        loaded = LoadedModel{row, std::move(model)};
    }
    TrialFilter f;  // Ok and Invalid runs of this kind here decide which configs break the drift target
    f.hardware_id = hw.id;
    f.system_kind = system.kind;
    const Ranking r = rank_configs(*loaded->model, system, hw, CandidateGrid{}, invalid_configs(store.trials(f), hw.id, system.kind));
    if (r.ranked.empty()) throw std::runtime_error("no feasible configuration for " + system.canonical() + " on this machine");
    const std::size_t k = std::min({top, r.ranked.size(), budget - 1});
    std::vector<Config> candidates;
    for (std::size_t i = 0; i < k; ++i) candidates.push_back(r.ranked[i].config);

    // Short runs: about 2 s of measured steps per repeat at the predicted speed.
    MeasureSettings m;
    m.steps = opts.integer("steps", 10, 10'000'000).value_or(auto_steps(r.ranked[0].prediction.ms, 2000.0));
    m.warmup = std::max(5L, m.steps / 5);
    m.repeats = static_cast<int>(opts.integer("repeats", 1, 99).value_or(3));
    double slowest_ms = r.ranked[0].prediction.hi;
    for (const auto& c : r.ranked) slowest_ms = std::max(slowest_ms, c.prediction.hi);
    if (r.default_config) slowest_ms = std::max(slowest_ms, r.default_config->prediction.hi);
    // Set-up (water relaxes for 300 steps) plus the run, with a wide margin.
    m.timeout_s = std::max(60.0, 10.0 * (m.steps + 300) * std::min(slowest_ms, 10.0 * r.ranked[0].prediction.hi) / 1000.0);

    SearchSpace space;
    space.source = "mdtune tune";
    space.systems = {system};
    space.measure = m;
    std::ostringstream text;
    text << "# mdtune tune: model #" << loaded->row.id << " (" << loaded->row.kind << ") top " << k << "\n[system]\nkind = \""
         << system.kind << "\"\nnatoms = [" << system.natoms << "]\n[measure]\nsteps = " << m.steps
         << "\nwarmup = " << m.warmup << "\nrepeats = " << m.repeats << "\ntimeout_s = " << m.timeout_s << "\n";
    for (const Config& c : candidates) text << "# candidate " << config_text(c) << "\n";
    space.text = text.str();

    std::printf("mdtune tune: %s on %s, model #%ld %s; verifying the top %zu predictions + the default config\n",
                system.canonical().c_str(), hw.id.c_str(), loaded->row.id, loaded->row.kind.c_str(), k);
    std::printf("measure: %ld steps (%ld warm-up), %d repeats each\n", m.steps, m.warmup, m.repeats);
    auto strategy = make_model_guided(system, candidates, m);
    const auto runner = make_subprocess_runner(mdcore);
    auto stop = stop_after_trials(budget);
    process::stop_on_signals();
    const SweepSummary summary =
        run_sweep(space, store, *runner, *strategy, ctx, "tune " + system.canonical(), stop.get(),
                  [](const SweepProgress& p) {
                      const Observation& o = *p.last;
                      std::printf("  [%zu/%zu] %-50s %s%s\n", p.done, p.planned, config_text(o.proposal.config).c_str(),
                                  o.result.status == TrialStatus::Ok ? fmt("%.3f ms/step", o.result.ms_median).c_str()
                                                                     : std::string(to_string(o.result.status)).c_str(),
                                  p.last_reused ? " (recorded)" : "");
                      std::fflush(stdout);
                  });

    // Predicted vs measured, per verified config.
    TrialFilter mine;
    mine.sweep_id = summary.sweep_id;
    std::map<std::string, const RankedConfig*> predicted;
    for (const auto& c : r.ranked) predicted[c.config.canonical()] = &c;
    if (r.default_config) predicted[""] = &*r.default_config;
    std::printf("\n  %-50s %10s %21s %10s %8s\n", "config", "predicted", "(interval)", "measured", "error");
    for (const StoredTrial& t : store.trials(mine)) {
        const auto p = predicted.find(t.config.canonical());
        if (p == predicted.end()) continue;
        const Prediction& pr = p->second->prediction;
        std::printf("  %-50s %10.3f %9.3f - %-9.3f %10s %8s\n", config_text(t.config).c_str(), pr.ms, pr.lo, pr.hi,
                    t.result.status == TrialStatus::Ok ? fmt("%.3f", t.result.ms_median).c_str()
                                                       : std::string(to_string(t.result.status)).c_str(),
                    t.result.status == TrialStatus::Ok ? pct(pr.ms / t.result.ms_median - 1.0).c_str() : "-");
    }
    const SystemOutcome& o = summary.systems.at(0);
    if (!o.best) {
        std::printf("\nno valid configuration measured\n");
        return summary.interrupted ? 130 : 1;
    }
    const TrialResult& b = o.best->result;
    std::printf("\n  measured best  %s: %.3f ms/step, %.2f ns/day\n", config_text(o.best->proposal.config).c_str(),
                b.ms_median, b.ns_per_day);
    if (o.baseline && o.baseline->result.status == TrialStatus::Ok)
        std::printf("  default        %.3f ms/step, %.2f ns/day -> speed-up %.2fx\n", o.baseline->result.ms_median,
                    o.baseline->result.ns_per_day, o.baseline->result.ms_median / b.ms_median);
    std::printf("  run it         %s\n", mdcore_command(system, o.best->proposal.config).c_str());
    const SystemModel sys(system);
    print_gromacs(sys.features(), sys.resolve(o.best->proposal.config, hw), "  ");
    std::printf("recorded in %s as sweep %ld\n", path.c_str(), summary.sweep_id);
    return summary.interrupted ? 130 : 0;
}

int compare_command(const Args& args) {
    const mdcore::cli::ArgMap opts(args, {{"db", true},
                                          {"hardware", true},
                                          {"systems", true},
                                          {"price", true},
                                          {"watts", true},
                                          {"plot", true},
                                          {"model", true}});
    const auto hw_text = opts.text("hardware");
    if (!hw_text) throw UsageError("--hardware A,B[,...] is required (hardware ids of the database, or 'this')");
    const std::optional<ModelKind> kind = model_flag(opts, false);
    const std::string path = opts.text("db").value_or(kDefaultDb);
    require_db(path);
    const Store store(path, Store::Mode::ReadOnly);
    std::vector<std::pair<std::string, HardwareFeatures>> machines;  // (name given, features)
    std::map<std::string, std::string> name_to_id;
    for (const auto& name : split(*hw_text, ',')) {
        machines.emplace_back(name, hardware_flag(store, name));
        name_to_id[name] = machines.back().second.id;
    }
    if (machines.empty()) throw UsageError("--hardware: no hardware named");
    const auto price = per_hardware_values(opts.text("price"), "price", name_to_id);
    const auto watts = per_hardware_values(opts.text("watts"), "watts", name_to_id);

    // Measured: the best Ok trial of each (machine, system), longest measurement first.
    TrialFilter ok;
    ok.status = TrialStatus::Ok;
    const auto trials = store.trials(ok);
    std::map<std::string, const StoredTrial*> best;  // hw|system -> trial
    for (const StoredTrial& t : trials) {
        const std::string key = t.hardware_id + "|" + t.system.kind + ":" + std::to_string(t.system.natoms);
        auto [it, fresh] = best.emplace(key, &t);
        if (fresh) continue;
        const StoredTrial& o = *it->second;
        if (t.measure.steps > o.measure.steps ||
            (t.measure.steps == o.measure.steps && t.result.ms_median < o.result.ms_median))
            it->second = &t;
    }
    std::vector<SystemDescriptor> systems = systems_flag(opts.text("systems"));
    if (systems.empty()) {
        std::set<std::pair<std::string, long>> seen;
        for (const StoredTrial& t : trials)
            for (const auto& [n, h] : machines)
                if (t.hardware_id == h.id) seen.insert({t.system.kind, t.system.natoms});
        for (const auto& [k, n] : seen) systems.push_back({k, n, 1});
        if (systems.empty())
            for (long n : {3000L, 6000L, 12000L, 24000L, 48000L}) systems.push_back({"water", n, 1});
    }
    std::sort(systems.begin(), systems.end(), [](const SystemDescriptor& a, const SystemDescriptor& b) {
        return a.kind != b.kind ? a.kind < b.kind : a.natoms < b.natoms;
    });

    std::optional<LoadedModel> loaded;
    bool tried_model = false;
    std::vector<Cell> cells;
    for (const SystemDescriptor& sys : systems)
        for (const auto& [name, hw] : machines) {
            Cell c;
            c.hardware = name;
            c.hardware_id = hw.id;
            c.node_type = node_type_of(store, hw.id);
            c.system = sys;
            const auto m = best.find(hw.id + "|" + sys.kind + ":" + std::to_string(sys.natoms));
            if (m != best.end()) {
                c.measured = true;
                c.ns_per_day = c.lo = c.hi = m->second->result.ns_per_day;
                c.config = m->second->config.canonical();
            } else {
                if (!tried_model) {
                    loaded = latest_model(store, kind);
                    tried_model = true;
                    if (!loaded)
                        std::fprintf(stderr, "mdtune compare: no model in %s: unmeasured points stay empty (run mdtune fit)\n",
                                     path.c_str());
                }
                if (loaded) {
                    const Ranking r = rank_configs(*loaded->model, sys, hw);
                    if (!r.ranked.empty()) {
                        c.ns_per_day = r.ranked[0].ns_per_day;
                        c.lo = r.ranked[0].ns_lo;
                        c.hi = r.ranked[0].ns_hi;
                        c.config = r.ranked[0].config.canonical();
                    }
                }
            }
            cells.push_back(std::move(c));
        }

    std::printf("mdtune compare: %zu machine%s x %zu system sizes from %s", machines.size(),
                machines.size() == 1 ? "" : "s", systems.size(), path.c_str());
    if (loaded) std::printf(" (predictions: model #%ld %s)", loaded->row.id, loaded->row.kind.c_str());
    std::printf("\n\n  %-20s %-22s %10s %21s %-10s %14s %13s\n", "system", "hardware", "ns/day", "(90% interval)",
                "source", "per 1k price", "per kW");
    for (const Cell& c : cells) {
        const std::string name = c.hardware == c.hardware_id && !c.node_type.empty() ? c.node_type : c.hardware;
        const std::string label = name == c.hardware_id ? c.hardware_id : name + " (" + c.hardware_id.substr(0, 11) + ")";
        if (!(c.ns_per_day > 0)) {
            std::printf("  %-20s %-22s %10s %21s %-10s\n", (c.system.kind + ":" + std::to_string(c.system.natoms)).c_str(),
                        label.c_str(), "-", "", "no data");
            continue;
        }
        const auto p = price.find(c.hardware_id);
        const auto w = watts.find(c.hardware_id);
        std::printf("  %-20s %-22s %10.2f %21s %-10s %14s %13s\n",
                    (c.system.kind + ":" + std::to_string(c.system.natoms)).c_str(), label.c_str(), c.ns_per_day,
                    c.measured ? "" : (fmt("%.2f", c.lo) + " - " + fmt("%.2f", c.hi)).c_str(),
                    c.measured ? "measured" : "predicted",
                    p != price.end() ? fmt("%.3f", c.ns_per_day / p->second * 1000.0).c_str() : "-",
                    w != watts.end() ? fmt("%.2f", c.ns_per_day / (w->second / 1000.0)).c_str() : "-");
    }
    std::printf("\n  per 1k price: ns/day per 1,000 units of --price; per kW: ns/day per kilowatt of --watts\n");

    if (const auto plot = opts.text("plot")) {
        std::set<std::string> kinds;
        for (const auto& s : systems) kinds.insert(s.kind);
        std::map<std::string, PlotSeries> series;
        std::vector<std::string> order;
        for (const Cell& c : cells) {
            if (!(c.ns_per_day > 0)) continue;
            std::string label = c.hardware;
            if (kinds.size() > 1) label += " (" + c.system.kind + ")";
            if (!series.count(label)) order.push_back(label);
            series[label].label = label;
            series[label].points.push_back({static_cast<double>(c.system.natoms), c.ns_per_day, c.measured});
        }
        std::vector<PlotSeries> list;
        for (const auto& l : order) list.push_back(series[l]);
        std::ofstream out(*plot);
        if (!out) throw std::runtime_error(*plot + ": cannot write the plot");
        out << render_svg(list, "ns/day by system size (filled: measured, hollow: predicted)");
        if (!out.flush()) throw std::runtime_error(*plot + ": cannot write the plot");
        std::printf("  plot: %s\n", plot->c_str());
    }
    return 0;
}

}  // namespace mdtune::cli
