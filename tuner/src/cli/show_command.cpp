#include <algorithm>
#include <cstdio>
#include <iostream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "mdcore/cli_args.h"
#include "mdtune/store.h"

namespace mdtune::cli {

using mdcore::cli::UsageError;

int show_command(const Args& args) {
    const mdcore::cli::ArgMap opts(args, {{"db", true}, {"sweep", true}, {"top", true}, {"json", false}});
    const Store store(opts.text("db").value_or("mdtune.db"), Store::Mode::ReadOnly);
    const auto sweeps = store.sweeps();
    if (sweeps.empty()) throw std::runtime_error("no sweeps in " + store.path());
    const long sweep_id = opts.integer("sweep", 1, std::numeric_limits<long>::max()).value_or(sweeps.back().id);
    if (std::none_of(sweeps.begin(), sweeps.end(), [&](const SweepRow& s) { return s.id == sweep_id; }))
        throw UsageError("--sweep: no sweep " + std::to_string(sweep_id) + " in " + store.path());
    const auto top = static_cast<std::size_t>(opts.integer("top", 1, 1'000'000).value_or(10));
    TrialFilter filter;
    filter.sweep_id = sweep_id;
    const auto trials = store.trials(filter);

    // Rank per system: valid trials by median time (longest measurement first, as
    // successive halving's final rung), then everything that is not ok.
    std::map<std::string, std::vector<const StoredTrial*>> by_system;
    for (const auto& t : trials) by_system[t.system.canonical()].push_back(&t);
    nlohmann::json out = nlohmann::json::array();
    for (auto& [system, list] : by_system) {
        std::stable_sort(list.begin(), list.end(), [](const StoredTrial* a, const StoredTrial* b) {
            const bool oka = a->result.status == TrialStatus::Ok, okb = b->result.status == TrialStatus::Ok;
            if (oka != okb) return oka;
            if (a->measure.steps != b->measure.steps) return a->measure.steps > b->measure.steps;
            return a->result.ms_median < b->result.ms_median;
        });
        int width = 10;
        for (const StoredTrial* t : list) width = std::max<int>(width, static_cast<int>(t->config.canonical().size()));
        if (!opts.has("json")) {
            std::printf("sweep %ld  %s\n", sweep_id, system.c_str());
            std::printf("  %-4s %-*s %6s %10s %21s %9s %10s %-8s\n", "rank", width, "config", "steps", "ms/step",
                        "min-max", "ns/day", "drift", "status");
        }
        for (std::size_t k = 0; k < list.size() && k < top; ++k) {
            const StoredTrial& t = *list[k];
            const std::string cfg = t.config.canonical().empty() ? "(defaults)" : t.config.canonical();
            if (opts.has("json")) {
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
    if (opts.has("json")) std::cout << out.dump(2) << "\n";
    return 0;
}

}  // namespace mdtune::cli
