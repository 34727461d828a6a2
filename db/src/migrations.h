#pragma once
// Internal to mdtune_db (and its tests): the numbered schema migrations.
// Schema version N is stored in PRAGMA user_version; migration N takes a database
// from N-1 to N inside one transaction together with its version bump.
#include <sqlite3.h>

#include <string>
#include <vector>

namespace mdtune::db {

// The schema version a connection's database is at (0 for a new, empty file).
int user_version(sqlite3* db);

// Applies migrations user_version+1 .. version, each in its own BEGIN IMMEDIATE
// transaction; a failing one is rolled back and throws DbError naming the
// version, leaving the database at the previous version. Safe to race with
// another process doing the same (the version is re-read under the write lock).
// Store uses it with kSchemaVersion; tests use it to build databases at older versions.
void migrate_to(sqlite3* db, int version);

// The tables mdtune's schema `version` has (0..kSchemaVersion), sorted: built by
// running the migrations on an in-memory database, so it can never disagree with them.
// Ignores the test hook below.
const std::vector<std::string>& tables_of_schema(int version);

// Test hook: migration `version` fails after running its SQL (before the version
// bump), so tests can check that nothing of it remains. 0 disables.
void set_failing_migration_for_tests(int version);

}  // namespace mdtune::db
