#include "mdtune/runner.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

namespace mdtune {

double load_average_1min() {
    std::ifstream in("/proc/loadavg");
    double load = 0.0;
    if (in >> load) return load;
    return 0.0;
}

bool drift_breaks_tolerance(double drift, double drift_stderr, double tolerance) {
    return tolerance > 0 && std::abs(drift) - 2.0 * std::max(0.0, drift_stderr) > tolerance;
}

namespace {

struct Repeat {
    double ms = 0, ns_per_day = 0, drift = 0, drift_stderr = 0, tolerance = 0;
    std::map<std::string, double> timings;  // seconds per measured step
    std::string pairlist, config, report;
};

// Reads the fields the tuner keeps from a RunReport; throws on a malformed report.
Repeat parse_report(const std::string& text, long measured_steps) {
    const auto j = nlohmann::json::parse(text);
    Repeat r;
    r.ms = j.at("ms_per_step").get<double>();
    r.ns_per_day = j.at("ns_per_day").get<double>();
    r.drift = j.at("drift_per_atom_per_ps").get<double>();
    r.drift_stderr = j.value("drift_stderr_per_atom_per_ps", 0.0);  // absent in older reports
    r.tolerance = j.at("config").at("drift_tolerance").get<double>();
    if (j.contains("timings"))
        for (const auto& [task, seconds] : j["timings"].items())
            r.timings[task] = seconds.get<double>() / std::max(1L, measured_steps);
    r.pairlist = j.contains("pairlist") ? j["pairlist"].dump() : "";
    r.config = j["config"].dump();
    r.report = text;
    return r;
}

}  // namespace

TrialResult Runner::measure(const Proposal& p) {
    TrialResult result;
    result.load_avg = load_average_1min();
    std::vector<Repeat> repeats;
    for (int k = 0; k < p.measure.repeats; ++k) {
        if (stop_requested()) {
            result.status = TrialStatus::Failed;
            result.stderr_tail = "interrupted";
            return result;
        }
        const RunOutcome out = run_once(p, k);
        result.wall_s += out.wall_s;
        if (out.status != TrialStatus::Ok) {
            result.status = out.status;
            result.stderr_tail = out.stderr_tail;
            result.repeats = static_cast<int>(repeats.size());
            return result;
        }
        try {
            repeats.push_back(parse_report(out.report_json, p.measure.steps - p.measure.warmup));
        } catch (const std::exception& e) {
            result.status = TrialStatus::Failed;
            result.stderr_tail = std::string("unreadable RunReport: ") + e.what() + "\n" + out.stderr_tail;
            result.repeats = static_cast<int>(repeats.size());
            return result;
        }
    }
    if (repeats.empty()) {
        result.status = TrialStatus::Failed;
        result.stderr_tail = "no repeats requested";
        return result;
    }
    // The median repeat (lower median for an even count) stands for the trial.
    std::vector<std::size_t> idx(repeats.size());
    for (std::size_t k = 0; k < idx.size(); ++k) idx[k] = k;
    std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return repeats[a].ms < repeats[b].ms; });
    const Repeat& med = repeats[idx[(idx.size() - 1) / 2]];
    result.repeats = static_cast<int>(repeats.size());
    result.ms_median = med.ms;
    result.ms_min = repeats[idx.front()].ms;
    result.ms_max = repeats[idx.back()].ms;
    result.ns_per_day = med.ns_per_day;
    result.drift = med.drift;
    result.drift_tolerance = med.tolerance;
    result.timings = med.timings;
    result.pairlist_json = med.pairlist;
    result.config_json = med.config;
    result.report_json = med.report;
    // Accuracy is a constraint: a config that breaks the drift tolerance in any
    // repeat is recorded but never recommended. "Breaks" means by more than two
    // standard errors of the drift estimate: a short run of a small box
    // fluctuates by more than the tolerance whatever its config.
    bool drift_ok = true;
    for (const Repeat& r : repeats) drift_ok = drift_ok && !drift_breaks_tolerance(r.drift, r.drift_stderr, r.tolerance);
    result.status = drift_ok ? TrialStatus::Ok : TrialStatus::Invalid;
    return result;
}

}  // namespace mdtune
