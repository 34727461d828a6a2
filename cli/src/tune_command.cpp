// mdtune tune: verify the model's top predictions with short runs. The work is
// tune_system() (mdtune/tune.h); this file sets up the machine, the database and
// the runner, registers the flags and prints.
#include <unistd.h>

#include <cstdio>
#include <memory>

#include "cli_options.h"
#include "commands.h"
#include "guard_rail_flags.h"
#include "model_output.h"
#include "verdict_output.h"
#include "mdtune/models/gromacs_settings.h"
#include "mdtune/tuner/measurement_identity.h"
#include "mdtune/models/model_lookup.h"
#include "mdtune/process/stop_signals.h"
#include "mdtune/tuner/tune.h"

namespace mdtune::cli {

namespace {

struct TuneOptions {
    std::string db = "mdtune.db", model, mdcore;
    SystemFlags system;
    long budget = 0, top = 5, steps = 0, repeats = 3;  // budget, steps 0: not given
    GuardRailOptions guard_rails;
};

void print_plan(const tuner::TunePlan& plan, const std::string& db, const SystemDescriptor& system, const std::string& hw) {
    if (plan.model_fitted_now)
        std::printf("no stored model in %s: fitted one (%s) from %zu trials\n", db.c_str(), plan.model_kind.c_str(),
                    plan.training_trials);
    std::printf("mdtune tune: %s on %s, model #%ld %s; verifying the top %zu predictions + the default config\n",
                system.canonical().c_str(), hw.c_str(), plan.model_id, plan.model_kind.c_str(), plan.candidates.size());
    std::printf("measure: %ld steps (%ld warm-up), %d interleaved rounds (each config once per round, random order)\n",
                plan.measure.steps, plan.measure.warmup, plan.measure.repeats);
    std::fflush(stdout);
}

void print_progress(const tuner::SweepProgress& p) {
    const tuner::Observation& o = *p.last;
    std::printf("  [%zu/%zu] %-50s %s%s\n", p.done, p.planned, config_text(o.proposal.config).c_str(),
                o.result.status == TrialStatus::Ok ? format_number("%.3f ms/step", o.result.ms_median).c_str()
                                                   : std::string(to_string(o.result.status)).c_str(),
                p.last_reused ? " (recorded)" : "");
    std::fflush(stdout);
}

int print_outcome(const tuner::TuneResult& r, const SystemDescriptor& system, const std::string& db) {
    std::printf("\n  %-50s %10s %21s %10s %8s\n", "config", "predicted", "(interval)", "measured", "error");
    for (const tuner::VerifiedConfig& v : r.verified) {
        const bool ok = v.measured.status == TrialStatus::Ok;
        std::printf("  %-50s %10.3f %9.3f - %-9.3f %10s %8s\n", config_text(v.config).c_str(), v.predicted.ms,
                    v.predicted.lo, v.predicted.hi,
                    ok ? format_number("%.3f", v.measured.ms_median).c_str()
                       : std::string(to_string(v.measured.status)).c_str(),
                    ok ? pct(v.predicted.ms / v.measured.ms_median - 1.0).c_str() : "-");
    }
    const tuner::SystemOutcome& o = r.summary.systems.at(0);
    if (!o.best) {
        std::printf("\nno valid configuration measured\n");
        return r.summary.interrupted ? process::stop_exit_code() : 1;
    }
    const TrialResult& b = o.best->result;
    std::printf("\n  measured best  %s: %.3f ms/step (%.3f-%.3f over %d rounds), %.2f ns/day\n",
                config_text(o.best->proposal.config).c_str(), b.ms_median, b.ms_min, b.ms_max, b.repeats, b.ns_per_day);
    if (o.baseline && o.baseline->result.status == TrialStatus::Ok)
        std::printf("  default        %.3f ms/step, %.2f ns/day\n", o.baseline->result.ms_median,
                    o.baseline->result.ns_per_day);
    if (o.verdict) print_verdict(*o.verdict, o.baseline ? &o.baseline->result : nullptr);
    if (b.repeats < r.plan.measure.repeats)
        std::printf("  stopped        after %d of %d rounds: the best was significantly ahead\n", b.repeats,
                    r.plan.measure.repeats);
    std::printf("  time spent     %.1f s measuring\n", r.elapsed_s);
    std::printf("  run it         %s\n", models::mdcore_command(system, o.best->proposal.config).c_str());
    print_gromacs(r.system_features, r.best_effective, "  ");
    std::printf("recorded in %s as sweep %ld\n", db.c_str(), r.summary.sweep_id);
    return r.summary.interrupted ? process::stop_exit_code() : 0;
}

int tune(const TuneOptions& opts) {
    tuner::TuneRequest request;
    request.system = opts.system.checked();
    request.grid = opts.system.candidates();
    request.top = static_cast<std::size_t>(opts.top);
    if (opts.budget) request.budget = static_cast<std::size_t>(opts.budget);
    if (opts.steps) request.steps = opts.steps;
    request.repeats = static_cast<int>(opts.repeats);
    request.kind = model_kind(opts.model);
    models::require_database(opts.db);
    db::Store store(opts.db);

    const HardwareInfo info = detect_hardware();
    const models::HardwareFeatures hw = models::this_hardware();
    store.put_hardware(info.id, info.to_json());
    tuner::MeasurementIdentity identity;
    const std::string mdcore = opts.mdcore.empty() ? default_mdcore_path() : opts.mdcore;
    try {
        identity = tuner::identify_measurement(mdcore, {}, environ);  // trials keyed as a sweep keys them
    } catch (const tuner::MdcoreNotFound& e) {
        throw InputError(e.what());
    }
    tuner::SweepContext ctx;
    ctx.hardware_id = info.id;
    ctx.build_id = tuner::measurement_build_id(identity);
    ctx.caps = hw.caps();
    apply_guard_rails(opts.guard_rails, ctx.rounds);
    store.put_build(ctx.build_id, tuner::measurement_build_json(identity));
    const auto runner = tuner::make_subprocess_runner(mdcore, tuner::local_launch_policy({}, false, 1, ctx.caps.cores));

    process::stop_on_signals();
    tuner::TuneEvents events;
    events.planned = [&](const tuner::TunePlan& plan) { print_plan(plan, opts.db, request.system, hw.id); };
    events.progress = print_progress;
    const tuner::TuneResult r = tuner::tune_system(request, store, *runner, ctx, hw, events);
    return print_outcome(r, request.system, opts.db);
}

}  // namespace

void add_tune_command(CLI::App& app, int& exit_code) {
    CLI::App* cmd = app.add_subcommand("tune", "Measure the model's top predictions for a system and the default config");
    auto opts = std::make_shared<TuneOptions>();
    add_system_flags(*cmd, opts->system);
    add_value(*cmd, "--db", opts->db, "Trial database (must exist; trials are added to it)")->capture_default_str();
    add_value(*cmd, "--budget", opts->budget, "Trials including the default (default: --top-k + 1)")
        ->check(integer_in(2, 100'000));
    add_value(*cmd, "--top-k", opts->top, "Predictions to verify")->check(integer_in(1, 1000))->capture_default_str();
    add_value(*cmd, "--steps", opts->steps, "Steps per repeat (default: about 2 s at the predicted speed)")
        ->check(integer_in(10, 10'000'000));
    add_value(*cmd, "--repeats", opts->repeats, "Interleaved rounds: every config once per round")->check(integer_in(1, 99))->capture_default_str();
    add_guard_rail_flags(*cmd, opts->guard_rails);
    add_model_flag(*cmd, opts->model, false);
    add_value(*cmd, "--mdcore", opts->mdcore, "mdcore executable (default: next to mdtune, else on PATH)");
    cmd->callback([opts, &exit_code] { exit_code = tune(*opts); });
}

}  // namespace mdtune::cli
