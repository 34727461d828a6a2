// Replay runner: answers proposals from recorded trials, so strategies and the
// sweep loop can be exercised end to end without running MD.
//
// It works at the run_once level, like every runner, so the shared measurement
// policy in Runner::measure() is exercised too. For a recorded Ok/Invalid trial
// each repeat returns the recorded RunReport (a default one when the recording
// has none) with the fields measure() reads replaced (status, steps, warmup,
// ms_per_step, ns_per_day, drift_per_atom_per_ps, config.drift_tolerance,
// timings); its ms_per_step values are chosen so the
// summary reproduces the recording:
//   1 repeat: [median];  2 repeats: [median, median];
//   3+ repeats: [min, max, median, median, ...]  -> median, min and max as recorded.
// Drift and tolerance are the recorded ones, so measure() re-derives Invalid from
// them. Failed/Timeout/Crashed recordings replay as that status with their
// stderr tail. A replayed repeat's CPU time is its wall time x threads (it got
// its threads). Proposals with no recording (by system, config and measure
// canonical text; halving's shorter rungs are not scaled from longer ones) come
// back Failed with "not recorded".
#include <algorithm>
#include <map>

#include "mdtune/tuner/runner.h"

namespace mdtune::tuner {
namespace {

std::string key_of(const Proposal& p) {
    return p.system.canonical() + "|" + p.config.canonical() + "|" + p.measure.canonical();
}

double ms_for_repeat(const TrialResult& r, int repeat, int repeats) {
    if (repeats >= 3 && repeat == 0) return r.ms_min;
    if (repeats >= 3 && repeat == 1) return r.ms_max;
    return r.ms_median;
}

class ReplayRunner : public Runner {
public:
    explicit ReplayRunner(const std::vector<Observation>& recorded) {
        for (const Observation& o : recorded) recorded_[key_of(o.proposal)] = o.result;  // last one wins
    }

    RunOutcome run_once(const Proposal& p, int repeat) override {
        RunOutcome out;
        const auto it = recorded_.find(key_of(p));
        if (it == recorded_.end()) {
            out.status = TrialStatus::Failed;
            out.stderr_tail = "not recorded: " + key_of(p);
            return out;
        }
        const TrialResult& r = it->second;
        out.wall_s = r.repeats > 0 ? r.wall_s / r.repeats : r.wall_s;
        if (r.status != TrialStatus::Ok && r.status != TrialStatus::Invalid) {
            out.status = r.status;
            out.stderr_tail = r.stderr_tail;
            return out;
        }
        out.status = TrialStatus::Ok;  // the run itself completed; accuracy is measure()'s call
        out.report = synthesize(p, r, repeat);
        // A replayed run got every thread it asked for.
        out.cpu_s = out.wall_s * std::max(1, out.report.config.threads) * std::max(1, out.report.config.ranks);
        return out;
    }

private:
    static mdcore::RunReport synthesize(const Proposal& p, const TrialResult& r, int repeat) {
        const int repeats = std::max(1, p.measure.repeats);
        const double ms = ms_for_repeat(r, repeat, repeats);
        const double scale = r.ms_median > 0 ? ms / r.ms_median : 1.0;
        const long measured = std::max(1L, p.measure.steps - p.measure.warmup);

        mdcore::RunReport report = r.report.value_or(mdcore::RunReport{});  // keeps every field not set below
        report.status = "ok";
        report.error.clear();
        report.failed_step = -1;
        report.steps = p.measure.steps;
        report.warmup = p.measure.warmup;
        report.ms_per_step = ms;
        report.ns_per_day = scale > 0 ? r.ns_per_day / scale : r.ns_per_day;
        report.drift_per_atom_per_ps = r.drift;
        report.config.drift_tolerance = r.drift_tolerance;
        // Recorded timings are seconds per step; reports carry seconds over the
        // measured steps, and slower repeats are slower in every task.
        report.timings.clear();
        for (const auto& [task, per_step] : r.timings) report.timings[task] = per_step * measured * scale;
        if (!report.timings.count("total")) report.timings["total"] = ms * 1e-3 * measured;
        return report;
    }

    std::map<std::string, TrialResult> recorded_;
};

}  // namespace

std::unique_ptr<Runner> make_replay_runner(const std::vector<Observation>& recorded) {
    return std::make_unique<ReplayRunner>(recorded);
}

}  // namespace mdtune::tuner
