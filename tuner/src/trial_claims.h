#pragma once
// Internal to the sweep: claims a trial in the store before measuring it, so
// two sweeps over overlapping spaces never measure the same trial twice. When
// another live sweep holds the claim this one waits for its result (and takes
// the claim over if that sweep dies), so both histories stay complete.
#include <functional>
#include <string>

#include "mdtune/db/store.h"

namespace mdtune::tuner {

enum class ClaimTurn {
    Measure,   // the claim is ours: measure, then insert_trial (which drops it)
    Recorded,  // the trial is in the store now (another sweep measured it)
    Stopped,   // stop_requested() while waiting
    Held,      // another live sweep holds it and the caller asked not to wait
};

class TrialClaims {
public:
    TrialClaims(db::Store& store, long sweep_id, process::ProcessIdentity self, double poll_s,
                std::function<void(const std::string&)> on_note);
    // on_existing as for Store::claim_trial: ReplaceFailed when failures are measured again.
    // Without `wait`, a claim another live sweep holds answers Held at once (a sweep
    // claiming a group must not wait while holding claims: two could wait on each other).
    ClaimTurn acquire(const TrialKey& key, const MeasureSettings& measure, db::Store::OnExisting on_existing,
                      bool wait = true);
    void release(const TrialKey& key);

private:
    db::Store& store_;
    long sweep_id_;
    process::ProcessIdentity self_;
    double poll_s_;
    std::function<void(const std::string&)> on_note_;
};

// How long a claim holds without a sign of life, for owners on other hosts:
// every repeat may run to its timeout (plus the SIGTERM grace), with a margin.
double trial_lease_s(const MeasureSettings& measure);

}  // namespace mdtune::tuner
