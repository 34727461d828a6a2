#pragma once
// Trial runners: how a proposal becomes a TrialResult. Measurement policy (repeats,
// median and spread, drift check, load average) is common; runners differ only in
// how one mdcore run is executed.
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "mdcore/run_report.h"
#include "mdtune/process/stop_signals.h"
#include "mdtune/tuner/launch.h"
#include "mdtune/tuner/strategy.h"

namespace mdtune::tuner {

// Outcome of one mdcore run.
struct RunOutcome {
    TrialStatus status = TrialStatus::Failed;  // Ok, Failed (exit != 0 or no readable report), Crashed (signal), Timeout
    mdcore::RunReport report;                  // when Ok
    std::string stderr_tail;
    double wall_s = 0;
    double cpu_s = 0;  // CPU seconds the run used (getrusage of the child, or of this process in-process)
};

class Runner {
public:
    virtual ~Runner() = default;
    // Runs one repeat of a proposal.
    virtual RunOutcome run_once(const Proposal& p, int repeat) = 0;
    // Runs measure.repeats repeats and summarises: median/min/max ms per step,
    // the median repeat's report, Invalid when its drift breaks the tolerance,
    // the first non-Ok status otherwise.
    TrialResult measure(const Proposal& p);
};

// The shared summary of a trial's completed repeats (non-empty): median/min/max
// ms per step, the median repeat's report and timings, Invalid when any repeat's
// drift breaks the tolerance. Used by measure() and by interleaved rounds.
TrialResult summarise_repeats(const Proposal& p, const std::vector<mdcore::RunReport>& repeats);

// User + system CPU seconds of this process's reaped children (RUSAGE_CHILDREN)
// and of this process itself, all its threads (RUSAGE_SELF).
double children_cpu_seconds();
double self_cpu_seconds();

// `mdcore run ... --json -` as a child process with a timeout (SIGTERM, then
// SIGKILL), optionally under a launcher prefix such as {"mpirun","-np","2"}.
std::unique_ptr<Runner> make_subprocess_runner(const std::string& mdcore_path, std::vector<std::string> launcher = {});
// The same, each trial started as the policy says: mpirun -np R / srun for a
// config's ranks (mdtune/tuner/launch.h).
std::unique_ptr<Runner> make_subprocess_runner(const std::string& mdcore_path, LaunchPolicy launch);
// Runs argv (argv[0] looked up in PATH) as a child with a timeout, as the
// subprocess runner runs mdcore: Ok with its stdout, or Failed/Crashed/Timeout.
struct ChildOutcome {
    TrialStatus status = TrialStatus::Failed;
    std::string stdout_text;  // when Ok
    std::string stderr_tail;
    double wall_s = 0;
};
ChildOutcome run_child_process(const std::vector<std::string>& argv, double timeout_s);
// Calls libmdcore in this process (tests; no isolation, no timeout).
std::unique_ptr<Runner> make_in_process_runner();
// Answers from recorded trials (by system, config and measure canonical text);
// unknown proposals come back Failed with "not recorded". Lets strategies be
// tested without running MD. Each repeat of a recorded Ok/Invalid trial returns a
// synthesized RunReport whose ms_per_step values make measure() reproduce the
// recorded median (and min/max with 3+ repeats); drift and tolerance are the
// recorded ones. See replay_runner.cpp.
std::unique_ptr<Runner> make_replay_runner(const std::vector<Observation>& recorded);

// True when a measured energy drift exceeds the tolerance by more than two
// standard errors of its estimate (a stderr of 0 means "take the value as is").
bool drift_breaks_tolerance(double drift, double drift_stderr, double tolerance);

// 1-minute load average (from /proc/loadavg), 0 when unavailable.
double load_average_1min();

// Set by the SIGINT/SIGTERM handlers (process::stop_on_signals): the subprocess runner
// then stops the run in flight and reports it Failed with "interrupted", and sweeps stop.
using process::request_stop;
using process::stop_requested;

}  // namespace mdtune::tuner
