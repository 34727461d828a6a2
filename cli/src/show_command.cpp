#include <algorithm>
#include <cstdio>
#include <iostream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "cli_options.h"
#include "commands.h"
#include "mdtune/db/store.h"

namespace mdtune::cli {

namespace {

struct ShowOptions {
    std::string db = "mdtune.db";
    long sweep = 0;  // 0: the latest
    std::string sweep_text;
    long top = 10;
    bool json = false;
};

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

    // Rank per system: valid trials by median time (longest measurement first, as
    // successive halving's final rung), then everything that is not ok.
    std::map<std::string, std::vector<const db::StoredTrial*>> by_system;
    for (const auto& t : trials) by_system[t.system.canonical()].push_back(&t);
    nlohmann::json out = nlohmann::json::array();
    for (auto& [system, list] : by_system) {
        std::stable_sort(list.begin(), list.end(), [](const db::StoredTrial* a, const db::StoredTrial* b) {
            const bool oka = a->result.status == TrialStatus::Ok, okb = b->result.status == TrialStatus::Ok;
            if (oka != okb) return oka;
            if (a->measure.steps != b->measure.steps) return a->measure.steps > b->measure.steps;
            return a->result.ms_median < b->result.ms_median;
        });
        int width = 10;
        for (const db::StoredTrial* t : list) width = std::max<int>(width, static_cast<int>(t->config.canonical().size()));
        if (!opts.json) {
            std::printf("sweep %ld  %s\n", sweep_id, system.c_str());
            std::printf("  %-4s %-*s %6s %10s %21s %9s %10s %-8s\n", "rank", width, "config", "steps", "ms/step",
                        "min-max", "ns/day", "drift", "status");
        }
        for (std::size_t k = 0; k < list.size() && k < top; ++k) {
            const db::StoredTrial& t = *list[k];
            const std::string cfg = t.config.canonical().empty() ? "(defaults)" : t.config.canonical();
            if (opts.json) {
                out.push_back({{"system", system}, {"rank", k + 1}, {"config", cfg}, {"steps", t.measure.steps},
                               {"ms_median", t.result.ms_median}, {"ms_min", t.result.ms_min},
                               {"ms_max", t.result.ms_max}, {"ns_per_day", t.result.ns_per_day},
                               {"drift", t.result.drift}, {"status", std::string(to_string(t.result.status))}});
            } else {
                std::printf("  %-4zu %-*s %6ld %10.4f %10.4f-%-10.4f %9.2f %10.2e %-8s\n", k + 1, width, cfg.c_str(),
                            t.measure.steps, t.result.ms_median, t.result.ms_min, t.result.ms_max, t.result.ns_per_day,
                            t.result.drift, std::string(to_string(t.result.status)).c_str());
            }
        }
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
    add_value(*cmd, "--top", opts->top, "Trials shown per system")->check(integer_in(1, 1'000'000))->capture_default_str();
    cmd->add_flag("--json", opts->json, "JSON instead of a table");
    cmd->callback([opts, sweep, &exit_code] {
        opts->sweep_text = typed(sweep);
        exit_code = show(*opts);
    });
}

}  // namespace mdtune::cli
