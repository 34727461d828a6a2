// Sweep ownership and trial claims (schema 5): a sweep whose process is gone is
// marked interrupted, a claimed trial is measured by one sweep only, stale claims
// are taken over — with store handles of this process and of forked processes.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include "../common/temp_dir_test.h"
#include "mdtune/db/store.h"

using namespace mdtune;
using Outcome = db::TrialClaim::Outcome;

namespace {

db::StoredTrial trial(long nstlist, long sweep = 0) {
    db::StoredTrial t;
    t.sweep_id = sweep;
    t.hardware_id = "hw-a";
    t.system = SystemDescriptor{"lj", 256, 7};
    t.config.set(Param::Nstlist, nstlist);
    t.build_id = "build-1";
    t.measure = MeasureSettings{60, 10, 1, 30.0};
    t.result.status = TrialStatus::Ok;
    t.result.repeats = 1;
    t.result.ms_median = 1.0;
    return t;
}

// A process that ran on this host and has exited (its pid reaped).
process::ProcessIdentity dead_process() {
    int fds[2];
    if (pipe(fds) != 0) return {};
    const pid_t child = fork();
    if (child == 0) {
        close(fds[1]);  // only the parent's end keeps it open
        char c;
        (void)!read(fds[0], &c, 1);
        _exit(0);
    }
    close(fds[0]);
    const process::ProcessIdentity id = process::process_on_this_host(child);
    close(fds[1]);
    waitpid(child, nullptr, 0);
    return id;
}

// Another live process of this host: the one that started the test.
process::ProcessIdentity live_other() { return process::process_on_this_host(getppid()); }

process::ProcessIdentity on_another_host() { return {"another-host.example", 4242, "boot/123"}; }

std::string status_of(const db::Store& s, long sweep) {
    for (const db::SweepRow& r : s.sweeps())
        if (r.id == sweep) return r.status;
    return "?";
}

class Ownership : public mdtest::TempDirTest {
protected:
    std::string db() const { return path("trials.db"); }
};

TEST_F(Ownership, SweepsWhoseOwnerIsGoneAreMarkedInterrupted) {
    db::Store s(db());
    const long dead = s.create_sweep("killed", "", "exhaustive", db::Lease{dead_process(), 3600});
    const long alive = s.create_sweep("running", "", "exhaustive", db::Lease{live_other(), 3600});
    const long old_unowned = s.create_sweep("before schema 5", "", "exhaustive");
    const long silent = s.create_sweep("silent elsewhere", "", "exhaustive", db::Lease{on_another_host(), 0.05});
    const long remote = s.create_sweep("busy elsewhere", "", "exhaustive", db::Lease{on_another_host(), 3600});
    ASSERT_EQ(s.claim_trial(trial(10).key(), dead, db::Lease{dead_process(), 3600}).outcome, Outcome::Claimed);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // past the silent sweep's lease

    db::Store other(db());  // the next sweep opening the file
    EXPECT_EQ(other.interrupt_abandoned_sweeps(), (std::vector<long>{dead, silent}));
    EXPECT_EQ(status_of(other, dead), "interrupted");
    EXPECT_EQ(status_of(other, silent), "interrupted");
    EXPECT_EQ(status_of(other, alive), "running");
    EXPECT_EQ(status_of(other, old_unowned), "running");
    EXPECT_EQ(status_of(other, remote), "running");
    // The dead sweep's claim went with it: the trial is free again.
    EXPECT_EQ(other.claim_trial(trial(10).key(), 0, db::Lease{process::current_process(), 60}).outcome, Outcome::Claimed);
    EXPECT_TRUE(other.interrupt_abandoned_sweeps().empty());
}

TEST_F(Ownership, ALiveClaimMakesOthersWaitUntilTheTrialIsRecorded) {
    db::Store a(db()), b(db());
    const db::StoredTrial t = trial(20);
    const db::Lease holder{live_other(), 3600}, waiter{process::current_process(), 3600};
    const long sweep_a = a.create_sweep("a", "", "exhaustive", holder);
    ASSERT_EQ(a.claim_trial(t.key(), sweep_a, holder).outcome, Outcome::Claimed);
    const db::TrialClaim seen = b.claim_trial(t.key(), 0, waiter);
    EXPECT_EQ(seen.outcome, Outcome::HeldByOther);
    EXPECT_EQ(seen.holder_sweep_id, sweep_a);
    EXPECT_EQ(seen.holder.pid, holder.owner.pid);
    EXPECT_EQ(a.claim_trial(t.key(), sweep_a, holder).outcome, Outcome::Claimed) << "the holder renews its own claim";
    ASSERT_TRUE(a.insert_trial(t));
    EXPECT_EQ(b.claim_trial(t.key(), 0, waiter).outcome, Outcome::Recorded);
}

TEST_F(Ownership, StaleClaimsAreTakenOver) {
    db::Store s(db());
    const db::Lease me{process::current_process(), 60};
    ASSERT_EQ(s.claim_trial(trial(1).key(), 0, db::Lease{dead_process(), 3600}).outcome, Outcome::Claimed);
    EXPECT_EQ(s.claim_trial(trial(1).key(), 0, me).outcome, Outcome::TakenOver);
    // Another host: only the heartbeat tells.
    ASSERT_EQ(s.claim_trial(trial(2).key(), 0, db::Lease{on_another_host(), 3600}).outcome, Outcome::Claimed);
    EXPECT_EQ(s.claim_trial(trial(2).key(), 0, me).outcome, Outcome::HeldByOther);
    ASSERT_EQ(s.claim_trial(trial(3).key(), 0, db::Lease{on_another_host(), 0.05}).outcome, Outcome::Claimed);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const db::TrialClaim late = s.claim_trial(trial(3).key(), 0, me);
    EXPECT_EQ(late.outcome, Outcome::TakenOver);
    EXPECT_EQ(late.holder.host, "another-host.example");
}

TEST_F(Ownership, ReleasedAndFinishedClaimsFreeTheTrial) {
    db::Store s(db());
    const db::Lease other{live_other(), 3600}, me{process::current_process(), 60};
    const long sweep = s.create_sweep("other", "", "exhaustive", other);
    ASSERT_EQ(s.claim_trial(trial(1).key(), sweep, other).outcome, Outcome::Claimed);
    ASSERT_EQ(s.claim_trial(trial(2).key(), sweep, other).outcome, Outcome::Claimed);
    s.release_claim(trial(1).key(), me.owner);  // not ours: nothing happens
    EXPECT_EQ(s.claim_trial(trial(1).key(), 0, me).outcome, Outcome::HeldByOther);
    s.release_claim(trial(1).key(), other.owner);
    EXPECT_EQ(s.claim_trial(trial(1).key(), 0, me).outcome, Outcome::Claimed);
    s.finish_sweep(sweep, "interrupted");
    EXPECT_EQ(s.claim_trial(trial(2).key(), 0, me).outcome, Outcome::Claimed);
}

// A recorded failure is claimable again only when failures are retried, and not by the sweep that recorded it.
TEST_F(Ownership, ARecordedFailureIsClaimableWhenFailuresAreRetried) {
    db::Store s(db());
    const db::Lease me{process::current_process(), 60};
    const long first = s.create_sweep("first", "", "exhaustive", me);
    const long second = s.create_sweep("second", "", "exhaustive", me);
    db::StoredTrial failed = trial(30, first);
    failed.result.status = TrialStatus::Crashed;
    ASSERT_TRUE(s.insert_trial(failed));
    EXPECT_EQ(s.claim_trial(failed.key(), second, me).outcome, Outcome::Recorded);
    EXPECT_EQ(s.claim_trial(failed.key(), first, me, db::Store::OnExisting::ReplaceFailed).outcome, Outcome::Recorded);
    EXPECT_EQ(s.claim_trial(failed.key(), second, me, db::Store::OnExisting::ReplaceFailed).outcome, Outcome::Claimed);
    ASSERT_TRUE(s.insert_trial(trial(30, second), db::Store::OnExisting::ReplaceFailed));
    EXPECT_EQ(s.claim_trial(failed.key(), 0, me, db::Store::OnExisting::ReplaceFailed).outcome, Outcome::Recorded);
}

// Two processes claim the same 30 trials through their own connections: each is
// measured (inserted) by exactly one of them, and each sees every trial.
TEST_F(Ownership, TwoProcessesNeverMeasureTheSameTrial) {
    { db::Store init(db()); }
    constexpr int kTrials = 30;
    std::vector<pid_t> workers;
    for (int w = 0; w < 2; ++w) {
        const pid_t pid = fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            int measured = 0, seen = 0;
            try {
                db::Store s(db());
                const db::Lease me{process::current_process(), 60};
                for (int k = 0; k < kTrials; ++k) {
                    const db::StoredTrial t = trial(100 + k);
                    for (;;) {
                        const Outcome o = s.claim_trial(t.key(), 0, me).outcome;
                        if (o == Outcome::Claimed || o == Outcome::TakenOver) {
                            std::this_thread::sleep_for(std::chrono::milliseconds(2));  // "measuring"
                            if (!s.insert_trial(t)) _exit(100);                          // a duplicate
                            ++measured;
                        }
                        if (o != Outcome::HeldByOther) break;
                        std::this_thread::sleep_for(std::chrono::milliseconds(1));
                    }
                    ++seen;
                }
            } catch (...) {
                _exit(101);
            }
            _exit(seen == kTrials ? measured : 102);
        }
        workers.push_back(pid);
    }
    int total = 0;
    for (const pid_t pid : workers) {
        int status = 0;
        waitpid(pid, &status, 0);
        ASSERT_TRUE(WIFEXITED(status));
        ASSERT_LE(WEXITSTATUS(status), kTrials) << "worker failed with " << WEXITSTATUS(status);
        total += WEXITSTATUS(status);
    }
    EXPECT_EQ(total, kTrials);
    EXPECT_EQ(db::Store(db(), db::Store::Mode::ReadOnly).trials().size(), static_cast<std::size_t>(kTrials));
}

}  // namespace
