#pragma once
// The trial database: SQLite, numbered migrations, WAL, busy timeout, prepared
// statements, every write in a transaction. The only place in mdtune with SQL.
#include <memory>
#include <functional>
#include <iosfwd>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "mdtune/process/identity.h"
#include "mdtune/core/trial.h"

struct sqlite3;

namespace mdtune::db {

// Any database problem: the message names the file and what failed.
struct DbError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A file mdtune will not use, refused before anything was written to it: not a
// database, corrupt, another program's database, or a newer mdtune schema. Bad
// input rather than a run-time failure (the CLI exits with 2).
struct DbRefusedError : DbError {
    using DbError::DbError;
};

inline constexpr int kSchemaVersion = 8;

// A trial as stored (and as exported / merged).
struct StoredTrial {
    long id = 0;                 // row id (0 before insert)
    long sweep_id = 0;           // 0 when not part of a sweep
    std::string hardware_id;
    SystemDescriptor system;
    Config config;
    std::string build_id;
    MeasureSettings measure;
    TrialResult result;
    std::string created_at;      // ISO 8601 UTC, set by the store
    TrialKey key() const;
};

struct SweepRow {
    long id = 0;
    std::string name;
    std::string space_text;      // the TOML as given
    std::string strategy;
    std::string status;          // running | done | interrupted
    std::string started_at, finished_at;
};

// The process running a sweep or measuring a trial, and how long its last
// heartbeat holds: on its own host a dead owner is seen at once (pid gone or
// reused), on another host only when heartbeat + lease_s has passed.
struct Lease {
    process::ProcessIdentity owner;
    double lease_s = 0;
};

// The answer to claim_trial.
struct TrialClaim {
    enum class Outcome {
        Claimed,      // ours now: measure it, then insert_trial (which drops the claim)
        TakenOver,    // ours now; the previous claimant was gone
        Recorded,     // already measured: read it with find_trial
        HeldByOther,  // another live sweep is measuring it: wait, then ask again
    };
    Outcome outcome = Outcome::Claimed;
    long holder_sweep_id = 0;               // HeldByOther / TakenOver: the other claim's sweep (0: none)
    process::ProcessIdentity holder;        // HeldByOther / TakenOver: its owner
};

struct TrialFilter {
    std::optional<long> sweep_id;
    std::optional<std::string> hardware_id;
    std::optional<std::string> system_kind;
    std::optional<long> natoms;
    std::optional<TrialStatus> status;
};

// RAII transaction: BEGIN IMMEDIATE in the constructor, ROLLBACK in the
// destructor unless commit() was called.
class Transaction {
public:
    explicit Transaction(sqlite3* db);
    ~Transaction();
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;
    void commit();

private:
    sqlite3* db_;
    bool done_ = false;
};

class Store {
public:
    enum class Mode { ReadWrite, ReadOnly };
    // Opens (creating when missing, in ReadWrite mode) and migrates to
    // kSchemaVersion, then switches the file to WAL. Throws DbRefusedError without
    // writing anything when the file is not a database, is corrupt, holds another
    // program's tables, or was written by a newer schema. ReadOnly never writes: a
    // WAL file in a folder this user cannot write is read as immutable when its
    // -wal file holds nothing.
    explicit Store(const std::string& path, Mode mode = Mode::ReadWrite);
    ~Store();
    Store(const Store&) = delete;
    Store& operator=(const Store&) = delete;

    const std::string& path() const { return path_; }
    int schema_version() const;

    // Dimension rows (idempotent upserts keyed by id; json is stored as given).
    void put_hardware(const std::string& id, const std::string& json);
    void put_build(const std::string& id, const std::string& json);
    std::optional<std::string> hardware_json(const std::string& id) const;

    // With an owner, the sweep can later be found abandoned (interrupt_abandoned_sweeps).
    long create_sweep(const std::string& name, const std::string& space_text, const std::string& strategy,
                      const std::optional<Lease>& owner = std::nullopt);
    // Also drops the sweep's remaining trial claims.
    void finish_sweep(long sweep_id, const std::string& status);
    std::vector<SweepRow> sweeps() const;

    // What insert_trial (and claim_trial) do when a trial with the same key is stored already.
    enum class OnExisting {
        Keep,           // change nothing
        ReplaceFailed,  // overwrite it in place (same row id) when its status is failed, timeout or crashed
    };
    // Inserts unless a trial with the same key exists (then, with Keep, returns
    // false and changes nothing). True when a row was written. One transaction,
    // which also drops the trial's claim.
    bool insert_trial(const StoredTrial& trial, OnExisting on_existing = OnExisting::Keep);

    // Marks 'running' sweeps whose owner is gone as 'interrupted' and drops their
    // claims; returns their ids. Sweeps without a recorded owner are left alone.
    std::vector<long> interrupt_abandoned_sweeps();

    // Claims a trial for measuring, in one BEGIN IMMEDIATE transaction (see
    // TrialClaim); every call is also the sweep's heartbeat. A claim whose owner
    // is gone is taken over; one by the same process is renewed. With
    // ReplaceFailed, a stored failed/timeout/crashed row of another sweep is not
    // Recorded but claimable (to be measured again).
    TrialClaim claim_trial(const TrialKey& key, long sweep_id, const Lease& lease,
                           OnExisting on_existing = OnExisting::Keep);
    // Gives up a claim (the measurement was interrupted and is not recorded).
    void release_claim(const TrialKey& key, const process::ProcessIdentity& owner);
    std::optional<StoredTrial> find_trial(const TrialKey& key) const;
    std::vector<StoredTrial> trials(const TrialFilter& filter = {}) const;
    // The same trials in the same order, one at a time: memory for one, whatever the count.
    void for_each_trial(const TrialFilter& filter, const std::function<void(const StoredTrial&)>& each) const;

    // Copies hardware, builds, sweeps and trials of `other` that are not here yet
    // (trials by key; sweeps by name + started_at). Merging twice adds nothing.
    // Returns the number of trials added.
    long merge_from(const std::string& other_path);

    sqlite3* handle() const { return db_; }  // for later modules' own tables via this store only

private:
    void migrate();
    std::string path_;
    sqlite3* db_ = nullptr;
};

// Export of trials as CSV (header + one row per trial, RFC 4180 quoting) or JSON
// (array), written to `out` one trial at a time as `trials` hands them over (e.g.
// Store::for_each_trial): constant memory for any number of trials.
enum class ExportLayout { TrialsCsv, SamplesCsv, TrialsJson };
using TrialSource = std::function<void(const std::function<void(const StoredTrial&)>& each)>;
void write_export(std::ostream& out, ExportLayout layout, const TrialSource& trials);

// The same as text, for trials already in memory.
std::string export_trials_csv(const std::vector<StoredTrial>& trials);
std::string export_trials_json(const std::vector<StoredTrial>& trials);  // with each trial's "samples"
// One row per repeat measured in rounds (trial_samples): the trial's id, hardware,
// system and config, then the repeat's round, times, reference ratio, CPU share, noisy.
std::string export_samples_csv(const std::vector<StoredTrial>& trials);

}  // namespace mdtune::db
