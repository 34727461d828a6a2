// Sweep ownership and trial claims (schema 5): which process runs a sweep or
// measures a trial, whether it is gone, and taking over what it left behind.
#include <sqlite3.h>

#include "mdtune/db/store.h"
#include "statement.h"
#include "timestamp.h"

namespace mdtune::db {
namespace {

// On this host a process is checked directly; elsewhere only its heartbeat can tell.
bool owner_gone(const process::ProcessIdentity& owner, double heartbeat_unix, double lease_s, double now) {
    switch (process::liveness(owner)) {
        case process::Liveness::Alive: return false;
        case process::Liveness::Gone: return true;
        case process::Liveness::Unknown: break;
    }
    return now > heartbeat_unix + lease_s;
}

bool same_process(const process::ProcessIdentity& a, const process::ProcessIdentity& b) {
    return a.host == b.host && a.pid == b.pid && a.start == b.start;
}

process::ProcessIdentity identity_at(const sql::Statement& st, int first_column) {
    return {st.column_text(first_column), static_cast<long>(st.column_int(first_column + 1)),
            st.column_text(first_column + 2)};
}

void heartbeat(sqlite3* db, long sweep_id, double lease_s, double now) {
    sql::Statement st(db, "UPDATE sweeps SET heartbeat_unix = ?, lease_s = ? WHERE id = ? AND owner_pid IS NOT NULL");
    st.bind_real(1, now).bind_real(2, lease_s).bind_int(3, sweep_id);
    st.run();
}

// A stored result; with ReplaceFailed a failure of another sweep is not one (it is to be measured again).
bool recorded(sqlite3* db, const std::string& key, long sweep_id, Store::OnExisting on_existing) {
    sql::Statement st(db, "SELECT status, sweep_id FROM trials WHERE trial_key = ?");
    st.bind_text(1, key);
    if (!st.step()) return false;
    if (on_existing == Store::OnExisting::Keep) return true;
    const std::string status = st.column_text(0);
    const bool failure = status == "failed" || status == "timeout" || status == "crashed";
    return !failure || (sweep_id > 0 && st.column_int(1) == sweep_id);
}

void write_claim(sqlite3* db, const std::string& key, long sweep_id, const Lease& lease, double now) {
    sql::Statement st(db,
                      "INSERT INTO trial_claims(trial_key, sweep_id, owner_host, owner_pid, owner_start, claimed_at, "
                      "heartbeat_unix, lease_s) VALUES(?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(trial_key) DO UPDATE SET "
                      "sweep_id = excluded.sweep_id, owner_host = excluded.owner_host, owner_pid = excluded.owner_pid, "
                      "owner_start = excluded.owner_start, claimed_at = excluded.claimed_at, "
                      "heartbeat_unix = excluded.heartbeat_unix, lease_s = excluded.lease_s");
    st.bind_text(1, key);
    if (sweep_id > 0) st.bind_int(2, sweep_id); else st.bind_null(2);
    st.bind_text(3, lease.owner.host).bind_int(4, lease.owner.pid).bind_text(5, lease.owner.start);
    st.bind_text(6, now_iso8601()).bind_real(7, now).bind_real(8, lease.lease_s);
    st.run();
}

}  // namespace

std::vector<long> Store::interrupt_abandoned_sweeps() {
    Transaction tx(db_);
    const double now = now_unix_seconds();
    std::vector<long> abandoned;
    {
        sql::Statement st(db_,
                          "SELECT id, owner_host, owner_pid, owner_start, heartbeat_unix, lease_s FROM sweeps "
                          "WHERE status = 'running' AND owner_pid IS NOT NULL");
        while (st.step())
            if (owner_gone(identity_at(st, 1), st.column_real(4), st.column_real(5), now))
                abandoned.push_back(static_cast<long>(st.column_int(0)));
    }
    sql::Statement mark(db_, "UPDATE sweeps SET status = 'interrupted', finished_at = ? WHERE id = ?");
    sql::Statement drop(db_, "DELETE FROM trial_claims WHERE sweep_id = ?");
    for (const long id : abandoned) {
        mark.bind_text(1, now_iso8601()).bind_int(2, id);
        mark.run();
        mark.reset();
        drop.bind_int(1, id);
        drop.run();
        drop.reset();
    }
    tx.commit();
    return abandoned;
}

TrialClaim Store::claim_trial(const TrialKey& key, long sweep_id, const Lease& lease, OnExisting on_existing) {
    const std::string k = key.str();
    Transaction tx(db_);  // BEGIN IMMEDIATE: look and claim under one write lock
    const double now = now_unix_seconds();
    if (sweep_id > 0) heartbeat(db_, sweep_id, lease.lease_s, now);
    TrialClaim answer;
    if (recorded(db_, k, sweep_id, on_existing)) {
        answer.outcome = TrialClaim::Outcome::Recorded;
        tx.commit();
        return answer;
    }
    {
        sql::Statement st(db_,
                          "SELECT sweep_id, owner_host, owner_pid, owner_start, heartbeat_unix, lease_s "
                          "FROM trial_claims WHERE trial_key = ?");
        st.bind_text(1, k);
        if (st.step()) {
            answer.holder_sweep_id = static_cast<long>(st.column_int(0));
            answer.holder = identity_at(st, 1);
            if (!same_process(answer.holder, lease.owner)) {
                const bool gone = owner_gone(answer.holder, st.column_real(4), st.column_real(5), now);
                answer.outcome = gone ? TrialClaim::Outcome::TakenOver : TrialClaim::Outcome::HeldByOther;
            }
        }
    }
    if (answer.outcome != TrialClaim::Outcome::HeldByOther) write_claim(db_, k, sweep_id, lease, now);
    tx.commit();
    return answer;
}

void Store::release_claim(const TrialKey& key, const process::ProcessIdentity& owner) {
    sql::Statement st(db_,
                      "DELETE FROM trial_claims WHERE trial_key = ? AND owner_host = ? AND owner_pid = ? AND "
                      "owner_start = ?");
    st.bind_text(1, key.str()).bind_text(2, owner.host).bind_int(3, owner.pid).bind_text(4, owner.start);
    st.run();
}

}  // namespace mdtune::db
