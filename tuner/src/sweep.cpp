#include "mdtune/tuner/sweep.h"

#include <chrono>
#include <cstdio>

#include "mdtune/process/digest.h"
#include "mdcore/engine.h"
#include "trial_claims.h"

namespace mdtune::tuner {
namespace {

TrialKey key_of(const Proposal& p, const SweepContext& ctx) {
    return {ctx.hardware_id, p.system.canonical(), p.config.canonical(), ctx.build_id, p.measure.canonical()};
}

}  // namespace

SweepSummary run_sweep(const SearchSpace& space, db::Store& store, Runner& runner, Strategy& strategy,
                       const SweepContext& ctx, const std::string& sweep_name, const StopCondition* stop,
                       const std::function<void(const SweepProgress&)>& on_progress) {
    SweepSummary summary;
    summary.abandoned_sweeps = store.interrupt_abandoned_sweeps();
    for (const long id : summary.abandoned_sweeps)
        if (ctx.on_note)
            ctx.on_note("sweep " + std::to_string(id) + " was left running by a process that is gone: marked interrupted");
    const process::ProcessIdentity self = process::current_process();
    summary.sweep_id =
        store.create_sweep(sweep_name, space.text, strategy.name(), db::Lease{self, trial_lease_s(space.measure)});
    TrialClaims claims(store, summary.sweep_id, self, ctx.claim_poll_s, ctx.on_note);
    const auto start = std::chrono::steady_clock::now();
    std::vector<Observation> history;
    SweepProgress progress;
    auto measures_baseline = [&](const SystemDescriptor& s) { return !ctx.slice || ctx.slice->contains(s, Config{}); };
    progress.planned = strategy.planned();
    for (const SystemDescriptor& s : space.systems) progress.planned += measures_baseline(s) ? 1 : 0;

    // Measures (or reuses) one proposal; false when interrupted mid-trial.
    auto measure = [&](const Proposal& p) -> bool {
        const TrialKey key = key_of(p, ctx);
        bool reused = false;
        Observation obs{p, {}};
        // A failed, timed-out or crashed trial from an earlier sweep is measured
        // again (the row is replaced); one from this sweep is this sweep's answer.
        const auto needs_retry = [&](const std::optional<db::StoredTrial>& t) {
            return t && ctx.failed_trials == FailedTrials::Retry && is_failure(t->result.status) &&
                   t->sweep_id != summary.sweep_id;
        };
        const auto on_existing =
            ctx.failed_trials == FailedTrials::Retry ? db::Store::OnExisting::ReplaceFailed : db::Store::OnExisting::Keep;
        auto stored = store.find_trial(key);
        bool retry = needs_retry(stored);
        // Claimed before it is measured, so no other sweep measures it too.
        for (ClaimTurn turn; !stored || retry;) {
            if ((turn = claims.acquire(key, p.measure, on_existing)) == ClaimTurn::Stopped) return false;
            stored = store.find_trial(key);  // Recorded: measured meanwhile by the sweep that held the claim
            retry = needs_retry(stored);
            if (turn == ClaimTurn::Measure) break;
        }
        if (stored && !retry) {
            obs.result = stored->result;
            reused = true;
            ++summary.reused;
        } else {
            obs.result = runner.measure(p);
            if (stop_requested()) {  // the trial in flight is not recorded
                claims.release(key);
                return false;
            }
            db::StoredTrial t;
            t.sweep_id = summary.sweep_id;
            t.hardware_id = ctx.hardware_id;
            t.system = p.system;
            t.config = p.config;
            t.build_id = ctx.build_id;
            t.measure = p.measure;
            t.result = obs.result;
            store.insert_trial(t, retry ? db::Store::OnExisting::ReplaceFailed : db::Store::OnExisting::Keep);
            ++summary.measured;
            if (retry) ++summary.retried;
        }
        if (obs.result.status != TrialStatus::Ok) ++summary.failed;
        history.push_back(obs);
        ++progress.done;
        progress.reused = summary.reused;
        progress.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const std::size_t fresh = summary.measured;
        progress.eta_s = fresh > 0 && progress.planned > progress.done
                             ? progress.elapsed_s / static_cast<double>(fresh) * static_cast<double>(progress.planned - progress.done)
                             : 0.0;
        progress.best = best_observation(history, p.system);
        progress.last = &history.back();
        progress.last_reused = reused;
        if (on_progress) on_progress(progress);
        return true;
    };

    for (const SystemDescriptor& system : space.systems) {
        SystemOutcome outcome;
        outcome.system = system;
        summary.systems.push_back(outcome);
    }
    bool interrupted = false;
    // Baselines: the default config at the full measurement settings.
    for (std::size_t s = 0; s < space.systems.size() && !interrupted; ++s) {
        if (!measures_baseline(space.systems[s])) continue;
        if (stop_requested() || !measure({space.systems[s], Config{}, space.measure})) {
            interrupted = true;
            break;
        }
        summary.systems[s].baseline = history.back();
    }
    while (!interrupted) {
        if (stop_requested() || (stop && stop->should_stop(history))) {
            interrupted = stop_requested();
            break;
        }
        const auto proposal = strategy.next(history);
        if (!proposal) break;
        if (!measure(*proposal)) interrupted = true;
    }
    for (auto& outcome : summary.systems) outcome.best = best_observation(history, outcome.system);
    summary.interrupted = interrupted;
    store.finish_sweep(summary.sweep_id, interrupted ? "interrupted" : "done");
    return summary;
}

}  // namespace mdtune::tuner
