#pragma once
// Interleaved rounds (docs/user/sweep.md, "Rounds, verdicts and guard rails"): a batch of
// proposals of one system with the same measure settings is measured
// measure.repeats times as rounds — every member once per round, in a fresh
// random order each round, with a reference config (the default) in every
// round — so a drift of the machine touches every member alike, and each
// repeat's time is also known relative to the reference's in the same round.
#include <functional>
#include <vector>

#include "mdtune/tuner/runner.h"

namespace mdtune::tuner {

struct RoundSettings {
    unsigned long seed = 1;       // the order of every round follows from it
    // Guard rail: a repeat whose RepeatSample::cpu_share() is below this did not
    // get the threads it asked for; it is run again up to `reruns` times, then
    // kept and marked noisy (excluded from its trial's statistics).
    double min_cpu_share = 0.5;
    int reruns = 1;
    // Online tuning (mdtune tune): stop after a round, from round kMinDecidingRounds
    // on, once the best member (by median ratio to the reference) is significantly
    // faster than every other member and the reference at `confidence`.
    bool stop_when_decided = false;
    double confidence = 0.95;
};

inline constexpr int kMinDecidingRounds = 3;

struct RoundsOutcome {
    std::vector<TrialResult> members;  // per member, in the batch's order
    TrialResult reference;             // the reference measured alongside (ratio 1 in every round)
    int rounds_run = 0;                // fewer than measure.repeats when stop_when_decided stopped early
    // stop_requested(): nothing of the batch is a result; members and reference are
    // then failed trials "interrupted after N of M round(s)" with the repeats they
    // measured (see is_interrupted), or the failure a member had met before.
    bool interrupted = false;
};

// Measures `members` (may be empty) and `reference` (the same system and
// measure settings) in rounds. A member whose run fails leaves later rounds and
// keeps that status and stderr; the others are summarised over their clean
// (not noisy) repeats as Runner::measure summarises (all repeats when every one
// was noisy), with every repeat in TrialResult::samples; a round whose reference
// run was noisy or failed gives no ratios (ref_ms_per_step 0). on_round is called
// after each round with its number (0-based).
RoundsOutcome measure_in_rounds(Runner& runner, const std::vector<Proposal>& members, const Proposal& reference,
                                const RoundSettings& settings, const std::function<void(int)>& on_round = {});

}  // namespace mdtune::tuner
