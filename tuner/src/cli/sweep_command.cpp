#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <limits>

#include "cli/commands.h"
#include "cli/launcher_flags.h"
#include "mdcore/cli_args.h"
#include "mdcore/engine.h"
#include "mdtune/hardware.h"
#include "mdtune/measurement_identity.h"
#include "mdtune/process/stop_signals.h"
#include "mdtune/slice.h"
#include "mdtune/sweep.h"

namespace mdtune::cli {

using mdcore::cli::UsageError;

namespace {

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

// Above this many trials a sweep must be asked for with --force (or --max-configs).
constexpr long kDefaultMaxConfigs = 100'000;

// Refuses, before anything runs or is written, a sweep whose size the user did
// not choose: every point of a large space (exhaustive, halving without a budget).
void refuse_oversized_sweep(const std::string& source, const SearchSpace& space, const std::string& strategy,
                            std::size_t budget, std::uint64_t max_configs) {
    const std::uint64_t trials = budget > 0 ? std::min<std::uint64_t>(budget, space.size()) : space.size();
    if (trials <= max_configs) return;
    // No timing is known before the first run: the ETA is the upper bound the
    // measure section sets (every trial hitting its timeout on every repeat).
    const double eta_s = static_cast<double>(trials) * space.measure.timeout_s * space.measure.repeats;
    char eta[160];
    std::snprintf(eta, sizeof eta, "ETA up to %s (timeout_s %g s x %d repeats per trial, from [measure])",
                  format_duration(eta_s).c_str(), space.measure.timeout_s, space.measure.repeats);
    throw SpaceError(source + ": strategy " + strategy + " would run " + std::to_string(trials) +
                     " trials ((system, config) points), above the limit of " + std::to_string(max_configs) +
                     " (--max-configs); " + eta +
                     ". Pass --force to run it anyway, or sample it with --strategy random|halving --budget N");
}

// Checked before anything is counted, so a bad flag is named as such.
void check_strategy_flags(const std::string& name, std::size_t budget) {
    if (name != "exhaustive" && name != "random" && name != "halving")
        throw UsageError("--strategy: '" + name + "' (exhaustive, random, halving)");
    if (name == "random" && !budget) throw UsageError("--strategy random needs --budget N");
}

std::unique_ptr<Strategy> make_strategy(const std::string& name, const SearchSpace& space, const HardwareCaps& caps,
                                        std::size_t budget, unsigned long seed, int eta) {
    if (name == "random") return make_random(space, caps, budget, seed);
    if (name == "halving") return make_successive_halving(space, caps, eta, budget, seed);
    return make_exhaustive(space, caps);
}

// --slice i/M of a Slurm array task. A slice is cut from the whole enumerated
// space, so it is limited to spaces a single sweep may run in full.
SliceFilter slice_of_sweep(const SearchSpace& space, const std::string& strategy, const std::string& text,
                           std::uint64_t max_configs) {
    if (strategy == "halving")
        throw UsageError("--slice works with --strategy exhaustive or random (successive halving needs every "
                         "result of a rung in one place)");
    if (space.size() > max_configs)
        throw UsageError("--slice: the space has " + std::to_string(space.size()) +
                         " points, above --max-configs " + std::to_string(max_configs) +
                         " (a slice is cut from the whole enumerated space)");
    try {
        return SliceFilter(space, parse_slice(text));
    } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--slice: ") + e.what());
    }
}

FailedTrials failed_trials_flag(const mdcore::cli::ArgMap& opts) {
    if (opts.has("retry-failed") && opts.has("no-retry-failed"))
        throw UsageError("--retry-failed and --no-retry-failed contradict each other");
    return opts.has("no-retry-failed") ? FailedTrials::Keep : FailedTrials::Retry;
}

// What trials are keyed by besides system, config and settings (see measurement_identity.h).
MeasurementIdentity identify(const std::string& mdcore, const std::vector<std::string>& launcher) {
    try {
        return identify_measurement(mdcore, launcher, environ);
    } catch (const MdcoreNotFound& e) {
        throw UsageError(e.what());
    }
}

// Per system: the best config, the default's speed and the mdcore command line.
void print_outcomes(const SweepSummary& summary) {
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
}

}  // namespace

int sweep_command(const Args& args) {
    if (args.empty() || args[0].rfind("--", 0) == 0) throw UsageError("sweep needs a SPACE.toml file");
    const std::map<std::string, bool> flags{{"db", true},          {"strategy", true}, {"budget", true},
                                            {"seed", true},        {"eta", true},      {"name", true},
                                            {"mdcore", true},      {"launcher", true}, {"max-configs", true},
                                            {"force", false},      {"retry-failed", false},
                                            {"no-retry-failed", false}, {"slice", true}};
    Args rest(args.begin() + 1, args.end());
    const std::vector<std::string> launcher_args = take_repeated_flag(rest, "launcher-arg", flags);
    const mdcore::cli::ArgMap opts(rest, flags);
    const std::vector<std::string> launcher = launcher_words(opts.text("launcher"), launcher_args);
    const SearchSpace space = load_space(args[0]);
    const std::string strategy_name = opts.text("strategy").value_or("exhaustive");
    const auto budget = static_cast<std::size_t>(opts.integer("budget", 1, 1'000'000).value_or(0));
    const auto seed = static_cast<unsigned long>(opts.integer("seed", 0, std::numeric_limits<long>::max()).value_or(1));
    const int eta = static_cast<int>(opts.integer("eta", 2, 16).value_or(3));
    const auto max_configs = static_cast<std::uint64_t>(
        opts.integer("max-configs", 1, std::numeric_limits<long>::max()).value_or(kDefaultMaxConfigs));
    const FailedTrials failed_trials = failed_trials_flag(opts);
    check_strategy_flags(strategy_name, budget);
    if (!opts.has("force")) refuse_oversized_sweep(args[0], space, strategy_name, budget, max_configs);

    const HardwareInfo hw = detect_hardware();
    SweepContext ctx;
    ctx.hardware_id = hw.id;
    ctx.failed_trials = failed_trials;
    ctx.caps = machine_caps(hw);

    std::unique_ptr<Strategy> strategy = make_strategy(strategy_name, space, ctx.caps, budget, seed, eta);
    const InfeasibleTally& dropped = strategy->infeasible();
    if (strategy->planned() == 0)
        throw SpaceError(args[0] + (dropped.complete ? ": nothing feasible to run on this machine: "
                                                     : ": no feasible point found by sampling (a few may exist: narrow "
                                                       "the space's lists): ") +
                         dropped.summary());
    // A Slurm array task measures only its slice (mdtune submit writes --slice i/M).
    std::optional<SliceFilter> slice;
    if (const auto text = opts.text("slice")) {
        slice = slice_of_sweep(space, strategy_name, *text, max_configs);
        strategy = restrict_to_slice(std::move(strategy), *slice, slice->planned_proposals(space, ctx.caps));
        ctx.slice = &*slice;
    }
    std::unique_ptr<StopCondition> stop;
    if (budget && strategy_name != "random") stop = stop_after_trials(budget + space.systems.size());

    const std::string mdcore = opts.text("mdcore").value_or(default_mdcore_path());
    const MeasurementIdentity identity = identify(mdcore, launcher);
    ctx.build_id = measurement_build_id(identity);

    Store store(opts.text("db").value_or("mdtune.db"));
    store.put_hardware(hw.id, hw.to_json());
    store.put_build(ctx.build_id, measurement_build_json(identity));
    const auto runner = make_subprocess_runner(mdcore, launcher);

    // Ctrl-C / SIGTERM: stop after killing the run in flight; the database keeps
    // every finished trial and the sweep is marked interrupted.
    process::stop_on_signals();

    const bool tty = isatty(STDOUT_FILENO);
    ctx.on_note = [tty](const std::string& note) {
        std::printf("%snote: %s\n", tty ? "\r\033[K" : "", note.c_str());
        std::fflush(stdout);
    };
    std::printf("mdtune sweep %s: %zu system(s) x %llu config(s), strategy %s, db %s, hardware %s\n",
                args[0].c_str(), space.systems.size(), static_cast<unsigned long long>(space.config_count()),
                strategy->name().c_str(), store.path().c_str(), hw.id.c_str());
    if (slice) std::printf("slice %s: %zu of the space's points\n", opts.text("slice")->c_str(), slice->size());
    const std::uint64_t examined_before = dropped.examined;
    if (dropped.dropped > 0) std::printf("note: %s\n", dropped.summary().c_str());
    const SweepSummary summary =
        run_sweep(space, store, *runner, *strategy, ctx, opts.text("name").value_or(args[0]), stop.get(),
                  [&](const SweepProgress& p) { print_progress(p, tty); });
    if (tty) std::printf("\n");
    std::printf("sweep %ld %s: %zu measured, %zu reused from the database, %zu not ok", summary.sweep_id,
                summary.interrupted ? "interrupted" : "done", summary.measured, summary.reused, summary.failed);
    if (summary.retried > 0) std::printf(" (%zu recorded failures measured again)", summary.retried);
    std::printf("\n");
    // A space checked point by point as the sweep went: what it dropped on the way.
    if (dropped.examined != examined_before && dropped.dropped > 0) std::printf("note: %s\n", dropped.summary().c_str());
    print_outcomes(summary);
    return summary.interrupted ? 130 : 0;
}

}  // namespace mdtune::cli
