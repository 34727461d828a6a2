// Replay runner: answers proposals from recorded trials, so strategies and the
// sweep loop can be exercised end to end without running MD.
//
// It works at the run_once level, like every runner, so the shared measurement
// policy in Runner::measure() is exercised too. For a recorded Ok/Invalid trial
// each repeat returns a synthesized RunReport (schema 1 fields measure() reads:
// status, steps, warmup, ms_per_step, ns_per_day, drift_per_atom_per_ps,
// config.drift_tolerance, timings, pairlist) whose ms_per_step values are chosen
// so the summary reproduces the recording:
//   1 repeat: [median];  2 repeats: [median, median];
//   3+ repeats: [min, max, median, median, ...]  -> median, min and max as recorded.
// Drift and tolerance are the recorded ones, so measure() re-derives Invalid from
// them. Failed/Timeout/Crashed recordings replay as that status with their
// stderr tail. Proposals with no recording (by system, config and measure
// canonical text; halving's shorter rungs are not scaled from longer ones) come
// back Failed with "not recorded".
#include <nlohmann/json.hpp>

#include <map>

#include "mdtune/runner.h"

namespace mdtune {
namespace {

using nlohmann::json;

std::string key_of(const Proposal& p) {
    return p.system.canonical() + "|" + p.config.canonical() + "|" + p.measure.canonical();
}

json parse_object(const std::string& text) {
    if (text.empty()) return json::object();
    json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
    return j.is_object() ? j : json::object();
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
        out.report_json = synthesize(p, r, repeat).dump();
        return out;
    }

private:
    static json synthesize(const Proposal& p, const TrialResult& r, int repeat) {
        const int repeats = std::max(1, p.measure.repeats);
        const double ms = ms_for_repeat(r, repeat, repeats);
        const double scale = r.ms_median > 0 ? ms / r.ms_median : 1.0;
        const long measured = std::max(1L, p.measure.steps - p.measure.warmup);

        json j = parse_object(r.report_json);  // keep every recorded field we don't touch
        if (!j.contains("schema_version")) j["schema_version"] = 1;
        j["status"] = "ok";
        j.erase("error");
        j["steps"] = p.measure.steps;
        j["warmup"] = p.measure.warmup;
        j["ms_per_step"] = ms;
        j["ns_per_day"] = scale > 0 ? r.ns_per_day / scale : r.ns_per_day;
        j["drift_per_atom_per_ps"] = r.drift;

        json config = parse_object(r.config_json);
        if (config.empty() && j.contains("config") && j["config"].is_object()) config = j["config"];
        config["drift_tolerance"] = r.drift_tolerance;
        j["config"] = config;

        json pairlist = parse_object(r.pairlist_json);
        if (!pairlist.empty() || !j.contains("pairlist")) j["pairlist"] = pairlist;

        // Recorded timings are seconds per step; reports carry seconds over the
        // measured steps, and slower repeats are slower in every task.
        json timings = json::object();
        for (const auto& [task, per_step] : r.timings) timings[task] = per_step * measured * scale;
        if (!timings.contains("total")) timings["total"] = ms * 1e-3 * measured;
        j["timings"] = timings;
        return j;
    }

    std::map<std::string, TrialResult> recorded_;
};

}  // namespace

std::unique_ptr<Runner> make_replay_runner(const std::vector<Observation>& recorded) {
    return std::make_unique<ReplayRunner>(recorded);
}

}  // namespace mdtune
