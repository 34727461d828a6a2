#include "mdtune/tuner/sweep.h"

#include <chrono>
#include <cstdio>
#include <optional>

#include "mdtune/process/digest.h"
#include "mdcore/engine.h"
#include "trial_claims.h"

namespace mdtune::tuner {
namespace {

TrialKey key_of(const Proposal& p, const SweepContext& ctx) {
    return {ctx.hardware_id, p.system.canonical(), p.config.canonical(), ctx.build_id, p.measure.canonical()};
}

// One run of run_sweep: the summary, the history and the progress it reports,
// and how one proposal is measured or reused.
class SweepRun {
public:
    SweepRun(const SearchSpace& space, db::Store& store, Runner& runner, const SweepContext& ctx,
             const std::function<void(const SweepProgress&)>& on_progress)
        : space_(space), store_(store), runner_(runner), ctx_(ctx), on_progress_(on_progress) {}

    // Marks abandoned sweeps interrupted and opens this one.
    void open(const std::string& sweep_name, const Strategy& strategy) {
        summary_.abandoned_sweeps = store_.interrupt_abandoned_sweeps();
        for (const long id : summary_.abandoned_sweeps)
            if (ctx_.on_note)
                ctx_.on_note("sweep " + std::to_string(id) +
                             " was left running by a process that is gone: marked interrupted");
        summary_.sweep_id = store_.create_sweep(sweep_name, space_.text, strategy.name(),
                                                db::Lease{self_, trial_lease_s(space_.measure)});
        claims_.emplace(store_, summary_.sweep_id, self_, ctx_.claim_poll_s, ctx_.on_note);
        progress_.planned = strategy.planned();
        for (const SystemDescriptor& s : space_.systems) {
            progress_.planned += measures_baseline(s) ? 1 : 0;
            summary_.systems.push_back(SystemOutcome{s, std::nullopt, std::nullopt});
        }
    }

    // Baselines: the default config of every system at the full measurement settings.
    bool run_baselines() {
        for (std::size_t s = 0; s < space_.systems.size(); ++s) {
            if (!measures_baseline(space_.systems[s])) continue;
            if (stop_requested() || !measure({space_.systems[s], Config{}, space_.measure})) return false;
            summary_.systems[s].baseline = history_.back();
        }
        return true;
    }

    // Follows the strategy until it is done or a stop condition holds; false when interrupted.
    bool follow(Strategy& strategy, const StopCondition* stop) {
        for (;;) {
            if (stop_requested() || (stop && stop->should_stop(history_))) return !stop_requested();
            const auto proposal = strategy.next(history_);
            if (!proposal) return true;
            if (!measure(*proposal)) return false;
        }
    }

    SweepSummary finish(bool interrupted) {
        for (auto& outcome : summary_.systems) outcome.best = best_observation(history_, outcome.system);
        summary_.interrupted = interrupted;
        store_.finish_sweep(summary_.sweep_id, interrupted ? "interrupted" : "done");
        return summary_;
    }

private:
    bool measures_baseline(const SystemDescriptor& s) const { return !ctx_.slice || ctx_.slice->contains(s, Config{}); }

    // A failed, timed-out or crashed trial from an earlier sweep is measured
    // again (the row is replaced); one from this sweep is this sweep's answer.
    bool needs_retry(const std::optional<db::StoredTrial>& t) const {
        return t && ctx_.failed_trials == FailedTrials::Retry && is_failure(t->result.status) &&
               t->sweep_id != summary_.sweep_id;
    }

    // Measures (or reuses) one proposal; false when interrupted mid-trial.
    bool measure(const Proposal& p) {
        const TrialKey key = key_of(p, ctx_);
        Observation obs{p, {}};
        const auto on_existing = ctx_.failed_trials == FailedTrials::Retry ? db::Store::OnExisting::ReplaceFailed
                                                                           : db::Store::OnExisting::Keep;
        auto stored = store_.find_trial(key);
        bool retry = needs_retry(stored);
        // Claimed before it is measured, so no other sweep measures it too.
        for (ClaimTurn turn; !stored || retry;) {
            if ((turn = claims_->acquire(key, p.measure, on_existing)) == ClaimTurn::Stopped) return false;
            stored = store_.find_trial(key);  // Recorded: measured meanwhile by the sweep that held the claim
            retry = needs_retry(stored);
            if (turn == ClaimTurn::Measure) break;
        }
        const bool reused = stored && !retry;
        if (reused) {
            obs.result = stored->result;
            ++summary_.reused;
        } else {
            obs.result = runner_.measure(p);
            if (stop_requested()) {  // the trial in flight is not recorded
                claims_->release(key);
                return false;
            }
            record(p, obs.result, retry);
        }
        if (obs.result.status != TrialStatus::Ok) ++summary_.failed;
        history_.push_back(obs);
        report_progress(p, reused);
        return true;
    }

    void record(const Proposal& p, const TrialResult& result, bool retry) {
        db::StoredTrial t;
        t.sweep_id = summary_.sweep_id;
        t.hardware_id = ctx_.hardware_id;
        t.system = p.system;
        t.config = p.config;
        t.build_id = ctx_.build_id;
        t.measure = p.measure;
        t.result = result;
        store_.insert_trial(t, retry ? db::Store::OnExisting::ReplaceFailed : db::Store::OnExisting::Keep);
        ++summary_.measured;
        if (retry) ++summary_.retried;
    }

    void report_progress(const Proposal& p, bool reused) {
        ++progress_.done;
        progress_.reused = summary_.reused;
        progress_.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
        const std::size_t fresh = summary_.measured;
        progress_.eta_s = fresh > 0 && progress_.planned > progress_.done
                              ? progress_.elapsed_s / static_cast<double>(fresh) *
                                    static_cast<double>(progress_.planned - progress_.done)
                              : 0.0;
        progress_.best = best_observation(history_, p.system);
        progress_.last = &history_.back();
        progress_.last_reused = reused;
        if (on_progress_) on_progress_(progress_);
    }

    const SearchSpace& space_;
    db::Store& store_;
    Runner& runner_;
    const SweepContext& ctx_;
    const std::function<void(const SweepProgress&)>& on_progress_;
    const process::ProcessIdentity self_ = process::current_process();
    std::optional<TrialClaims> claims_;
    const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
    SweepSummary summary_;
    std::vector<Observation> history_;
    SweepProgress progress_;
};

}  // namespace

SweepSummary run_sweep(const SearchSpace& space, db::Store& store, Runner& runner, Strategy& strategy,
                       const SweepContext& ctx, const std::string& sweep_name, const StopCondition* stop,
                       const std::function<void(const SweepProgress&)>& on_progress) {
    SweepRun run(space, store, runner, ctx, on_progress);
    run.open(sweep_name, strategy);
    const bool completed = run.run_baselines() && run.follow(strategy, stop);
    return run.finish(!completed);
}

}  // namespace mdtune::tuner
