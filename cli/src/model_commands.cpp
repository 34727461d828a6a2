// mdtune fit | predict | compare: the models as users meet them. The work is in
// the models library (fit_from_store.h, predict_query.h, compare_table.h); this
// file registers the flags, calls one function and prints its result.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <set>

#include "cli_options.h"
#include "commands.h"
#include "model_output.h"
#include "mdcore/output_file.h"
#include "mdtune/models/compare_table.h"
#include "mdtune/models/fit_from_store.h"
#include "mdtune/models/gromacs_settings.h"
#include "mdtune/models/model_lookup.h"
#include "mdtune/models/predict_query.h"

namespace mdtune::cli {

namespace {

constexpr const char* kDefaultDb = "mdtune.db";

// ---- fit -------------------------------------------------------------------------

void print_cv_block(const models::CvResult& cv) {
    const std::string kind(to_string(cv.kind));
    for (const models::GroupResult& g : cv.groups) {
        if (!g.skipped.empty()) {
            std::printf("  %-6s %-14s %6zu  %s\n", kind.c_str(), g.group.c_str(), g.train_n,
                        ("skipped: " + g.skipped).c_str());
            continue;
        }
        const models::Scores& s = g.scores;
        std::printf("  %-6s %-20s %6zu %5zu %8s %9s %10s %8s %8zu\n", kind.c_str(), g.group.c_str(), g.train_n, s.n,
                    pct(s.mape).c_str(), pct(s.coverage).c_str(), s.regrets.empty() ? "-" : pct(s.regret_median).c_str(),
                    s.regrets.empty() ? "-" : pct(s.regret_max).c_str(), s.regrets.size());
    }
    const models::Scores& o = cv.overall;
    std::printf("  %-6s %-20s %6s %5zu %8s %9s %10s %8s %8zu\n", kind.c_str(), "all held-out", "", o.n,
                pct(o.mape).c_str(), pct(o.coverage).c_str(), o.regrets.empty() ? "-" : pct(o.regret_median).c_str(),
                o.regrets.empty() ? "-" : pct(o.regret_max).c_str(), o.regrets.size());
}

const char* group_title(models::Grouping g) {
    switch (g) {
        case models::Grouping::BySize: return "size (octave of atoms)";
        case models::Grouping::ByHardware: return "hardware";
        case models::Grouping::ByTunable: return "tunable value (regret over all the system's configs)";
    }
    return "?";
}

void print_cv_table(const models::Selection& sel) {
    for (models::Grouping g : models::kGroupings) {
        bool header = false;
        for (const models::CvResult& cv : sel.cv) {
            if (cv.grouping != g) continue;
            if (!header) {
                std::printf("\ncross-validation, leave one %s group out (a held-out group is never in training)\n",
                            group_title(g));
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

// A regret with its interval, and "within noise" when the interval holds 0.
std::string regret_text(const models::SystemRegret& r) {
    if (!r.by_ratio) return pct(r.regret) + " (not measured in rounds: no interval)";
    std::string text = pct(r.regret) + " [" + pct(r.regret_lo) + ", " + pct(r.regret_hi) + "]";
    if (r.within_noise()) text += " within the measurements' noise";
    return text;
}

// Held-out sizes and kinds: fitted without them, scored on them, with the speed-up
// the predicted config gives over mdcore's defaults (both measured).
void print_holdout(const models::Model& model, const std::vector<models::Sample>& test, const models::Scores& s) {
    std::printf("\nheld-out sizes and kinds (never in fitting): %zu trials, MAPE %s, %s inside the 90 %% interval\n",
                s.n, pct(s.mape).c_str(), pct(s.coverage).c_str());
    std::printf("  %-26s %-8s %7s %7s %8s %10s %10s %10s %9s %9s\n", "system", "hardware", "configs", "MAPE", "regret",
                "pred ms", "best ms", "default ms", "tuned x", "best x");
    std::map<std::string, std::vector<const models::Sample*>> by_system;
    for (const models::Sample& t : test) by_system[t.hardware_id + "|" + t.system.canonical()].push_back(&t);
    for (const models::SystemRegret& r : s.regrets) {
        const auto& list = by_system[r.hardware_id + "|" + r.system.canonical()];
        double ape = 0;
        std::optional<double> def;
        for (const models::Sample* t : list) {
            ape += std::abs(model.predict(t->features).ms - t->ms) / t->ms;
            if (t->config.canonical().empty()) def = t->ms;
        }
        // Speed-ups over the default: measured in rounds, the inverse median ratio to
        // each round's default (the raw medians of configs measured in different
        // groups may come from different machine states); else raw medians.
        std::optional<double> tuned_x, best_x;
        if (r.by_ratio) {
            tuned_x = 1.0 / r.predicted_ratio;
            best_x = 1.0 / r.best_ratio;
        } else if (def) {
            tuned_x = *def / r.predicted_ms;
            best_x = *def / r.best_ms;
        }
        std::printf("  %-26s %-8s %7zu %7s %8s %10.3f %10.3f %10s %9s %9s\n", r.system.canonical().c_str(),
                    r.hardware_id.substr(0, 8).c_str(), r.configs, pct(ape / static_cast<double>(list.size())).c_str(),
                    pct(r.regret).c_str(), r.predicted_ms, r.best_ms, def ? format_number("%.3f", *def).c_str() : "-",
                    tuned_x ? format_number("%.2fx", *tuned_x).c_str() : "-",
                    best_x ? format_number("%.2fx", *best_x).c_str() : "-");
        std::printf("  %-26s predicted best %s\n  %-26s measured best  %s\n  %-26s regret %s\n", "",
                    config_text(r.predicted_config).c_str(), "", config_text(r.best_config).c_str(), "",
                    regret_text(r).c_str());
    }
    if (!s.regrets.empty())
        std::printf("  summary: median regret %s, worst %s, MAPE %s; %zu of %zu regrets within the measurements' noise\n",
                    pct(s.regret_median).c_str(), pct(s.regret_max).c_str(), pct(s.mape).c_str(),
                    s.regrets_within_noise, s.regrets.size());
}

void print_kind_summaries(const models::Selection& sel) {
    std::printf("\n  %-6s %8s %9s %10s %8s   (all groupings pooled)\n", "model", "MAPE", "in 90%", "regret med",
                "worst");
    for (models::ModelKind k : models::kModelKinds) {
        const models::KindSummary s = models::summarise(sel, k);
        std::printf("  %-6s %8s %9s %10s %8s%s\n", std::string(to_string(k)).c_str(), pct(s.mape).c_str(),
                    pct(s.coverage).c_str(), pct(s.regret_median).c_str(), pct(s.regret_max).c_str(),
                    k == sel.chosen ? "   <- chosen" : "");
    }
}

void print_holdout_by_kind(const models::FitResult& r) {
    std::printf("\n  %-6s %8s %9s %10s %8s   (held out, each model kind fitted on the same trials)\n", "model", "MAPE",
                "in 90%", "regret med", "worst");
    for (const models::HeldOutKind& h : r.holdout_by_kind) {
        const std::string kind(to_string(h.kind));
        if (!h.scores) {
            std::printf("  %-6s %s\n", kind.c_str(), h.error.c_str());
            continue;
        }
        const models::Scores& s = *h.scores;
        std::printf("  %-6s %8s %9s %10s %8s%s\n", kind.c_str(), pct(s.mape).c_str(), pct(s.coverage).c_str(),
                    s.regrets.empty() ? "-" : pct(s.regret_median).c_str(),
                    s.regrets.empty() ? "-" : pct(s.regret_max).c_str(), h.kind == r.selection.chosen ? "   <- chosen" : "");
    }
}

struct FitOptions {
    std::string db = kDefaultDb, model = "auto", holdout, holdout_kinds;
};

std::set<long> holdout_sizes(const std::string& text) {
    std::set<long> sizes;
    for (const auto& n : split_list(text)) {
        long v = 0;
        const auto [p, ec] = std::from_chars(n.data(), n.data() + n.size(), v);
        if (ec != std::errc{} || p != n.data() + n.size() || v <= 0)
            throw InputError("--holdout-natoms: '" + n + "' is not a positive atom count");
        sizes.insert(v);
    }
    return sizes;
}

std::set<std::string> holdout_kinds(const std::string& text) {
    std::set<std::string> kinds;
    for (const auto& k : split_list(text)) {
        if (k != kFileSystemKind && !mdcore::parse_system_kind(k))
            throw InputError("--holdout-kinds: '" + k + "' is not a system kind (" + mdcore::system_kind_names() +
                             ", " + kFileSystemKind + ")");
        kinds.insert(k);
    }
    return kinds;
}

int fit(const FitOptions& opts) {
    models::FitRequest request{opts.db, model_kind(opts.model), holdout_sizes(opts.holdout),
                               holdout_kinds(opts.holdout_kinds)};
    const models::FitResult r = models::fit_and_store(request, [&](const models::FitResult& loaded) {
        std::printf("mdtune fit: %zu ok trials (%zu machine%s, %zu systems) from %s%s\n", loaded.train.size(),
                    loaded.machines, loaded.machines == 1 ? "" : "s", loaded.systems, opts.db.c_str(),
                    loaded.test.empty() ? "" : (", " + std::to_string(loaded.test.size()) + " held out").c_str());
        std::fflush(stdout);
    });
    const models::Selection& sel = r.selection;
    print_cv_table(sel);
    if (sel.cv.empty()) std::printf("\n(no cross-validation: the trials cover one size group on one machine)\n");
    if (!request.kind && sel.cv.size() > 1) print_kind_summaries(sel);
    std::printf("\n%s: %s — %s\n", request.kind ? "model" : "auto", std::string(to_string(sel.chosen)).c_str(),
                sel.reason.c_str());
    std::printf("fitted %s on %zu trials in %.0f ms (cross-validation %.1f s); stored as model #%ld in %s\n",
                std::string(to_string(sel.chosen)).c_str(), r.train.size(), r.fit_ms, r.cv_ms / 1000.0, r.model_id,
                opts.db.c_str());
    if (r.holdout) {
        print_holdout(*r.model, r.test, *r.holdout);
        print_holdout_by_kind(r);
    }
    return 0;
}

void add_fit(CLI::App& app, int& exit_code) {
    CLI::App* cmd = app.add_subcommand("fit", "Fit a performance model to the database's ok trials and store it");
    auto opts = std::make_shared<FitOptions>();
    add_value(*cmd, "--db", opts->db, "Trial database")->capture_default_str();
    add_model_flag(*cmd, opts->model, true);
    add_value(*cmd, "--holdout-natoms", opts->holdout, "N,...: sizes kept out of fitting and scored afterwards");
    add_value(*cmd, "--holdout-kinds", opts->holdout_kinds,
              "KIND,...: system kinds (e.g. water-ions) kept out of fitting and scored afterwards");
    cmd->callback([opts, &exit_code] { exit_code = fit(*opts); });
}

// ---- predict ---------------------------------------------------------------------

struct PredictOptions {
    std::string db = kDefaultDb, hardware = "this", model;
    SystemFlags system;
    long top = 5;
    bool json = false;
};

void print_ranking(const PredictOptions& opts, const models::PredictResult& p) {
    const models::Ranking& r = p.ranking;
    const std::size_t shown = std::min<std::size_t>(static_cast<std::size_t>(opts.top), r.ranked.size());
    int width = 10;
    for (std::size_t k = 0; k < shown; ++k)
        width = std::max(width, static_cast<int>(config_text(r.ranked[k].config).size()));
    std::printf("  %-4s %-*s %10s %19s %10s %21s\n", "rank", width, "config", "ms/step", "(interval)", "ns/day",
                "(interval)");
    auto row = [&](const std::string& label, const models::RankedConfig& c) {
        std::printf("  %-4s %-*s %10.3f %8.3f - %-8.3f %10.2f %9.2f - %-9.2f%s\n", label.c_str(), width,
                    config_text(c.config).c_str(), c.prediction.ms, c.prediction.lo, c.prediction.hi, c.ns_per_day,
                    c.ns_lo, c.ns_hi, c.prediction.extrapolated ? " *" : "");
    };
    for (std::size_t k = 0; k < shown; ++k) row(std::to_string(k + 1), r.ranked[k]);
    if (r.default_config) {
        row("dflt", *r.default_config);
        std::printf("\n  predicted speed-up of rank 1 over mdcore's defaults: %.2fx%s\n",
                    r.default_config->prediction.ms / r.ranked[0].prediction.ms,
                    models::best_indistinguishable_from_default(r)
                        ? " (indistinguishable from the default: the 90 % intervals overlap)"
                        : "");
    }
    if (std::any_of(r.ranked.begin(), r.ranked.begin() + static_cast<std::ptrdiff_t>(shown),
                    [](const models::RankedConfig& c) { return c.prediction.extrapolated; }))
        std::printf("  * outside the sizes, machines or settings the model was trained on: interval widened;\n"
                    "    configs with settings no training trial covered rank after every covered one\n");
}

int predict(const PredictOptions& opts) {
    const models::PredictRequest request{opts.db, opts.system.checked(), opts.hardware, model_kind(opts.model),
                                         opts.system.candidates()};
    const models::PredictResult p = models::predict_configs(request);
    if (opts.json) {
        std::cout << models::predict_json(request, p, static_cast<std::size_t>(opts.top)).dump(2) << "\n";
        return 0;
    }
    const models::Ranking& r = p.ranking;
    std::printf("mdtune predict: %s (%ld atoms) on %s%s\n", request.system.kind_name().c_str(), r.system_features.natoms,
                p.hardware.id.c_str(), opts.hardware == "this" ? " (this machine)" : "");
    std::printf("model #%ld %s fitted %s (%s)\n", p.model.id, p.model.kind.c_str(), p.model.created_at.c_str(),
                models::cv_headline(p.model).c_str());
    std::printf("%zu feasible candidates, %zu rejected by constraints; 90 %% intervals\n\n", r.ranked.size(),
                r.rejected.size());
    print_ranking(opts, p);
    // Never "run it" for a config predicted slower than mdcore's defaults: then the defaults are the advice.
    const bool keep_defaults = models::default_is_fastest(r);
    const models::RankedConfig& best = keep_defaults ? *r.default_config : r.ranked[0];
    if (keep_defaults)
        std::printf("\n  keep mdcore's defaults: no candidate is predicted faster (rank 1 %.3f, defaults %.3f ms/step)\n",
                    r.ranked[0].prediction.ms, r.default_config->prediction.ms);
    std::printf("\n  run it   %s\n", models::mdcore_command(request.system, best.config).c_str());
    print_gromacs(r.system_features, best.effective, "  ");
    std::printf("\nanswered in %.0f ms without running MD\n", p.elapsed_ms);
    return 0;
}

void add_predict(CLI::App& app, int& exit_code) {
    CLI::App* cmd = app.add_subcommand("predict", "Rank a system's configs with the stored model, without running MD");
    auto opts = std::make_shared<PredictOptions>();
    add_value(*cmd, "--db", opts->db, "Trial database (read-only)")->capture_default_str();
    add_system_flags(*cmd, opts->system);
    add_value(*cmd, "--hardware", opts->hardware, "this, a hardware id (or prefix) of the database, or a node type")
        ->capture_default_str();
    add_value(*cmd, "--top-k", opts->top, "Configs shown")->check(integer_in(1, 10'000))->capture_default_str();
    cmd->add_flag("--json", opts->json, "JSON instead of a table");
    add_model_flag(*cmd, opts->model, false);
    cmd->callback([opts, &exit_code] { exit_code = predict(*opts); });
}

// ---- compare ---------------------------------------------------------------------

struct CompareOptions {
    std::string db = kDefaultDb, hardware, systems, price, watts, plot, model;
};

// --price A=X,... / --watts A=W,...: positive numbers per machine name.
std::vector<std::pair<std::string, double>> per_hardware_values(const std::string& text, const char* flag) {
    std::vector<std::pair<std::string, double>> out;
    for (const auto& item : split_list(text)) {
        const auto eq = item.find('=');
        if (eq == std::string::npos) throw InputError(std::string("--") + flag + ": '" + item + "' is not NAME=VALUE");
        const std::string value = item.substr(eq + 1);
        char* end = nullptr;
        const double v = std::strtod(value.c_str(), &end);
        if (value.empty() || *end || !(v > 0) || !std::isfinite(v))
            throw InputError(std::string("--") + flag + ": '" + value + "' is not a positive number");
        // Beyond these the per-unit columns are hundreds of digits long, and no machine costs or draws that.
        constexpr double kLeast = 1e-6, kMost = 1e12;
        if (v < kLeast || v > kMost)
            throw InputError(std::string("--") + flag + ": '" + value + "' is outside " + format_number("%g", kLeast) +
                             " to " + format_number("%g", kMost));
        for (const auto& [name, ignored] : out)
            if (name == item.substr(0, eq))
                throw InputError(std::string("--") + flag + ": '" + name + "' is given twice");
        out.emplace_back(item.substr(0, eq), v);
    }
    return out;
}

// --systems KIND:NATOMS,...
std::vector<SystemDescriptor> systems_flag(const std::string& text) {
    std::vector<SystemDescriptor> out;
    for (const auto& item : split_list(text)) {
        const auto colon = item.find(':');
        if (colon == std::string::npos) throw InputError("--systems: '" + item + "' is not KIND:NATOMS");
        const std::string n = item.substr(colon + 1);
        long natoms = 0;
        const auto [p, ec] = std::from_chars(n.data(), n.data() + n.size(), natoms);
        if (ec != std::errc{} || p != n.data() + n.size() || natoms < 1 || natoms > 100'000'000)
            throw InputError("--systems: '" + n + "' in '" + item + "' is not an atom count in [1, 100000000]");
        out.push_back(models::checked_system(item.substr(0, colon), natoms, n));
    }
    return out;
}

void print_compare(const models::CompareRequest& request, const models::CompareResult& r) {
    std::printf("mdtune compare: %zu machine%s x %zu system sizes from %s", r.machines.size(),
                r.machines.size() == 1 ? "" : "s", r.systems.size(), request.db.c_str());
    if (r.model) std::printf(" (predictions: model #%ld %s)", r.model->id, r.model->kind.c_str());
    std::printf("\n\n  %-20s %-22s %10s %21s %-10s %14s %13s\n", "system", "hardware", "ns/day", "(90% interval)",
                "source", "per 1k price", "per kW");
    for (const models::CompareCell& c : r.cells) {
        const std::string system = c.system.kind_name() + ":" + std::to_string(c.system.natoms);
        if (!(c.ns_per_day > 0)) {
            std::printf("  %-20s %-22s %10s %21s %-10s\n", system.c_str(), c.label().c_str(), "-", "", "no data");
            continue;
        }
        std::printf("  %-20s %-22s %10.2f %21s %-10s %14s %13s\n", system.c_str(), c.label().c_str(), c.ns_per_day,
                    c.measured ? "" : (format_number("%.2f", c.lo) + " - " + format_number("%.2f", c.hi)).c_str(),
                    c.measured ? "measured" : "predicted",
                    c.per_kilo_price ? format_number("%.3f", *c.per_kilo_price).c_str() : "-",
                    c.per_kilowatt ? format_number("%.2f", *c.per_kilowatt).c_str() : "-");
    }
    std::printf("\n  per 1k price: ns/day per 1,000 units of --price; per kW: ns/day per kilowatt of --watts\n");
}

int compare(const CompareOptions& opts) {
    if (!opts.plot.empty()) check_output_file("--plot", opts.plot);
    models::CompareRequest request;
    request.db = opts.db;
    request.hardware = split_list(opts.hardware);
    for (std::size_t i = 0; i < request.hardware.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
            if (request.hardware[i] == request.hardware[j])
                throw InputError("--hardware: '" + request.hardware[i] + "' is given twice");
    request.systems = systems_flag(opts.systems);
    request.price = per_hardware_values(opts.price, "price");
    request.watts = per_hardware_values(opts.watts, "watts");
    request.kind = model_kind(opts.model);
    const models::CompareResult r = models::compare_hardware(request);
    if (r.model_missing)
        std::fprintf(stderr, "mdtune compare: no model in %s: unmeasured points stay empty (run mdtune fit)\n",
                     opts.db.c_str());
    print_compare(request, r);
    if (!opts.plot.empty()) {
        mdcore::write_text_file(opts.plot, models::compare_plot_svg(r));
        std::printf("  plot: %s\n", opts.plot.c_str());
    }
    return 0;
}

void add_compare(CLI::App& app, int& exit_code) {
    CLI::App* cmd = app.add_subcommand("compare", "The procurement table: ns/day per machine and system size");
    auto opts = std::make_shared<CompareOptions>();
    add_value(*cmd, "--hardware", opts->hardware, "A,B[,...]: hardware ids of the database, node types, or 'this'")
        ->required();
    add_value(*cmd, "--db", opts->db, "Trial database (read-only)")->capture_default_str();
    add_value(*cmd, "--systems", opts->systems, "KIND:NATOMS,... (default: every system measured on them, a user's --gro/--top box included)");
    add_value(*cmd, "--price", opts->price, "A=X,...: price per machine (ns/day per 1,000 units)");
    add_value(*cmd, "--watts", opts->watts, "A=W,...: power per machine (ns/day per kW)");
    add_value(*cmd, "--plot", opts->plot, "Write an SVG plot of ns/day by system size");
    add_model_flag(*cmd, opts->model, false);
    cmd->callback([opts, &exit_code] { exit_code = compare(*opts); });
}

}  // namespace

void add_model_commands(CLI::App& app, int& exit_code) {
    add_fit(app, exit_code);
    add_predict(app, exit_code);
    add_compare(app, exit_code);
}

}  // namespace mdtune::cli
