#include "mdtune/tuner/sweep.h"

#include <chrono>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "mdtune/process/digest.h"
#include "mdcore/engine.h"
#include "trial_claims.h"

namespace mdtune::tuner {
namespace {

TrialKey key_of(const Proposal& p, const SweepContext& ctx) {
    return {ctx.hardware_id, p.system.canonical(), p.config.canonical(), ctx.build_id, p.measure.canonical()};
}

// Proposals gathered into one batch at most (a larger space is measured in
// batches of this many, each in its own rounds).
constexpr std::size_t kMaxBatch = 4096;

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
        // No claim (the heartbeat) is made while a group runs its rounds: the lease covers a whole group.
        MeasureSettings group_time = space_.measure;
        // Each repeat may run 1 + reruns times when the machine starves it.
        group_time.repeats = std::max(1, group_time.repeats) * (1 + std::max(0, ctx_.rounds.reruns)) *
                             static_cast<int>(std::max<std::size_t>(1, ctx_.max_group) + 1);
        summary_.sweep_id = store_.create_sweep(sweep_name, space_.text, strategy.name(),
                                                db::Lease{self_, trial_lease_s(group_time)});
        claims_.emplace(store_, summary_.sweep_id, self_, ctx_.claim_poll_s, ctx_.on_note);
        progress_.planned = strategy.planned();
        for (const SystemDescriptor& s : space_.systems) {
            progress_.planned += measures_baseline(s) ? 1 : 0;
            summary_.systems.push_back(SystemOutcome{s, std::nullopt, std::nullopt, std::nullopt, 0});
        }
    }

    // The strategy's proposals, batch by batch, each batch in interleaved rounds;
    // the first batch also holds every system's default config at the full
    // measurement settings (the baselines). False when interrupted.
    bool follow(Strategy& strategy, const StopCondition* stop) {
        std::vector<Proposal> batch;
        for (const SystemDescriptor& s : space_.systems)
            if (measures_baseline(s)) batch.push_back({s, Config{}, space_.measure});
        for (;;) {
            if (stop_requested()) return false;
            gather(strategy, stop, batch);
            if (batch.empty()) return true;
            for (const auto& group : groups_of(batch))
                if (!measure_group(group)) return false;
            batch.clear();
        }
    }

    SweepSummary finish(bool interrupted) {
        for (auto& outcome : summary_.systems) {
            // One ranking per system: the verdict's best is best_observation's.
            outcome.verdict = judge(history_, outcome.system, ctx_.confidence);
            if (outcome.verdict) {
                outcome.best = outcome.verdict->best;
                outcome.noisy = outcome.verdict->noisy;
            } else {
                outcome.best.reset();
                ranked_finalists(history_, outcome.system, &outcome.noisy);  // only the noisy count
            }
            outcome.baseline = baseline_of(outcome.system);
        }
        summary_.interrupted = interrupted;
        store_.finish_sweep(summary_.sweep_id, interrupted ? "interrupted" : "done");
        return summary_;
    }

private:
    // Adds the strategy's proposals to the batch until it has none without new
    // results or the stop condition holds for the history plus the batch.
    void gather(Strategy& strategy, const StopCondition* stop, std::vector<Proposal>& batch) {
        std::vector<Observation> planned = history_;
        std::set<std::string> keys;
        for (const Proposal& p : batch) {
            planned.push_back({p, {}});
            keys.insert(key_of(p, ctx_).str());
        }
        while (batch.size() < kMaxBatch) {
            if (stop && stop->should_stop(planned)) return;
            const auto p = strategy.next(history_);
            if (!p) return;
            if (!keys.insert(key_of(*p, ctx_).str()).second) continue;  // a baseline proposed again
            batch.push_back(*p);
            planned.push_back({*p, {}});
        }
    }

    // The batch split by system and measure settings, in order of first
    // appearance, each part cut into groups of at most ctx.max_group proposals.
    std::vector<std::vector<Proposal>> groups_of(const std::vector<Proposal>& batch) const {
        std::vector<std::vector<Proposal>> parts;
        std::map<std::string, std::size_t> index;
        for (const Proposal& p : batch) {
            const std::string k = p.system.canonical() + "|" + p.measure.canonical();
            const auto [it, added] = index.emplace(k, parts.size());
            if (added) parts.emplace_back();
            parts[it->second].push_back(p);
        }
        const std::size_t most = std::max<std::size_t>(1, ctx_.max_group);
        std::vector<std::vector<Proposal>> groups;
        for (const auto& part : parts)
            for (std::size_t first = 0; first < part.size(); first += most)
                groups.emplace_back(part.begin() + static_cast<long>(first),
                                    part.begin() + static_cast<long>(std::min(part.size(), first + most)));
        return groups;
    }

    std::optional<Observation> baseline_of(const SystemDescriptor& s) const {
        for (const Observation& o : history_)
            if (o.proposal.system.canonical() == s.canonical() && o.proposal.config.canonical().empty() &&
                o.proposal.measure.canonical() == space_.measure.canonical())
                return o;
        return std::nullopt;
    }

    bool measures_baseline(const SystemDescriptor& s) const { return !ctx_.slice || ctx_.slice->contains(s, Config{}); }

    // A failed, timed-out or crashed trial from an earlier sweep is measured
    // again (the row is replaced); one from this sweep is this sweep's answer.
    bool needs_retry(const std::optional<db::StoredTrial>& t) const {
        // An interrupted trial never was a result: measured again whatever the flag says.
        const bool again = ctx_.failed_trials == FailedTrials::Retry || is_interrupted(t ? t->result : TrialResult{});
        return t && again && is_failure(t->result.status) && t->sweep_id != summary_.sweep_id;
    }

    // A proposal's fate: reuse its recorded trial, or measure it (claimed), or stop.
    struct Resolved {
        enum class What { Reuse, Measure, Held, Stopped } what = What::Measure;
        TrialResult recorded;
        bool retry = false;  // a recorded failure measured again (its row is replaced)
    };

    // Claimed before it is measured, so no other sweep measures it too; the
    // claim's lease covers the whole group's rounds.
    Resolved resolve(const Proposal& p, std::size_t group_size, bool wait) {
        const TrialKey key = key_of(p, ctx_);
        MeasureSettings lease = p.measure;
        lease.repeats = std::max(1, p.measure.repeats) * (1 + std::max(0, ctx_.rounds.reruns)) *
                        static_cast<int>(group_size + 1);
        auto stored = store_.find_trial(key);
        bool retry = needs_retry(stored);
        for (ClaimTurn turn; !stored || retry;) {
            // A recorded failure measured again (an interrupted one even with --no-retry-failed)
            // is claimed as replaceable; otherwise a recorded row ends the claim.
            const auto on_existing = ctx_.failed_trials == FailedTrials::Retry || retry
                                         ? db::Store::OnExisting::ReplaceFailed
                                         : db::Store::OnExisting::Keep;
            turn = claims_->acquire(key, lease, on_existing, wait);
            if (turn == ClaimTurn::Stopped) return {Resolved::What::Stopped, {}, false};
            if (turn == ClaimTurn::Held) return {Resolved::What::Held, {}, false};
            stored = store_.find_trial(key);  // Recorded: measured meanwhile by the sweep that held the claim
            retry = needs_retry(stored);
            if (turn == ClaimTurn::Measure) break;
        }
        if (stored && !retry) return {Resolved::What::Reuse, stored->result, false};
        return {Resolved::What::Measure, {}, retry};
    }

    // Measures one group (one system, one measure setting) in interleaved rounds
    // with the default config as reference, reusing recorded trials; false when
    // interrupted (what the group measured is recorded as interrupted trials,
    // docs/user/database.md, and the claims are given back).
    // Trials another sweep is measuring are waited for afterwards, one at a time,
    // holding no other claim meanwhile.
    bool measure_group(const std::vector<Proposal>& group, bool wait = false) {
        std::vector<Resolved> fate;
        std::vector<Proposal> held;
        for (const Proposal& p : group) {
            fate.push_back(resolve(p, group.size(), wait));
            if (fate.back().what == Resolved::What::Stopped) return release(group, fate), false;
            if (fate.back().what == Resolved::What::Held) held.push_back(p);
        }
        if (!measure_resolved(group, fate)) return false;
        for (const Proposal& p : held)
            if (!measure_group({p}, true)) return false;
        return true;
    }

    bool measure_resolved(const std::vector<Proposal>& group, const std::vector<Resolved>& fate) {
        const Proposal reference{group.front().system, Config{}, group.front().measure};
        std::vector<Proposal> members;          // to measure, the reference itself aside
        std::vector<std::size_t> member_at;     // their places in the group
        std::optional<std::size_t> reference_at;
        for (std::size_t i = 0; i < group.size(); ++i) {
            if (fate[i].what != Resolved::What::Measure) continue;
            if (group[i].config.canonical().empty()) {
                reference_at = i;
            } else {
                members.push_back(group[i]);
                member_at.push_back(i);
            }
        }
        std::map<std::size_t, TrialResult> measured;  // by place in the group
        if (!members.empty() || reference_at) {
            const RoundsOutcome out = run_rounds(members, reference);
            for (std::size_t m = 0; m < members.size(); ++m) measured[member_at[m]] = out.members[m];
            if (reference_at) measured[*reference_at] = out.reference;
            if (out.interrupted || stop_requested()) {
                for (const auto& [i, result] : measured) {
                    record(group[i], result, fate[i].retry);
                    if (result.status != TrialStatus::Ok) ++summary_.failed;
                }
                return release(group, fate), false;
            }
        }
        for (std::size_t i = 0; i < group.size(); ++i) {
            if (fate[i].what == Resolved::What::Held) continue;
            const bool reused = fate[i].what == Resolved::What::Reuse;
            const TrialResult& result = reused ? fate[i].recorded : measured.at(i);
            if (reused) ++summary_.reused; else record(group[i], result, fate[i].retry);
            if (result.status != TrialStatus::Ok) ++summary_.failed;
            history_.push_back({group[i], result});
            report_progress(group[i], reused);
        }
        return true;
    }

    RoundsOutcome run_rounds(const std::vector<Proposal>& members, const Proposal& reference) {
        RoundSettings settings = ctx_.rounds;
        settings.seed += groups_measured_++;  // every group its own orders, the same on a rerun
        const int rounds = std::max(1, reference.measure.repeats);
        return measure_in_rounds(runner_, members, reference, settings, [&](int round) {
            if (ctx_.on_round) ctx_.on_round(reference.system, round, rounds);
        });
    }

    // Gives back the claims of a group that will not be recorded.
    void release(const std::vector<Proposal>& group, const std::vector<Resolved>& fate) {
        for (std::size_t i = 0; i < fate.size(); ++i)
            if (fate[i].what == Resolved::What::Measure) claims_->release(key_of(group[i], ctx_));
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
    unsigned long groups_measured_ = 0;
};

}  // namespace

SweepSummary run_sweep(const SearchSpace& space, db::Store& store, Runner& runner, Strategy& strategy,
                       const SweepContext& ctx, const std::string& sweep_name, const StopCondition* stop,
                       const std::function<void(const SweepProgress&)>& on_progress) {
    SweepRun run(space, store, runner, ctx, on_progress);
    run.open(sweep_name, strategy);
    const bool completed = run.follow(strategy, stop);
    return run.finish(!completed);
}

}  // namespace mdtune::tuner
