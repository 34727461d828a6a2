// Opening database files: the read-only fallback for WAL files in read-only
// folders, and the checks that refuse files mdtune must not touch (not a
// database, corrupt, another program's tables, a newer schema).
#include "open_file.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <vector>

#include "migrations.h"
#include "statement.h"

namespace mdtune::db {
namespace {

namespace fs = std::filesystem;

sqlite3* open_raw(const std::string& name, int flags, std::chrono::milliseconds busy_timeout, const std::string& path) {
    sqlite3* db = nullptr;
    const int rc = sqlite3_open_v2(name.c_str(), &db, flags, nullptr);
    try {
        if (rc != SQLITE_OK) {
            throw DbError(path + ": cannot open database: " +
                          (db ? std::string(sqlite3_errmsg(db)) : std::string(sqlite3_errstr(rc))));
        }
        sql::check(db, sqlite3_extended_result_codes(db, 1), "enabling extended result codes");
        sql::check(db, sqlite3_busy_timeout(db, static_cast<int>(busy_timeout.count())), "setting the busy timeout");
    } catch (...) {
        sqlite3_close_v2(db);
        throw;
    }
    return db;
}

// The first read of the file: SQLITE_ROW, or the (extended) error code.
int probe(sqlite3* db) {
    sqlite3_stmt* st = nullptr;
    int rc = sqlite3_prepare_v2(db, "PRAGMA schema_version", -1, &st, nullptr);
    if (rc == SQLITE_OK) rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc;
}

// Bytes 18 and 19 of the header (file format write/read version) are 2 in WAL mode.
bool is_wal_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::array<char, 20> header{};
    if (!in.read(header.data(), header.size())) return false;
    return header[18] == 2 || header[19] == 2;
}

bool wal_holds_nothing(const std::string& path) {
    std::error_code ec;
    const fs::path wal = path + "-wal";
    return !fs::exists(wal, ec) || fs::file_size(wal, ec) == 0;
}

// file: URI for a path, with the characters URIs give a meaning percent-encoded.
std::string immutable_uri(const std::string& path) {
    const std::string abs = fs::absolute(path).string();
    std::string uri = "file://";  // empty authority: the path may itself start with "//"
    for (const unsigned char c : abs) {
        if (c == '?' || c == '#' || c == '%' || c < 0x21 || c >= 0x7f) {
            char buf[4];
            std::snprintf(buf, sizeof buf, "%%%02X", c);
            uri += buf;
        } else {
            uri += static_cast<char>(c);
        }
    }
    return uri + "?mode=ro&immutable=1";
}

std::string name_list(const std::vector<std::string>& names) {
    constexpr std::size_t kShown = 5;
    std::string out;
    for (std::size_t i = 0; i < names.size() && i < kShown; ++i) out += (i ? ", " : "") + names[i];
    if (names.size() > kShown) out += " and " + std::to_string(names.size() - kShown) + " more";
    return out;
}

// Tables and views not made by SQLite itself, sorted.
std::vector<std::string> user_tables(sqlite3* db) {
    sql::Statement st(db,
                      "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' "
                      "ORDER BY name");
    std::vector<std::string> out;
    while (st.step()) out.push_back(st.column_text(0));
    return out;
}

// A text file fails here with "file is not a database", a damaged one in quick_check.
void check_sound(sqlite3* db, const std::string& path) {
    const int rc = probe(db);
    if (rc == SQLITE_ROW) {
        // fall through to quick_check
    } else if ((rc & 0xff) == SQLITE_NOTADB || (rc & 0xff) == SQLITE_CORRUPT) {
        throw DbRefusedError(path + ": " + sqlite3_errstr(rc));
    } else {
        sql::fail(db, "reading the file");
    }
    sql::Statement qc(db, "PRAGMA quick_check");
    std::string problems;
    while (qc.step()) {
        const std::string line = qc.column_text(0);
        if (line == "ok") continue;
        if (problems.size() < 500) problems += (problems.empty() ? "" : "; ") + line;
    }
    if (!problems.empty()) throw DbRefusedError(path + ": database is corrupt: " + problems);
}

}  // namespace

sqlite3* open_connection(const std::string& path, Store::Mode mode, std::chrono::milliseconds busy_timeout) {
    if (mode == Store::Mode::ReadWrite)
        return open_raw(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, busy_timeout, path);
    sqlite3* db = open_raw(path, SQLITE_OPEN_READONLY, busy_timeout, path);
    const int rc = probe(db) & 0xff;
    if ((rc != SQLITE_READONLY && rc != SQLITE_CANTOPEN) || !is_wal_file(path)) return db;
    // A WAL file SQLite cannot read in place: it would have to create path-shm.
    sqlite3_close_v2(db);
    if (!wal_holds_nothing(path))
        throw DbError(path + ": cannot read this WAL database: its folder is not writable, so SQLite cannot create " +
                      path + "-shm, and " + path + "-wal holds changes not yet in the file; open it once with " +
                      "write access to the folder (any mdtune command that writes), or copy both files elsewhere");
    return open_raw(immutable_uri(path), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, busy_timeout, path);
}

int check_mdtune_file(sqlite3* db, const std::string& path) {
    check_sound(db, path);
    // One snapshot: a process creating the file commits tables and version together.
    const sql::ReadSnapshot snapshot(db);
    const int version = user_version(db);
    const std::vector<std::string> tables = user_tables(db);
    if (version == 0) {
        if (!tables.empty())
            throw DbRefusedError(path + ": not an mdtune database: it has " + std::to_string(tables.size()) +
                                 " table(s) (" + name_list(tables) +
                                 ") and no mdtune schema (user_version 0); mdtune only adds its tables to a new or "
                                 "empty file, so this one is left as it is");
        return 0;
    }
    const std::vector<std::string>& expected = tables_of_schema(std::min(version, kSchemaVersion));
    std::vector<std::string> missing;
    std::set_difference(expected.begin(), expected.end(), tables.begin(), tables.end(), std::back_inserter(missing));
    if (!missing.empty())
        throw DbRefusedError(path + ": not an mdtune database: user_version is " + std::to_string(version) +
                             " but mdtune's table(s) " + name_list(missing) + " are missing (it has " +
                             (tables.empty() ? std::string("no tables") : name_list(tables)) + ")");
    if (version > kSchemaVersion)
        throw DbRefusedError(path + ": written by a newer mdtune (schema " + std::to_string(version) + " > " +
                             std::to_string(kSchemaVersion) + ")");
    return version;
}

}  // namespace mdtune::db
