// The Store: opening and validating the file, and the reads and writes of the
// trial tables. Schema changes live in migrations.cpp, export in export.cpp.
#include "mdtune/db/store.h"

#include <sqlite3.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "migrations.h"
#include "open_file.h"
#include "report_columns.h"
#include "statement.h"
#include "timestamp.h"
#include "trial_samples.h"

namespace mdtune::db {
namespace {

// How long a writer waits for another one (a sweep's worker, a merge) to finish.
constexpr std::chrono::milliseconds kBusyTimeout{10'000};
// The schema from which systems records where a user's box was read, and its .mdp.
constexpr int kSystemPathsSchema = 7;
constexpr int kSystemMdpSchema = 8;

// Switches a file to WAL and returns the resulting journal mode. Changing the
// mode can report SQLITE_BUSY without consulting the busy handler (when two
// processes open a new file at once), so retry for as long as busy_timeout would.
std::string set_wal(sqlite3* db) {
    const auto deadline = std::chrono::steady_clock::now() + kBusyTimeout;
    for (;;) {
        sql::Statement st(db, "PRAGMA journal_mode = WAL");
        const int rc = st.step_rc();
        if (rc == SQLITE_ROW) return st.column_text(0);
        if ((rc & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() > deadline)
            sql::fail(db, "setting PRAGMA journal_mode = WAL");
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

// Columns of trials as written by insert_trial and copied by merge_from (id and
// sweep_id are handled separately: ids are per file).
constexpr const char* kTrialColumns =
    "trial_key, hardware_id, system_id, config_id, build_id, measure, steps, warmup, repeats_requested, "
    "timeout_s, status, repeats, ms_median, ms_min, ms_max, ns_per_day, drift, drift_tolerance, timings_json, "
    "pairlist_json, config_json, report_json, stderr_tail, load_avg, wall_s, created_at";
constexpr int kTrialColumnCount = 26;

std::string insert_trial_sql() {
    std::string placeholders = "?";  // sweep_id
    for (int c = 0; c < kTrialColumnCount; ++c) placeholders += ", ?";
    return std::string("INSERT OR IGNORE INTO trials(sweep_id, ") + kTrialColumns + ") VALUES(" + placeholders + ")";
}

// A retry of a failed trial: the new result overwrites the row (keeping its id),
// but only a failed, timed-out or crashed one; ok and invalid rows are results.
std::string replace_failed_trial_sql() {
    std::string sql = insert_trial_sql();
    sql.replace(0, std::string("INSERT OR IGNORE").size(), "INSERT");
    std::string set = "sweep_id = excluded.sweep_id";
    const std::string columns = kTrialColumns;
    for (std::size_t start = 0; start < columns.size();) {
        const std::size_t end = std::min(columns.find(',', start), columns.size());
        const std::size_t first = columns.find_first_not_of(' ', start);
        const std::string column = columns.substr(first, end - first);
        if (column != "trial_key") set += ", " + column + " = excluded." + column;
        start = end + 1;
    }
    return sql + " ON CONFLICT(trial_key) DO UPDATE SET " + set +
           " WHERE trials.status IN ('failed', 'timeout', 'crashed')";
}

// The trial columns, then s.id and (schema 7) where a user's box was read and
// (schema 8) its .mdp; a read-only open of an older file has no paths.
std::string select_trial_sql(sqlite3* db) {
    return std::string(
               "SELECT t.id, t.sweep_id, t.hardware_id, s.kind, s.natoms, s.seed, t.config_id, t.build_id, t.steps, "
               "t.warmup, t.repeats_requested, t.timeout_s, t.status, t.repeats, t.ms_median, t.ms_min, t.ms_max, "
               "t.ns_per_day, t.drift, t.drift_tolerance, t.timings_json, t.pairlist_json, t.config_json, "
               "t.report_json, t.stderr_tail, t.load_avg, t.wall_s, t.created_at, s.id, ") +
           (user_version(db) >= kSystemPathsSchema ? "s.gro, s.top, " : "NULL, NULL, ") +
           (user_version(db) >= kSystemMdpSchema ? "s.mdp" : "NULL") +
           " FROM trials t JOIN systems s ON s.id = t.system_id";
}

// s.id and the paths, the last columns of select_trial_sql.
constexpr int kSystemIdColumn = 28;

StoredTrial read_trial(sqlite3* db, const sql::Statement& st) {
    StoredTrial t;
    std::string kind, config, status, timings;
    // sweep_id NULL reads as 0
    int c = st.read_columns(0, t.id, t.sweep_id, t.hardware_id, kind, t.system.natoms, t.system.seed, config,
                            t.build_id, t.measure.steps, t.measure.warmup, t.measure.repeats, t.measure.timeout_s,
                            status);
    if (kind == kFileSystemKind) {  // a user's box: its digest is in the system id (its files are not stored)
        const std::string id = st.column_text(kSystemIdColumn);
        const auto files = parse_file_system_id(id);
        if (!files)
            throw DbError(sql::db_path(db) + ": trial " + std::to_string(t.id) + " has a bad system id '" + id + "'");
        t.system = *files;
        t.system.gro = st.column_text(kSystemIdColumn + 1);  // "" when NULL
        t.system.top = st.column_text(kSystemIdColumn + 2);
        t.system.mdp = st.column_text(kSystemIdColumn + 3);
    } else {
        const auto system_kind = mdcore::parse_system_kind(kind);
        if (!system_kind)
            throw DbError(sql::db_path(db) + ": trial " + std::to_string(t.id) + " has system kind '" + kind +
                          "' (not " + mdcore::system_kind_names() + ", " + kFileSystemKind + ")");
        t.system.kind = *system_kind;
    }
    try {
        t.config = Config::from_canonical(config);
    } catch (const std::exception& e) {
        throw DbError(sql::db_path(db) + ": trial " + std::to_string(t.id) + " has a bad config '" + config +
                      "': " + e.what());
    }
    const auto parsed = parse_trial_status(status);
    if (!parsed) throw DbError(sql::db_path(db) + ": trial " + std::to_string(t.id) + " has status '" + status + "'");
    TrialResult& r = t.result;
    r.status = *parsed;
    c = st.read_columns(c, r.repeats, r.ms_median, r.ms_min, r.ms_max, r.ns_per_day, r.drift, r.drift_tolerance,
                        timings);
    try {
        // Non-numbers (NaN is written as null) are dropped rather than failing the whole read.
        if (!timings.empty()) {
            const nlohmann::json parsed_timings = nlohmann::json::parse(timings);
            for (const auto& [task, secs] : parsed_timings.items())
                if (secs.is_number()) r.timings[task] = secs.get<double>();
        }
    } catch (const std::exception& e) {
        throw DbError(sql::db_path(db) + ": trial " + std::to_string(t.id) + " has bad timings_json: " + e.what());
    }
    c += 2;  // pairlist_json and config_json: parts of report_json, kept for SQL queries
    try {
        r.report = read_report_column(st.column_text(c++));
    } catch (const mdcore::RunReportError& e) {
        throw DbError(sql::db_path(db) + ": trial " + std::to_string(t.id) + " has an unreadable report_json: " +
                      e.what());
    }
    st.read_columns(c, r.stderr_tail, r.load_avg, r.wall_s, t.created_at);
    r.samples = read_samples(db, t.key().str());
    return t;
}

// Copies every row of `select` (run on `from`) through `insert` (prepared on the
// target), column for column.
void copy_rows(sqlite3* from, const char* select, sqlite3* to, const char* insert) {
    sql::Statement src(from, select);
    sql::Statement dst(to, insert);
    while (src.step()) {
        for (int c = 0; c < src.columns(); ++c) dst.bind_value(c + 1, src.column_value(c));
        dst.run();
        dst.reset();
    }
}

}  // namespace

TrialKey StoredTrial::key() const {
    return TrialKey{hardware_id, system.canonical(), config.canonical(), build_id, measure.canonical()};
}

// ---- Transaction -----------------------------------------------------------

Transaction::Transaction(sqlite3* db) : db_(db) {
    // IMMEDIATE takes the write lock now (waiting up to busy_timeout), so a
    // transaction never fails half-way because another writer got in first.
    sql::exec(db_, "BEGIN IMMEDIATE");
}

Transaction::~Transaction() {
    if (done_) return;
    // Cannot throw from a destructor; a failed ROLLBACK leaves sqlite to roll
    // back when the connection closes.
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit() {
    sql::exec(db_, "COMMIT");
    done_ = true;
}

// ---- Opening -----------------------------------------------------------------

Store::Store(const std::string& path, Mode mode) : path_(path) {
    // A command that only reads never creates the file; a mistyped name is bad input.
    std::error_code ec;
    if (mode == Mode::ReadOnly && path != ":memory:" && !std::filesystem::exists(path, ec))
        throw DbRefusedError(path + ": no such database file");
    db_ = open_connection(path, mode, kBusyTimeout);
    try {
        // Nothing here writes until the file is known to be a new or an mdtune one.
        const int version = check_mdtune_file(db_, path);
        // An empty file has none of mdtune's tables yet: nothing to read from it.
        if (mode == Mode::ReadOnly && version == 0)
            throw DbRefusedError(path + ": an empty database (no mdtune tables yet): nothing to read");
        sql::exec(db_, "PRAGMA foreign_keys = ON");
        if (mode == Mode::ReadWrite) {
            migrate();
            // WAL only after the migrations succeeded, so a refused or failed open leaves
            // the file as it was. WAL: readers never block the writer, and concurrent
            // workers on one node can share a file.
            const std::string jm = set_wal(db_);
            const bool in_memory = sql::db_path(db_) == ":memory:";
            if (jm != "wal" && !(in_memory && jm == "memory"))
                throw DbError(path + ": cannot switch to WAL journal mode (got '" + jm + "')");
            // Safe with WAL (a crash may lose the last commits, never corrupts) and avoids an fsync per trial.
            sql::exec(db_, "PRAGMA synchronous = NORMAL");
        }
        // ReadOnly databases at an older schema are readable as they are: every
        // migration so far only adds tables and indices.
    } catch (...) {
        sqlite3_close_v2(db_);
        db_ = nullptr;
        throw;
    }
}

Store::~Store() { sqlite3_close_v2(db_); }

void Store::migrate() { migrate_to(db_, kSchemaVersion); }

int Store::schema_version() const { return user_version(db_); }

// ---- Dimension rows ------------------------------------------------------------

void Store::put_hardware(const std::string& id, const std::string& json) {
    sql::Statement st(db_,
                      "INSERT INTO hardware(id, json, first_seen) VALUES(?, ?, ?) "
                      "ON CONFLICT(id) DO UPDATE SET json = excluded.json");
    st.bind_text(1, id).bind_text(2, json).bind_text(3, now_iso8601());
    st.run();
}

void Store::put_build(const std::string& id, const std::string& json) {
    sql::Statement st(db_, "INSERT INTO builds(id, json) VALUES(?, ?) ON CONFLICT(id) DO UPDATE SET json = excluded.json");
    st.bind_text(1, id).bind_text(2, json);
    st.run();
}

std::optional<std::string> Store::hardware_json(const std::string& id) const {
    sql::Statement st(db_, "SELECT json FROM hardware WHERE id = ?");
    st.bind_text(1, id);
    if (!st.step()) return std::nullopt;
    return st.column_text(0);
}

// ---- Sweeps ----------------------------------------------------------------------

long Store::create_sweep(const std::string& name, const std::string& space_text, const std::string& strategy,
                         const std::optional<Lease>& owner) {
    sql::Statement st(db_,
                      "INSERT INTO sweeps(name, space_text, strategy, status, started_at, owner_host, owner_pid, "
                      "owner_start, heartbeat_unix, lease_s) VALUES(?, ?, ?, 'running', ?, ?, ?, ?, ?, ?)");
    st.bind_text(1, name).bind_text(2, space_text).bind_text(3, strategy).bind_text(4, now_iso8601());
    if (owner) {
        st.bind_text(5, owner->owner.host).bind_int(6, owner->owner.pid).bind_text(7, owner->owner.start);
        st.bind_real(8, now_unix_seconds()).bind_real(9, owner->lease_s);
    } else {
        for (int c = 5; c <= 9; ++c) st.bind_null(c);
    }
    st.run();
    return static_cast<long>(sqlite3_last_insert_rowid(db_));
}

void Store::finish_sweep(long sweep_id, const std::string& status) {
    Transaction tx(db_);
    sql::Statement st(db_, "UPDATE sweeps SET status = ?, finished_at = ? WHERE id = ?");
    st.bind_text(1, status).bind_text(2, now_iso8601()).bind_int(3, sweep_id);
    st.run();
    if (sqlite3_changes(db_) != 1) throw DbError(path_ + ": no sweep with id " + std::to_string(sweep_id));
    sql::Statement claims(db_, "DELETE FROM trial_claims WHERE sweep_id = ?");
    claims.bind_int(1, sweep_id);
    claims.run();
    tx.commit();
}

std::vector<SweepRow> Store::sweeps() const {
    sql::Statement st(db_,
                      "SELECT id, name, space_text, strategy, status, started_at, finished_at FROM sweeps ORDER BY id");
    std::vector<SweepRow> out;
    while (st.step()) {
        out.push_back(SweepRow{static_cast<long>(st.column_int(0)), st.column_text(1), st.column_text(2),
                               st.column_text(3), st.column_text(4), st.column_text(5), st.column_text(6)});
    }
    return out;
}

// ---- Trials -----------------------------------------------------------------------

bool Store::insert_trial(const StoredTrial& t, OnExisting on_existing) {
    const TrialKey key = t.key();
    Transaction tx(db_);
    {
        sql::Statement st(db_, "INSERT OR IGNORE INTO systems(id, kind, natoms, seed) VALUES(?, ?, ?, ?)");
        st.bind_text(1, key.system).bind_text(2, t.system.kind_name()).bind_int(3, t.system.natoms);
        st.bind_int(4, static_cast<std::int64_t>(t.system.seed));
        st.run();
    }
    if (t.system.from_files() && !t.system.gro.empty() && !t.system.top.empty()) {
        // Where the box was last read: fit reads it again from there (the digest tells if it changed).
        sql::Statement st(db_, "UPDATE systems SET gro = ?, top = ?, mdp = ? WHERE id = ?");
        st.bind_text(1, std::filesystem::absolute(t.system.gro).lexically_normal().string());
        st.bind_text(2, std::filesystem::absolute(t.system.top).lexically_normal().string());
        if (t.system.mdp.empty()) st.bind_null(3);
        else st.bind_text(3, std::filesystem::absolute(t.system.mdp).lexically_normal().string());
        st.bind_text(4, key.system);
        st.run();
    }
    {
        sql::Statement st(db_, "INSERT OR IGNORE INTO configs(id) VALUES(?)");
        st.bind_text(1, key.config);
        st.run();
    }
    sql::Statement st(db_, on_existing == OnExisting::Keep ? insert_trial_sql() : replace_failed_trial_sql());
    const TrialResult& r = t.result;
    // Parameter numbers follow "sweep_id, " + kTrialColumns.
    if (t.sweep_id > 0) st.bind_int(1, t.sweep_id); else st.bind_null(1);
    const ReportColumns report = report_columns(r.report);
    st.bind_all(2, key.str(), t.hardware_id, key.system, key.config, t.build_id, key.measure, t.measure.steps,
                t.measure.warmup, t.measure.repeats, t.measure.timeout_s, to_string(r.status), r.repeats, r.ms_median,
                r.ms_min, r.ms_max, r.ns_per_day, r.drift, r.drift_tolerance, nlohmann::json(r.timings).dump(),
                report.pairlist_json, report.config_json, report.report_json, r.stderr_tail, r.load_avg, r.wall_s);
    // A caller that already has a timestamp (e.g. re-importing) keeps it.
    st.bind_text(27, t.created_at.empty() ? now_iso8601() : t.created_at);
    static_assert(kTrialColumnCount + 1 == 27, "one bind per column");
    st.run();
    const bool inserted = sqlite3_changes(db_) == 1;
    if (inserted) write_samples(db_, key.str(), r.samples);
    sql::Statement claim(db_, "DELETE FROM trial_claims WHERE trial_key = ?");
    claim.bind_text(1, key.str());
    claim.run();
    tx.commit();
    return inserted;
}

std::optional<StoredTrial> Store::find_trial(const TrialKey& key) const {
    sql::Statement st(db_, select_trial_sql(db_) + " WHERE t.trial_key = ?");
    st.bind_text(1, key.str());
    if (!st.step()) return std::nullopt;
    return read_trial(db_, st);
}

std::vector<StoredTrial> Store::trials(const TrialFilter& f) const {
    std::vector<StoredTrial> out;
    for_each_trial(f, [&out](const StoredTrial& t) { out.push_back(t); });
    return out;
}

void Store::for_each_trial(const TrialFilter& f, const std::function<void(const StoredTrial&)>& each) const {
    std::string sql = select_trial_sql(db_);
    std::string where;
    auto add = [&where](const char* cond) { where += (where.empty() ? " WHERE " : " AND ") + std::string(cond); };
    if (f.sweep_id) add("t.sweep_id = ?");
    if (f.hardware_id) add("t.hardware_id = ?");
    if (f.system_kind) add("s.kind = ?");
    if (f.natoms) add("s.natoms = ?");
    if (f.status) add("t.status = ?");
    sql::Statement st(db_, sql + where + " ORDER BY t.id");
    int i = 1;
    if (f.sweep_id) st.bind_int(i++, *f.sweep_id);
    if (f.hardware_id) st.bind_text(i++, *f.hardware_id);
    if (f.system_kind) st.bind_text(i++, *f.system_kind);
    if (f.natoms) st.bind_int(i++, *f.natoms);
    if (f.status) st.bind_text(i++, to_string(*f.status));
    while (st.step()) each(read_trial(db_, st));
}

// ---- Merge ---------------------------------------------------------------------------

long Store::merge_from(const std::string& other_path) {
    // Opening it as a read-only Store runs the same checks as any open (not a
    // database, corrupt, newer schema) before anything here is touched.
    if (!std::filesystem::exists(other_path)) throw DbError(other_path + ": no such file to merge");
    Store other(other_path, Mode::ReadOnly);
    const int version = other.schema_version();
    if (version < 1) throw DbError(other_path + ": not an mdtune database (schema 0)");
    sqlite3* src = other.handle();

    // One read transaction on the source, so a shard still being written is
    // copied as one consistent snapshot (no trial without its sweep).
    sql::ReadSnapshot snapshot(src);
    Transaction tx(db_);
    copy_rows(src, "SELECT id, json, first_seen FROM hardware", db_,
              "INSERT INTO hardware(id, json, first_seen) VALUES(?, ?, ?) ON CONFLICT(id) DO NOTHING");
    copy_rows(src, "SELECT id, json FROM builds", db_,
              "INSERT INTO builds(id, json) VALUES(?, ?) ON CONFLICT(id) DO NOTHING");
    copy_rows(src,
              version >= kSystemMdpSchema     ? "SELECT id, kind, natoms, seed, gro, top, mdp FROM systems"
              : version >= kSystemPathsSchema ? "SELECT id, kind, natoms, seed, gro, top, NULL FROM systems"
                                              : "SELECT id, kind, natoms, seed, NULL, NULL, NULL FROM systems",
              db_,
              "INSERT INTO systems(id, kind, natoms, seed, gro, top, mdp) VALUES(?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) "
              "DO UPDATE SET gro = COALESCE(systems.gro, excluded.gro), top = COALESCE(systems.top, excluded.top), "
              "mdp = COALESCE(systems.mdp, excluded.mdp)");
    copy_rows(src, "SELECT id FROM configs", db_, "INSERT INTO configs(id) VALUES(?) ON CONFLICT(id) DO NOTHING");

    // Sweep ids are per file: match by (name, started_at), insert the rest, remember the mapping.
    std::map<std::int64_t, std::int64_t> sweep_map;
    {
        sql::Statement from(src,
                            "SELECT id, name, space_text, strategy, status, started_at, finished_at FROM sweeps ORDER BY id");
        sql::Statement find(db_, "SELECT id FROM sweeps WHERE name = ? AND started_at = ?");
        // A sweep merged while still running gets the outcome a later merge brings.
        sql::Statement finish(db_, "UPDATE sweeps SET status = ?, finished_at = ? WHERE id = ? AND status = 'running'");
        sql::Statement insert(db_,
                              "INSERT INTO sweeps(name, space_text, strategy, status, started_at, finished_at) "
                              "VALUES(?, ?, ?, ?, ?, ?)");
        while (from.step()) {
            find.bind_value(1, from.column_value(1)).bind_value(2, from.column_value(5));
            if (find.step()) {
                sweep_map[from.column_int(0)] = find.column_int(0);
                if (from.column_text(4) != "running") {
                    finish.bind_value(1, from.column_value(4)).bind_value(2, from.column_value(6));
                    finish.bind_int(3, find.column_int(0));
                    finish.run();
                    finish.reset();
                }
            } else {
                for (int c = 1; c <= 6; ++c) insert.bind_value(c, from.column_value(c));
                insert.run();
                insert.reset();
                sweep_map[from.column_int(0)] = sqlite3_last_insert_rowid(db_);
            }
            find.reset();
        }
    }

    long added = 0;
    {
        sql::Statement from(src, std::string("SELECT sweep_id, ") + kTrialColumns + " FROM trials ORDER BY id");
        sql::Statement insert(db_, insert_trial_sql());
        while (from.step()) {
            // A sweep id the source does not know (should not happen) becomes NULL rather than pointing at a wrong sweep here.
            const auto it = from.is_null(0) ? sweep_map.end() : sweep_map.find(from.column_int(0));
            if (it != sweep_map.end()) insert.bind_int(1, it->second); else insert.bind_null(1);
            for (int c = 1; c <= kTrialColumnCount; ++c) insert.bind_value(c + 1, from.column_value(c));
            insert.run();
            if (sqlite3_changes(db_) == 1) {
                ++added;
                copy_samples(src, db_, from.column_text(1));  // column 1: trial_key
            }
            insert.reset();
        }
    }
    tx.commit();
    return added;
}

}  // namespace mdtune::db
