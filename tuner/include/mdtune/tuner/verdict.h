#pragma once
// Verdicts of a sweep (docs/user/sweep.md, "Rounds, verdicts and guard rails"): per system,
// the best config, the configs that cannot be told apart from it at the chosen
// confidence, and whether the best can be told apart from the default at all.
// Configs measured in rounds are compared by their ratios to the rounds'
// reference (the default), with percentile bootstrap intervals of the median
// ratio; trials recorded without rounds fall back to their min-max ranges.
#include <optional>
#include <unordered_map>
#include <vector>

#include "mdtune/models/statistics.h"
#include "mdtune/tuner/strategy.h"

namespace mdtune::tuner {

inline constexpr double kDefaultConfidence = 0.95;

struct Verdict {
    double confidence = kDefaultConfidence;
    Observation best;
    // best / default, the median of the best's per-round ratios to the default
    // with its interval (NaN when the best was not measured in rounds).
    models::stats::Interval ratio_to_default{};
    // default / best = 1 / ratio_to_default, interval [1/hi, 1/lo].
    models::stats::Interval speedup{};
    bool best_is_default = false;
    // The default cannot be told apart from the best (its interval holds 1).
    bool indistinguishable_from_default = false;
    std::vector<Observation> tied;  // indistinguishable from the best (the best not included), best first
    std::size_t noisy = 0;          // valid trials left out because most of their repeats were noisy
};

// Whether `a` is significantly slower than `b` at `confidence`: the lower end of
// the interval of median-ratio(a) / median-ratio(b) is above 1 (both measured in
// rounds with a reference), else a's fastest repeat is slower than b's slowest.
bool significantly_slower(const TrialResult& a, const TrialResult& b, double confidence);

// The score a system's trials are ranked by: the median ratio to the reference
// when `by_ratio`, else ms_median.
double rank_score(const TrialResult& r, bool by_ratio);
// rank_score of each trial, computed once (a median per trial) for sort comparators,
// which would otherwise recompute it O(n log n) times.
std::unordered_map<const TrialResult*, double> rank_scores(const std::vector<const TrialResult*>& trials,
                                                           bool by_ratio);
// True when every trial has a clean repeat with a reference ratio (then ranks are by ratio).
bool all_have_ratios(const std::vector<const TrialResult*>& trials);

// A system's valid (ok, not noisy) observations at the longest steps measured
// (halving's last rung), best first: by median ratio to the reference when all
// were measured in rounds, else by ms_median; ties by canonical config text.
// `noisy` (when given) counts the valid ones left out as noisy.
std::vector<const Observation*> ranked_finalists(const std::vector<Observation>& history,
                                                 const SystemDescriptor& system, std::size_t* noisy = nullptr);

// The verdict over a system's valid (ok, not noisy) observations at the longest
// steps measured (halving's last rung); nullopt when there is none.
std::optional<Verdict> judge(const std::vector<Observation>& history, const SystemDescriptor& system,
                             double confidence = kDefaultConfidence);

}  // namespace mdtune::tuner
