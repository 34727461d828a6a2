#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>

#include "cli_options.h"
#include "commands.h"
#include "guard_rail_flags.h"
#include "model_output.h"
#include "verdict_output.h"
#include "launcher_flags.h"
#include "mdcore/engine.h"
#include "mdtune/core/hardware.h"
#include "mdtune/core/system_files.h"
#include "mdtune/tuner/engine.h"
#include "mdtune/tuner/measurement_identity.h"
#include "mdtune/process/stop_signals.h"
#include "mdtune/tuner/slice.h"
#include "mdtune/tuner/sweep.h"

namespace mdtune::cli {

namespace {

std::string format_duration(double s) {
    char buf[32];
    if (s < 90) std::snprintf(buf, sizeof buf, "%.0fs", s);
    else if (s < 5400) std::snprintf(buf, sizeof buf, "%.1fmin", s / 60);
    else std::snprintf(buf, sizeof buf, "%.1fh", s / 3600);
    return buf;
}


// A bar on a terminal (redrawn in place), plain lines otherwise.
void print_progress(const tuner::SweepProgress& p, bool tty) {
    const tuner::Observation& o = *p.last;
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
void refuse_oversized_sweep(const std::string& source, const tuner::SearchSpace& space, const std::string& strategy,
                            std::size_t budget, std::uint64_t max_configs) {
    const std::uint64_t trials = budget > 0 ? std::min<std::uint64_t>(budget, space.size()) : space.size();
    if (trials <= max_configs) return;
    // No timing is known before the first run: the ETA is the upper bound the
    // measure section sets (every trial hitting its timeout on every repeat).
    const double eta_s = static_cast<double>(trials) * space.measure.timeout_s * space.measure.repeats;
    char eta[160];
    std::snprintf(eta, sizeof eta, "ETA up to %s (timeout_s %g s x %d repeats per trial, from [measure])",
                  format_duration(eta_s).c_str(), space.measure.timeout_s, space.measure.repeats);
    throw tuner::SpaceError(source + ": strategy " + strategy + " would run " + std::to_string(trials) +
                     " trials ((system, config) points), above the limit of " + std::to_string(max_configs) +
                     " (--max-configs); " + eta +
                     ". Pass --force to run it anyway, or sample it with --strategy random|halving --budget N");
}

// --mdp: the space's gro/top box read again with this .mdp (the flag wins over the
// space's mdp, as mdcore run's flags over its .mdp's). The sweep's record says so.
void with_mdp(tuner::SearchSpace& space, const std::string& mdp) {
    for (SystemDescriptor& system : space.systems) {
        if (!system.from_files())
            throw InputError("--mdp applies to a space whose [system] is a gro/top box, not kind " + system.kind_name());
        system = describe_system_files(system.gro, system.top, mdp);
    }
    space.text += "\n# mdtune sweep --mdp " + mdp + "\n";
}

// Checked before anything is counted, so a bad flag is named as such.
void check_strategy_flags(const std::string& name, std::size_t budget) {
    if (name != "exhaustive" && name != "random" && name != "halving")
        throw InputError("--strategy: '" + name + "' (exhaustive, random, halving)");
    if (name == "random" && !budget) throw InputError("--strategy random needs --budget N");
}

std::unique_ptr<tuner::Strategy> make_strategy(const std::string& name, const tuner::SearchSpace& space, const HardwareCaps& caps,
                                        std::size_t budget, unsigned long seed, int eta, double confidence) {
    if (name == "random") return tuner::make_random(space, caps, budget, seed);
    if (name == "halving") return tuner::make_successive_halving(space, caps, eta, budget, seed, confidence);
    return tuner::make_exhaustive(space, caps);
}

// --slice i/M of a Slurm array task. A slice is cut from the whole enumerated
// space, so it is limited to spaces a single sweep may run in full.
tuner::SliceFilter slice_of_sweep(const tuner::SearchSpace& space, const std::string& strategy, const std::string& text,
                           std::uint64_t max_configs) {
    if (strategy == "halving")
        throw InputError("--slice works with --strategy exhaustive or random (successive halving needs every "
                         "result of a rung in one place)");
    if (space.size() > max_configs)
        throw InputError("--slice: the space has " + std::to_string(space.size()) +
                         " points, above --max-configs " + std::to_string(max_configs) +
                         " (a slice is cut from the whole enumerated space)");
    try {
        return tuner::SliceFilter(space, tuner::parse_slice(text));
    } catch (const std::invalid_argument& e) {
        throw InputError(std::string("--slice: ") + e.what());
    }
}

// What trials are keyed by besides system, config and settings (see measurement_identity.h).
tuner::MeasurementIdentity identify(tuner::Engine& engine, const std::vector<std::string>& launcher) {
    try {
        return engine.identity(launcher, environ);
    } catch (const tuner::MdcoreNotFound& e) {
        throw InputError(e.what());
    }
}

// Per system: the best config, the default's speed, the verdict and the mdcore command line.
void print_outcomes(const tuner::SweepSummary& summary, const tuner::Engine& engine) {
    for (const tuner::SystemOutcome& o : summary.systems) {
        std::printf("\n%s\n", o.system.canonical().c_str());
        if (!o.best || !o.verdict) {
            std::printf("  no valid configuration measured\n");
            if (o.noisy > 0)
                std::printf("  noisy     all %zu valid trial(s) were noisy: most of their repeats did not get the "
                            "threads they asked for (see trial_samples.load_avg); measure on a quieter machine\n",
                            o.noisy);
            continue;
        }
        const TrialResult& b = o.best->result;
        std::printf("  best      %s: %.4f ms/step (%.4f-%.4f), %.2f ns/day, drift %.2e\n",
                    config_text(o.best->proposal.config).c_str(), b.ms_median, b.ms_min, b.ms_max, b.ns_per_day, b.drift);
        if (o.baseline && o.baseline->result.status == TrialStatus::Ok) {
            const TrialResult& d = o.baseline->result;
            std::printf("  default   %.4f ms/step, %.2f ns/day\n", d.ms_median, d.ns_per_day);
        }
        print_verdict(*o.verdict, o.baseline ? &o.baseline->result : nullptr);
        std::printf("  run it    %s\n", engine.command_line(o.system, o.best->proposal.config).c_str());
    }
}

struct SweepOptions {
    std::string space;
    std::string db = "mdtune.db";
    std::string strategy = "exhaustive";
    long budget = 0, seed = 1, eta = 3, max_configs = kDefaultMaxConfigs;
    std::string name, mdcore, slice, mdp;
    std::string launcher_text;
    std::optional<std::string> launcher;
    std::vector<std::string> launcher_args;
    bool force = false, retry_failed = false, no_retry_failed = false;
    long rounds = 0;  // 0: the space's repeats
    double confidence = tuner::kDefaultConfidence;
    GuardRailOptions guard_rails;
};

// Notes about other sweeps, and (without a terminal's progress bar) each finished round.
void print_notes_and_rounds(tuner::SweepContext& ctx, bool tty) {
    ctx.on_note = [tty](const std::string& note) {
        std::printf("%snote: %s\n", tty ? "\r\033[K" : "", note.c_str());
        std::fflush(stdout);
    };
    ctx.on_round = [tty](const SystemDescriptor& system, int round, int rounds) {
        if (tty) return;  // the bar moves when the group's trials are recorded
        std::printf("round %d/%d of %s done\n", round + 1, rounds, system.canonical().c_str());
        std::fflush(stdout);
    };
}

int sweep(const SweepOptions& opts) {
    const std::vector<std::string> launcher = launcher_words(opts.launcher, opts.launcher_args);
    if (opts.retry_failed && opts.no_retry_failed)
        throw InputError("--retry-failed and --no-retry-failed contradict each other");
    const std::string& strategy_name = opts.strategy;
    const auto budget = static_cast<std::size_t>(opts.budget);
    check_strategy_flags(strategy_name, budget);
    check_output_file("--db", opts.db);
    tuner::SearchSpace space = tuner::load_space(opts.space);
    if (!opts.mdp.empty()) with_mdp(space, opts.mdp);
    if (opts.rounds > 0) space.measure.repeats = static_cast<int>(opts.rounds);
    const auto seed = static_cast<unsigned long>(opts.seed);
    const int eta = static_cast<int>(opts.eta);
    const auto max_configs = static_cast<std::uint64_t>(opts.max_configs);
    const tuner::FailedTrials failed_trials = opts.no_retry_failed ? tuner::FailedTrials::Keep : tuner::FailedTrials::Retry;
    if (!opts.force) refuse_oversized_sweep(opts.space, space, strategy_name, budget, max_configs);

    const HardwareInfo hw = detect_hardware();
    tuner::SweepContext ctx;
    ctx.hardware_id = hw.id;
    ctx.failed_trials = failed_trials;
    ctx.caps = machine_caps(hw);
    ctx.confidence = opts.confidence;
    ctx.rounds.seed = seed;
    apply_guard_rails(opts.guard_rails, ctx.rounds);

    // The engine's program first: its own feasibility rules decide what the strategy plans.
    if (space.engine.kind != tuner::EngineKind::Mdcore && !opts.mdcore.empty())
        throw InputError("--mdcore applies to engine mdcore; the space's [engine] program names " +
                         std::string(tuner::engine_name(space.engine.kind)) + "'s program");
    const std::string mdcore = opts.mdcore.empty() ? default_mdcore_path() : opts.mdcore;
    const std::unique_ptr<tuner::Engine> engine = tuner::make_engine(space.engine, mdcore);
    const tuner::MeasurementIdentity identity = identify(*engine, launcher);
    ctx.build_id = tuner::measurement_build_id(identity);
    space.engine_rules = [&engine](const SystemDescriptor& system, const Config& config) {
        return engine->infeasible_reason(system, config);
    };

    std::unique_ptr<tuner::Strategy> strategy = make_strategy(strategy_name, space, ctx.caps, budget, seed, eta, opts.confidence);
    const tuner::InfeasibleTally& dropped = strategy->infeasible();
    if (strategy->planned() == 0)
        throw tuner::SpaceError(opts.space + (dropped.complete ? ": nothing feasible to run on this machine: "
                                                     : ": no feasible point found by sampling (a few may exist: narrow "
                                                       "the space's lists): ") +
                         dropped.summary());
    // A Slurm array task measures only its slice (mdtune submit writes --slice i/M).
    std::optional<tuner::SliceFilter> slice;
    if (!opts.slice.empty()) {
        slice = slice_of_sweep(space, strategy_name, opts.slice, max_configs);
        strategy = tuner::restrict_to_slice(std::move(strategy), *slice, slice->planned_proposals(space, ctx.caps));
        ctx.slice = &*slice;
    }
    std::unique_ptr<tuner::StopCondition> stop;
    if (budget && strategy_name != "random") stop = tuner::stop_after_trials(budget + space.systems.size());

    db::Store store(opts.db);
    store.put_hardware(hw.id, hw.to_json());
    store.put_build(ctx.build_id, tuner::measurement_build_json(identity));
    // A config's ranks start under mpirun (srun inside Slurm) unless --launcher says otherwise.
    const auto runner =
        engine->runner(tuner::local_launch_policy(launcher, space.launch.oversubscribe, space.launch.nodes, ctx.caps.cores));

    // Ctrl-C / SIGTERM: stop after killing the run in flight; the database keeps
    // every finished trial and the sweep is marked interrupted.
    process::stop_on_signals();

    const bool tty = isatty(STDOUT_FILENO);
    print_notes_and_rounds(ctx, tty);
    std::printf("mdtune sweep %s: %zu system(s) x %llu config(s), strategy %s, db %s, hardware %s\n",
                opts.space.c_str(), space.systems.size(), static_cast<unsigned long long>(space.config_count()),
                strategy->name().c_str(), store.path().c_str(), hw.id.c_str());
    if (slice) std::printf("slice %s: %zu of the space's points\n", opts.slice.c_str(), slice->size());
    const std::uint64_t examined_before = dropped.examined;
    if (dropped.dropped > 0) std::printf("note: %s\n", dropped.summary().c_str());
    const tuner::SweepSummary summary =
        tuner::run_sweep(space, store, *runner, *strategy, ctx, opts.name.empty() ? opts.space : opts.name, stop.get(),
                  [&](const tuner::SweepProgress& p) { print_progress(p, tty); });
    if (tty) std::printf("\n");
    std::printf("sweep %ld %s: %zu measured, %zu reused from the database, %zu not ok", summary.sweep_id,
                summary.interrupted ? "interrupted" : "done", summary.measured, summary.reused, summary.failed);
    if (summary.retried > 0) std::printf(" (%zu recorded failures measured again)", summary.retried);
    std::printf("\n");
    // A space checked point by point as the sweep went: what it dropped on the way.
    if (dropped.examined != examined_before && dropped.dropped > 0) std::printf("note: %s\n", dropped.summary().c_str());
    print_outcomes(summary, *engine);
    return summary.interrupted ? process::stop_exit_code() : 0;
}

}  // namespace

void add_sweep_command(CLI::App& app, int& exit_code) {
    CLI::App* cmd = app.add_subcommand("sweep", "Measure the configs of a search space into the trial database");
    auto opts = std::make_shared<SweepOptions>();
    const long most = std::numeric_limits<long>::max();
    cmd->add_option("SPACE.toml", opts->space, "The search space ([system], [space], [measure], [launch])")->required();
    add_value(*cmd, "--db", opts->db, "Trial database (created when missing)")->capture_default_str();
    add_value(*cmd, "--strategy", opts->strategy, "exhaustive, random or halving")
        ->check(word_in({"exhaustive", "random", "halving"}))
        ->capture_default_str();
    add_value(*cmd, "--budget", opts->budget, "Trials to run (random: required; halving: sizes its brackets)")
        ->check(integer_in(1, 1'000'000));
    add_value(*cmd, "--seed", opts->seed, "Seed of random and halving")->check(integer_in(0, most))->capture_default_str();
    add_value(*cmd, "--eta", opts->eta, "Halving's reduction factor")->check(integer_in(2, 16))->capture_default_str();
    add_value(*cmd, "--mdp", opts->mdp,
              "The .mdp the space's gro/top box runs with (instead of its [system] mdp), as mdcore run --mdp takes it");
    add_value(*cmd, "--name", opts->name, "Sweep name (default: the space file)");
    add_value(*cmd, "--mdcore", opts->mdcore, "mdcore executable (default: next to mdtune, else on PATH)");
    add_value(*cmd, "--launcher", opts->launcher_text, "Prefix of every run, split like a shell would (\"mpirun -np 2\")");
    add_values(*cmd, "--launcher-arg", opts->launcher_args, "One more launcher word, verbatim (repeatable)");
    add_value(*cmd, "--max-configs", opts->max_configs, "Refuse sweeps of more trials than this unless --force")
        ->check(integer_in(1, most))->capture_default_str();
    add_value(*cmd, "--rounds", opts->rounds,
              "Interleaved rounds per group: every config once per round (default: the space's repeats)")
        ->check(integer_in(1, 1000));
    add_value(*cmd, "--confidence", opts->confidence,
              "Confidence of the verdicts: which configs cannot be told apart from the best")
        ->check(real_in(0.5, 0.999))
        ->capture_default_str();
    add_guard_rail_flags(*cmd, opts->guard_rails);
    cmd->add_flag("--force", opts->force, "Run a sweep above --max-configs");
    cmd->add_flag("--retry-failed", opts->retry_failed, "Measure recorded failures again (the default)");
    cmd->add_flag("--no-retry-failed", opts->no_retry_failed, "Reuse recorded failures like any result");
    add_value(*cmd, "--slice", opts->slice, "i/M: measure only slice i of M (a Slurm array task's share)");
    cmd->callback([cmd, opts, &exit_code] {
        // An empty --slice (an unset shell variable) would mean the whole space.
        if (cmd->count("--slice") && opts->slice.empty()) throw InputError("--slice: '' is not i/M (e.g. 0/4)");
        if (cmd->count("--launcher")) opts->launcher = opts->launcher_text;
        exit_code = sweep(*opts);
    });
}

}  // namespace mdtune::cli
