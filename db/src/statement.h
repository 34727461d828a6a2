#pragma once
// Internal to mdtune_db: a thin RAII layer over sqlite3 so that no return code
// goes unchecked. Every failure becomes a DbError naming the file, what was being
// done (usually the SQL) and sqlite3_errmsg.
#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "mdtune/db/store.h"

namespace mdtune::db::sql {

// The file behind a connection, for error messages ("" for in-memory databases).
inline std::string db_path(sqlite3* db) {
    const char* f = db ? sqlite3_db_filename(db, "main") : nullptr;
    return f && *f ? f : ":memory:";
}

[[noreturn]] inline void fail(sqlite3* db, std::string_view what) {
    std::string msg = db_path(db) + ": " + std::string(what);
    if (db) msg += ": " + std::string(sqlite3_errmsg(db));
    throw DbError(msg);
}

inline void check(sqlite3* db, int rc, std::string_view what) {
    if (rc != SQLITE_OK) fail(db, what);
}

// Runs one or more statements that return no rows (DDL, PRAGMA assignments).
inline void exec(sqlite3* db, const std::string& sql) {
    char* err = nullptr;
    const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
    if (rc != SQLITE_OK) {
        const std::string detail = err ? err : sqlite3_errstr(rc);
        sqlite3_free(err);
        throw DbError(db_path(db) + ": " + sql + ": " + detail);
    }
}

class Statement {
public:
    Statement(sqlite3* db, std::string_view sql) : db_(db), sql_(sql) {
        check(db_, sqlite3_prepare_v2(db_, sql_.data(), static_cast<int>(sql_.size()), &stmt_, nullptr),
              "preparing " + sql_);
    }
    ~Statement() { sqlite3_finalize(stmt_); }
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    // Parameters are 1-based, as in sqlite3_bind_*.
    Statement& bind_int(int i, std::int64_t v) { return checked(sqlite3_bind_int64(stmt_, i, v), i); }
    Statement& bind_real(int i, double v) { return checked(sqlite3_bind_double(stmt_, i, v), i); }
    Statement& bind_text(int i, std::string_view v) {
        // SQLITE_TRANSIENT: sqlite copies, so temporaries are safe to pass.
        return checked(sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT), i);
    }
    Statement& bind_null(int i) { return checked(sqlite3_bind_null(stmt_, i), i); }
    // A value read from another statement (possibly another connection): merge copies rows this way.
    Statement& bind_value(int i, const sqlite3_value* v) { return checked(sqlite3_bind_value(stmt_, i, v), i); }

    // The raw result of sqlite3_step, for callers that handle some errors themselves.
    int step_rc() { return sqlite3_step(stmt_); }
    // True when a row is available, false when done.
    bool step() {
        const int rc = sqlite3_step(stmt_);
        if (rc == SQLITE_ROW) return true;
        if (rc == SQLITE_DONE) return false;
        fail(db_, "executing " + sql_);
    }
    // For statements that return no rows.
    void run() {
        if (step()) fail(db_, "unexpected row from " + sql_);
    }
    void reset() {
        check(db_, sqlite3_reset(stmt_), "resetting " + sql_);
        check(db_, sqlite3_clear_bindings(stmt_), "clearing bindings of " + sql_);
    }

    int columns() const { return sqlite3_column_count(stmt_); }
    bool is_null(int c) const { return sqlite3_column_type(stmt_, c) == SQLITE_NULL; }
    std::int64_t column_int(int c) const { return sqlite3_column_int64(stmt_, c); }
    double column_real(int c) const { return sqlite3_column_double(stmt_, c); }  // NULL reads as 0
    std::string column_text(int c) const {
        const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, c));
        return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, c))) : std::string();
    }
    sqlite3_value* column_value(int c) const { return sqlite3_column_value(stmt_, c); }

private:
    Statement& checked(int rc, int i) {
        check(db_, rc, "binding parameter " + std::to_string(i) + " of " + sql_);
        return *this;
    }
    sqlite3* db_;
    std::string sql_;
    sqlite3_stmt* stmt_ = nullptr;
};

// Value of a single-row, single-column query, e.g. PRAGMA user_version.
inline std::int64_t query_int(sqlite3* db, std::string_view sql) {
    Statement st(db, sql);
    if (!st.step()) fail(db, "no row from " + std::string(sql));
    return st.column_int(0);
}

inline std::string query_text(sqlite3* db, std::string_view sql) {
    Statement st(db, sql);
    if (!st.step()) fail(db, "no row from " + std::string(sql));
    return st.column_text(0);
}

// A read transaction: the statements run inside it all see one snapshot.
class ReadSnapshot {
public:
    explicit ReadSnapshot(sqlite3* db) : db_(db) { exec(db_, "BEGIN"); }
    ~ReadSnapshot() { sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr); }  // nothing was written
    ReadSnapshot(const ReadSnapshot&) = delete;
    ReadSnapshot& operator=(const ReadSnapshot&) = delete;

private:
    sqlite3* db_;
};

}  // namespace mdtune::db::sql
