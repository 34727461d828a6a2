#pragma once
// Search strategies see only the space (as data) and the history of observations;
// `next` proposes the next (system, config, measure) or nothing when done.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mdtune/tuner/space.h"

namespace mdtune::tuner {

struct Proposal {
    SystemDescriptor system;
    Config config;
    MeasureSettings measure;
};

struct Observation {
    Proposal proposal;
    TrialResult result;
};

class Strategy {
public:
    virtual ~Strategy() = default;
    virtual std::string name() const = 0;
    // Total proposals this strategy expects to make (for progress), if known.
    virtual std::size_t planned() const = 0;
    virtual std::optional<Proposal> next(const std::vector<Observation>& history) = 0;
    // Points this strategy found infeasible and skipped, by reason (so far: a
    // strategy over a large space may check points only as it reaches them).
    virtual const InfeasibleTally& infeasible() const {
        static const InfeasibleTally none;
        return none;
    }
};

// Strategies decode points from the space by index and never build it whole:
// memory follows the proposals, not the size of the space.

// Every feasible (system, config) once, in space order (a space above 2^20 points
// is checked point by point as the sweep reaches it; planned() is then its size).
std::unique_ptr<Strategy> make_exhaustive(const SearchSpace& space, const HardwareCaps& hw);
// A seeded random sample of `budget` distinct feasible points (0 or more than the
// feasible count: all of them, in seeded order). Same seed, same sample. A space
// above 2^16 points is sampled by drawing distinct indices (rejecting infeasible
// ones), without replacement, giving up after max(100000, 16 x budget) draws.
std::unique_ptr<Strategy> make_random(const SearchSpace& space, const HardwareCaps& hw, std::size_t budget,
                                      unsigned long seed);
// Successive halving per system: rung 0 runs every config with steps / eta^(rungs-1),
// each later rung keeps the best 1/eta (plus any not significantly slower than
// the cut-off config at `confidence`: measured in rounds, by the bootstrap
// interval of their median ratios to the reference; else any whose fastest
// repeat beats the cut-off's slowest) with eta times more steps; the last
// rung uses the space's full measure settings. budget (0 = no limit) caps proposals;
// with a budget, rung 0 of each system is a seeded sample of feasible configs
// (in space order) sized so the system's bracket plans at most budget / systems.
// Rung steps are floored at warmup + 50; a rung with the same steps as the one
// before cuts on the observations it already has. A rung advances only once all
// its proposals are in the history, so next() returns nullopt while the only work
// left waits on unrecorded results: record each result before asking again.
// All strategies skip infeasible points and points already in the history (same
// system, config and measure), so a strategy built on a resumed history continues.
std::unique_ptr<Strategy> make_successive_halving(const SearchSpace& space, const HardwareCaps& hw, int eta,
                                                  std::size_t budget, unsigned long seed = 1,
                                                  double confidence = 0.95);

// Best valid observation: status Ok (drift within tolerance), not noisy, among
// those with the largest `steps` measured for that system (halving's last rung):
// the lowest median ratio to the rounds' reference when all were measured in
// rounds, else the lowest ms_median (verdict.h: ranked_finalists).
std::optional<Observation> best_observation(const std::vector<Observation>& history, const SystemDescriptor& system);

// Stop conditions compose: a sweep stops when any of them says so.
class StopCondition {
public:
    virtual ~StopCondition() = default;
    virtual bool should_stop(const std::vector<Observation>& history) const = 0;
};
std::unique_ptr<StopCondition> stop_after_trials(std::size_t n);
std::unique_ptr<StopCondition> stop_after_seconds(double seconds);  // wall time since creation
std::unique_ptr<StopCondition> stop_any(std::vector<std::unique_ptr<StopCondition>> conditions);

}  // namespace mdtune::tuner
