#include "mdtune/tuner/runner.h"

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <fstream>

namespace mdtune::tuner {

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

double cpu_seconds(int who) {
    rusage u{};
    if (getrusage(who, &u) != 0) return 0.0;
    const auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec); };
    return seconds(u.ru_utime) + seconds(u.ru_stime);
}

// Task -> seconds per measured step (reports carry seconds over the measured steps).
std::map<std::string, double> per_step(const std::map<std::string, double>& timings, long measured_steps) {
    std::map<std::string, double> out;
    for (const auto& [task, seconds] : timings) out[task] = seconds / std::max(1L, measured_steps);
    return out;
}

}  // namespace

double children_cpu_seconds() { return cpu_seconds(RUSAGE_CHILDREN); }
double self_cpu_seconds() { return cpu_seconds(RUSAGE_SELF); }

TrialResult Runner::measure(const Proposal& p) {
    TrialResult result;
    result.load_avg = load_average_1min();
    std::vector<mdcore::RunReport> repeats;  // one report per completed repeat
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
        repeats.push_back(out.report);
    }
    if (repeats.empty()) {
        result.status = TrialStatus::Failed;
        result.stderr_tail = "no repeats requested";
        return result;
    }
    TrialResult summary = summarise_repeats(p, repeats);
    summary.load_avg = result.load_avg;
    summary.wall_s = result.wall_s;
    return summary;
}

TrialResult summarise_repeats(const Proposal& p, const std::vector<mdcore::RunReport>& repeats) {
    TrialResult result;
    // The median repeat (lower median for an even count) stands for the trial.
    std::vector<std::size_t> idx(repeats.size());
    for (std::size_t k = 0; k < idx.size(); ++k) idx[k] = k;
    std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return repeats[a].ms_per_step < repeats[b].ms_per_step; });
    const mdcore::RunReport& med = repeats[idx[(idx.size() - 1) / 2]];
    result.repeats = static_cast<int>(repeats.size());
    result.ms_median = med.ms_per_step;
    result.ms_min = repeats[idx.front()].ms_per_step;
    result.ms_max = repeats[idx.back()].ms_per_step;
    result.ns_per_day = med.ns_per_day;
    result.drift = med.drift_per_atom_per_ps;
    result.drift_tolerance = med.config.drift_tolerance;
    result.timings = per_step(med.timings, p.measure.steps - p.measure.warmup);
    result.report = med;
    // Accuracy is a constraint: a config that breaks the drift tolerance in any
    // repeat is recorded but never recommended. "Breaks" means by more than two
    // standard errors of the drift estimate: a short run of a small box
    // fluctuates by more than the tolerance whatever its config.
    bool drift_ok = true;
    for (const mdcore::RunReport& r : repeats)
        drift_ok = drift_ok && !drift_breaks_tolerance(r.drift_per_atom_per_ps, r.drift_stderr_per_atom_per_ps,
                                                       r.config.drift_tolerance);
    result.status = drift_ok ? TrialStatus::Ok : TrialStatus::Invalid;
    return result;
}

}  // namespace mdtune::tuner
