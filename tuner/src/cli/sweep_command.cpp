#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <limits>
#include <sstream>

#include "cli/commands.h"
#include "mdcore/cli_args.h"
#include "mdcore/engine.h"
#include "mdtune/hardware.h"
#include "mdtune/slice.h"
#include "mdtune/sweep.h"

namespace mdtune::cli {

using mdcore::cli::UsageError;

namespace {

void on_signal(int) { request_stop(); }

std::string format_duration(double s) {
    char buf[32];
    if (s < 90) std::snprintf(buf, sizeof buf, "%.0fs", s);
    else if (s < 5400) std::snprintf(buf, sizeof buf, "%.1fmin", s / 60);
    else std::snprintf(buf, sizeof buf, "%.1fh", s / 3600);
    return buf;
}

std::string config_text(const Config& c) { return c.canonical().empty() ? "(defaults)" : c.canonical(); }

// A bar on a terminal (redrawn in place), plain lines otherwise.
void print_progress(const SweepProgress& p, bool tty) {
    const Observation& o = *p.last;
    std::string best = p.best ? config_text(p.best->proposal.config) + " " +
                                    std::to_string(p.best->result.ms_median).substr(0, 6) + " ms/step"
                              : "-";
    char line[512];
    std::snprintf(line, sizeof line, "[%zu/%zu] %s %s %s: %s%s  ETA %s  best %s", p.done, p.planned,
                  o.proposal.system.canonical().c_str(), config_text(o.proposal.config).c_str(),
                  ("steps=" + std::to_string(o.proposal.measure.steps)).c_str(),
                  o.result.status == TrialStatus::Ok
                      ? (std::to_string(o.result.ms_median).substr(0, 6) + " ms/step").c_str()
                      : std::string(to_string(o.result.status)).c_str(),
                  p.last_reused ? " (recorded)" : "", format_duration(p.eta_s).c_str(), best.c_str());
    if (tty) {
        const int width = 30;
        const int filled = p.planned ? static_cast<int>(width * std::min<double>(1.0, double(p.done) / p.planned)) : 0;
        std::printf("\r\033[K[%s%s] %s", std::string(filled, '#').c_str(), std::string(width - filled, '.').c_str(), line);
        std::fflush(stdout);
    } else {
        std::printf("%s\n", line);
        std::fflush(stdout);  // a log file or CI console should follow the sweep live
    }
}

std::vector<std::string> split_words(const std::string& text) {
    std::istringstream in(text);
    std::vector<std::string> words;
    for (std::string w; in >> w;) words.push_back(w);
    return words;
}

}  // namespace

int sweep_command(const Args& args) {
    if (args.empty() || args[0].rfind("--", 0) == 0) throw UsageError("sweep needs a SPACE.toml file");
    const mdcore::cli::ArgMap opts(Args(args.begin() + 1, args.end()),
                                   {{"db", true}, {"strategy", true}, {"budget", true}, {"seed", true}, {"eta", true},
                                    {"name", true}, {"mdcore", true}, {"launcher", true}, {"slice", true}});
    const SearchSpace space = load_space(args[0]);
    const std::string strategy_name = opts.text("strategy").value_or("exhaustive");
    const auto budget = static_cast<std::size_t>(opts.integer("budget", 1, 1'000'000).value_or(0));
    const auto seed = static_cast<unsigned long>(opts.integer("seed", 0, std::numeric_limits<long>::max()).value_or(1));
    const int eta = static_cast<int>(opts.integer("eta", 2, 16).value_or(3));

    const HardwareInfo hw = detect_hardware();
    SweepContext ctx;
    ctx.hardware_id = hw.id;
    ctx.build_id = current_build_id();
    ctx.caps = machine_caps(hw);

    std::unique_ptr<Strategy> strategy;
    if (strategy_name == "exhaustive") strategy = make_exhaustive(space, ctx.caps);
    else if (strategy_name == "random") {
        if (!budget) throw UsageError("--strategy random needs --budget N");
        strategy = make_random(space, ctx.caps, budget, seed);
    } else if (strategy_name == "halving") strategy = make_successive_halving(space, ctx.caps, eta, budget);
    else throw UsageError("--strategy: '" + strategy_name + "' (exhaustive, random, halving)");
    // A Slurm array task measures only its slice (mdtune submit writes --slice i/M).
    std::optional<SliceFilter> slice;
    if (const auto text = opts.text("slice")) {
        if (strategy_name == "halving")
            throw UsageError("--slice works with --strategy exhaustive or random (successive halving needs every "
                             "result of a rung in one place)");
        try {
            slice.emplace(space, parse_slice(*text));
        } catch (const std::invalid_argument& e) {
            throw UsageError(std::string("--slice: ") + e.what());
        }
        strategy = restrict_to_slice(std::move(strategy), *slice, slice->planned_proposals(space, ctx.caps));
        ctx.slice = &*slice;
    }
    std::unique_ptr<StopCondition> stop;
    if (budget && strategy_name != "random") stop = stop_after_trials(budget + space.systems.size());

    Store store(opts.text("db").value_or("mdtune.db"));
    store.put_hardware(hw.id, hw.to_json());
    store.put_build(ctx.build_id, current_build_json());
    const auto runner = make_subprocess_runner(opts.text("mdcore").value_or(default_mdcore_path()),
                                               split_words(opts.text("launcher").value_or("")));

    // Ctrl-C / SIGTERM: stop after killing the run in flight; the database keeps
    // every finished trial and the sweep is marked interrupted.
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);

    const bool tty = isatty(STDOUT_FILENO);
    std::printf("mdtune sweep %s: %zu system(s) x %zu config(s), strategy %s, db %s, hardware %s\n",
                args[0].c_str(), space.systems.size(), space.configs().size(), strategy->name().c_str(),
                store.path().c_str(), hw.id.c_str());
    if (slice) std::printf("slice %s: %zu of the space's points\n", opts.text("slice")->c_str(), slice->size());
    const SweepSummary summary =
        run_sweep(space, store, *runner, *strategy, ctx, opts.text("name").value_or(args[0]), stop.get(),
                  [&](const SweepProgress& p) { print_progress(p, tty); });
    if (tty) std::printf("\n");
    std::printf("sweep %ld %s: %zu measured, %zu reused from the database, %zu not ok\n", summary.sweep_id,
                summary.interrupted ? "interrupted" : "done", summary.measured, summary.reused, summary.failed);
    for (const SystemOutcome& o : summary.systems) {
        std::printf("\n%s\n", o.system.canonical().c_str());
        if (!o.best) {
            std::printf("  no valid configuration measured\n");
            continue;
        }
        const TrialResult& b = o.best->result;
        std::printf("  best      %s: %.4f ms/step (%.4f-%.4f), %.2f ns/day, drift %.2e\n",
                    config_text(o.best->proposal.config).c_str(), b.ms_median, b.ms_min, b.ms_max, b.ns_per_day, b.drift);
        if (o.baseline && o.baseline->result.status == TrialStatus::Ok) {
            const TrialResult& d = o.baseline->result;
            std::printf("  default   %.4f ms/step, %.2f ns/day\n", d.ms_median, d.ns_per_day);
            std::printf("  speed-up  %.2fx over the default configuration\n", d.ms_median / b.ms_median);
        }
        std::string flags;
        for (const auto& a : o.best->proposal.config.mdcore_args()) flags += " " + a;
        std::string sys_flags;
        for (const auto& a : o.system.mdcore_args()) sys_flags += " " + a;
        std::printf("  run it    mdcore run%s%s\n", sys_flags.c_str(), flags.c_str());
    }
    return summary.interrupted ? 130 : 0;
}

}  // namespace mdtune::cli
