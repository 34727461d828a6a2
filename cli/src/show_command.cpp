#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "cli_options.h"
#include "commands.h"
#include "mdtune/db/store.h"
#include "mdtune/tuner/rounds.h"
#include "mdtune/tuner/verdict.h"
#include "model_output.h"
#include "verdict_output.h"

namespace mdtune::cli {

namespace {

struct ShowOptions {
    std::string db = "mdtune.db";
    long sweep = 0;  // 0: the latest
    std::string sweep_text;
    long top = 10;
    bool json = false;
    double confidence = tuner::kDefaultConfidence;
};

// The verdict over a system's trials of the sweep (as the sweep judged them).
std::optional<tuner::Verdict> verdict_of(const std::vector<const db::StoredTrial*>& list, double confidence) {
    std::vector<tuner::Observation> history;
    for (const db::StoredTrial* t : list) history.push_back({{t->system, t->config, t->measure}, t->result});
    return tuner::judge(history, list.front()->system, confidence);
}

// "best", "tie" (cannot be told apart from the best), "noisy" or "".
std::string mark_of(const db::StoredTrial& t, const std::optional<tuner::Verdict>& v) {
    if (is_noisy(t.result)) return "noisy";
    if (!v) return "";
    const auto same = [&t](const tuner::Observation& o) {
        return o.proposal.config == t.config && o.proposal.measure.canonical() == t.measure.canonical();
    };
    if (same(v->best)) return "best";
    for (const tuner::Observation& o : v->tied)
        if (same(o)) return "tie";
    return "";
}

// Median ratio to the default in the same rounds with its interval, "-" without
// rounds; one round gives a ratio but no interval (lo, hi NaN).
models::stats::Interval ratio_of(const TrialResult& r, double confidence) {
    const std::vector<double> ratios = clean_ratios(r);
    if (ratios.empty()) return {NAN, NAN, NAN};
    if (ratios.size() == 1) return {ratios.front(), NAN, NAN};
    return models::stats::bootstrap_median(ratios, confidence);
}

std::string ratio_text(const models::stats::Interval& ratio) {
    char vs[64] = "-";
    if (std::isfinite(ratio.lo))
        std::snprintf(vs, sizeof vs, "%.3f (%.3f-%.3f)", ratio.estimate, ratio.lo, ratio.hi);
    else if (std::isfinite(ratio.estimate))
        std::snprintf(vs, sizeof vs, "%.3f (1 round)", ratio.estimate);
    return vs;
}

std::string verdict_line(const tuner::Verdict& v) {
    const int pc = static_cast<int>(std::lround(v.confidence * 100));
    if (v.best_is_default) return "the default configuration is the best measured";
    if (clean_ratios(v.best.result).size() == 1)
        return config_text(v.best.proposal.config) + " is the fastest measured, from one round: no " +
               std::to_string(pc) + "% statement (sweep --rounds 3 or more)";
    return config_text(v.best.proposal.config) +
           (v.indistinguishable_from_default ? " is indistinguishable from the default at "
                                             : " is faster than the default at ") +
           std::to_string(pc) + "% confidence; " + std::to_string(v.tied.size()) + " tie(s)";
}

int show(const ShowOptions& opts) {
    const db::Store store(opts.db, db::Store::Mode::ReadOnly);
    const auto sweeps = store.sweeps();
    if (sweeps.empty()) throw std::runtime_error("no sweeps in " + store.path());
    const long sweep_id = opts.sweep > 0 ? opts.sweep : sweeps.back().id;
    if (std::none_of(sweeps.begin(), sweeps.end(), [&](const db::SweepRow& s) { return s.id == sweep_id; }))
        throw InputError("--sweep: no sweep " + opts.sweep_text + " in " + store.path());
    const auto top = static_cast<std::size_t>(opts.top);
    db::TrialFilter filter;
    filter.sweep_id = sweep_id;
    const auto trials = store.trials(filter);

    // Rank per system: valid trials by median time — by median ratio to the default
    // when all were measured in rounds — (longest measurement first, as
    // successive halving's final rung), then everything that is not ok.
    std::map<std::string, std::vector<const db::StoredTrial*>> by_system;
    for (const auto& t : trials) by_system[t.system.canonical()].push_back(&t);
    nlohmann::json out = nlohmann::json::array();
    for (auto& [system, list] : by_system) {
        std::vector<const TrialResult*> ok;
        for (const db::StoredTrial* t : list)
            if (t->result.status == TrialStatus::Ok) ok.push_back(&t->result);
        // The table shows the column it is ranked by first after the steps.
        const bool by_ratio = tuner::all_have_ratios(ok);
        const auto score = tuner::rank_scores(ok, by_ratio);
        std::stable_sort(list.begin(), list.end(), [&score](const db::StoredTrial* a, const db::StoredTrial* b) {
            const bool oka = a->result.status == TrialStatus::Ok, okb = b->result.status == TrialStatus::Ok;
            if (oka != okb) return oka;
            if (a->measure.steps != b->measure.steps) return a->measure.steps > b->measure.steps;
            if (!oka) return a->result.ms_median < b->result.ms_median;
            return score.at(&a->result) < score.at(&b->result);
        });
        const auto verdict = verdict_of(list, opts.confidence);
        int width = 10;
        for (const db::StoredTrial* t : list) width = std::max<int>(width, static_cast<int>(t->config.canonical().size()));
        if (!opts.json) {
            std::printf("sweep %ld  %s\n", sweep_id, system.c_str());
            std::printf("  %-4s %-*s %6s%s %10s %21s %9s %10s %-8s %-5s%s\n", "rank", width, "config", "steps",
                        by_ratio ? "  vs default (ranked by)    " : "", "ms/step", "min-max", "ns/day", "drift", "status",
                        "mark", by_ratio ? "" : " vs default");
        }
        for (std::size_t k = 0; k < list.size() && k < top; ++k) {
            const db::StoredTrial& t = *list[k];
            const std::string cfg = config_text(t.config);
            const std::string mark = mark_of(t, verdict);
            const models::stats::Interval ratio = ratio_of(t.result, opts.confidence);
            if (opts.json) {
                nlohmann::json row = {{"system", system}, {"rank", k + 1}, {"config", cfg}, {"steps", t.measure.steps},
                               {"ms_median", t.result.ms_median}, {"ms_min", t.result.ms_min},
                               {"ms_max", t.result.ms_max}, {"ns_per_day", t.result.ns_per_day},
                               {"drift", t.result.drift}, {"status", std::string(to_string(t.result.status))},
                               {"mark", mark}, {"rounds", t.result.samples.size()}};
                if (std::isfinite(ratio.estimate)) {
                    const auto bound = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); };
                    row["ratio_to_default"] = {{"median", ratio.estimate}, {"lo", bound(ratio.lo)}, {"hi", bound(ratio.hi)}};
                }
                row["ranked_by"] = by_ratio ? "ratio_to_default" : "ms_median";
                out.push_back(row);
            } else {
                char first[40] = "";
                if (by_ratio) std::snprintf(first, sizeof first, "  %-26s", ratio_text(ratio).c_str());
                std::printf("  %-4zu %-*s %6ld%s %10.4f %10.4f-%-10.4f %9.2f %10.2e %-8s %-5s%s\n", k + 1, width,
                            cfg.c_str(), t.measure.steps, first, t.result.ms_median, t.result.ms_min, t.result.ms_max,
                            t.result.ns_per_day, t.result.drift, std::string(to_string(t.result.status)).c_str(),
                            mark.c_str(), by_ratio ? "" : (" " + ratio_text(ratio)).c_str());
            }
        }
        if (!opts.json && verdict) std::printf("  verdict: %s\n", verdict_line(*verdict).c_str());
    }
    if (opts.json) std::cout << out.dump(2) << "\n";
    return 0;
}

}  // namespace

void add_show_command(CLI::App& app, int& exit_code) {
    CLI::App* cmd = app.add_subcommand("show", "Rank the trials of a sweep per system");
    auto opts = std::make_shared<ShowOptions>();
    add_value(*cmd, "--db", opts->db, "Trial database (read-only)")->capture_default_str();
    CLI::Option* sweep = add_value(*cmd, "--sweep", opts->sweep, "Sweep id (default: the latest)")
                             ->check(integer_in(1, std::numeric_limits<long>::max()));
    add_value(*cmd, "--top-k", opts->top, "Trials shown per system")
        ->check(integer_in(1, 1'000'000))
        ->capture_default_str();
    cmd->add_flag("--json", opts->json, "JSON instead of a table");
    add_value(*cmd, "--confidence", opts->confidence, "Confidence of the marks (best, tie) and intervals")
        ->check(real_in(0.5, 0.999))
        ->capture_default_str();
    cmd->callback([opts, sweep, &exit_code] {
        opts->sweep_text = typed(sweep);
        exit_code = show(*opts);
    });
}

}  // namespace mdtune::cli
