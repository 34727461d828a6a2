#include "trial_claims.h"

#include <chrono>
#include <thread>

#include "mdtune/tuner/runner.h"

namespace mdtune::tuner {

double trial_lease_s(const MeasureSettings& measure) {
    constexpr double kGraceS = 2, kMarginS = 60;
    return std::max(1, measure.repeats) * (measure.timeout_s + kGraceS) + kMarginS;
}

TrialClaims::TrialClaims(db::Store& store, long sweep_id, process::ProcessIdentity self, double poll_s,
                         std::function<void(const std::string&)> on_note)
    : store_(store), sweep_id_(sweep_id), self_(std::move(self)), poll_s_(poll_s), on_note_(std::move(on_note)) {}

ClaimTurn TrialClaims::acquire(const TrialKey& key, const MeasureSettings& measure, db::Store::OnExisting on_existing,
                               bool wait) {
    const db::Lease lease{self_, trial_lease_s(measure)};
    const std::string trial = key.system + " " + (key.config.empty() ? "(defaults)" : key.config);
    for (bool told = false;; ) {
        const db::TrialClaim claim = store_.claim_trial(key, sweep_id_, lease, on_existing);
        switch (claim.outcome) {
            case db::TrialClaim::Outcome::Claimed: return ClaimTurn::Measure;
            case db::TrialClaim::Outcome::Recorded: return ClaimTurn::Recorded;
            case db::TrialClaim::Outcome::TakenOver:
                if (on_note_)
                    on_note_("taking over " + trial + ": its claim by sweep " +
                             std::to_string(claim.holder_sweep_id) + " (pid " + std::to_string(claim.holder.pid) +
                             " on " + claim.holder.host + ") is abandoned");
                return ClaimTurn::Measure;
            case db::TrialClaim::Outcome::HeldByOther:
                if (!wait) return ClaimTurn::Held;
                break;
        }
        if (!told && on_note_)
            on_note_(trial + " is claimed by another sweep (sweep " + std::to_string(claim.holder_sweep_id) + ", pid " +
                     std::to_string(claim.holder.pid) + " on " + claim.holder.host + "): waiting for its result");
        told = true;
        const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(poll_s_);
        while (std::chrono::steady_clock::now() < until) {
            if (stop_requested()) return ClaimTurn::Stopped;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    }
}

void TrialClaims::release(const TrialKey& key) { store_.release_claim(key, self_); }

}  // namespace mdtune::tuner
