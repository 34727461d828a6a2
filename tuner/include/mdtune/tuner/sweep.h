#pragma once
// Runs a search space: the proposals of a strategy are gathered into batches
// (all it proposes before it needs results: everything for exhaustive and
// random, a rung for halving) and measured in interleaved rounds (rounds.h), one
// group per system and measure settings with the default config as the
// reference of every round; each trial is recorded in the store inside a
// transaction with its repeats. Proposals already recorded under the
// same key (hardware, system, config, build, measurement) are reused, so an
// interrupted sweep resumes where it stopped. Recorded failures (failed, timeout,
// crashed) from earlier sweeps are measured again unless the context says Keep;
// invalid trials are results and are reused.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "mdtune/core/build_identity.h"
#include "mdtune/tuner/rounds.h"
#include "mdtune/tuner/runner.h"
#include "mdtune/tuner/verdict.h"
#include "mdtune/tuner/slice.h"
#include "mdtune/db/store.h"

namespace mdtune::tuner {

// What a sweep does with a recorded trial that failed, timed out or crashed.
enum class FailedTrials {
    Retry,  // measure it again and replace the row (the default: failures are often transient)
    Keep,   // reuse it like any recorded result
};

struct SweepContext {
    std::string hardware_id;
    std::string build_id;  // measurement_build_id(): this build, the mdcore binary, launcher and environment
    HardwareCaps caps;
    FailedTrials failed_trials = FailedTrials::Retry;
    const SliceFilter* slice = nullptr;  // Slurm array task: only this slice's baselines
    // A trial another live sweep is measuring is waited for, asking again this often.
    double claim_poll_s = 1.0;
    // Interleaved rounds: the order's seed (each group adds its number) and the guard rail.
    RoundSettings rounds;
    // Proposals measured together in one group's rounds (plus the reference). A
    // larger batch is cut into groups: their rounds share the reference, so
    // ratios stay comparable across groups, and a SIGKILL loses at most the
    // group in flight (a group is recorded when its last round ends).
    std::size_t max_group = 8;
    double confidence = kDefaultConfidence;  // of the verdicts
    // Called after each round of a group: the group's system, the round (0-based) and the rounds in all.
    std::function<void(const SystemDescriptor&, int, int)> on_round;
    // Notes about other sweeps (abandoned ones marked interrupted, claims waited for or taken over).
    std::function<void(const std::string&)> on_note;
};

struct SweepProgress {
    std::size_t done = 0, planned = 0, reused = 0;
    double elapsed_s = 0, eta_s = 0;
    std::optional<Observation> best;
    const Observation* last = nullptr;
    bool last_reused = false;
};

struct SystemOutcome {
    SystemDescriptor system;
    std::optional<Observation> best;       // best valid config measured
    std::optional<Observation> baseline;   // the default config
    std::optional<Verdict> verdict;        // the best, its ties, and whether it beats the default
    std::size_t noisy = 0;                 // valid trials left out: most repeats did not get their threads
};

struct SweepSummary {
    long sweep_id = 0;
    std::size_t measured = 0, reused = 0, failed = 0;
    std::size_t retried = 0;  // of measured: recorded failures measured again
    bool interrupted = false;
    std::vector<SystemOutcome> systems;
    std::vector<long> abandoned_sweeps;  // found running with a dead owner, marked interrupted
};

// Measures the default config of every system (the baseline the speed-up is
// reported against) in the first batch, then follows the strategy batch by batch
// until it is done, a stop condition holds (checked as each proposal joins a
// batch), or stop_requested(). Sweeps of the database whose process is
// gone are marked interrupted first; each trial is claimed before it is measured.
SweepSummary run_sweep(const SearchSpace& space, db::Store& store, Runner& runner, Strategy& strategy,
                       const SweepContext& ctx, const std::string& sweep_name, const StopCondition* stop,
                       const std::function<void(const SweepProgress&)>& on_progress);

}  // namespace mdtune::tuner
