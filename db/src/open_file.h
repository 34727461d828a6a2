#pragma once
// Internal to mdtune_db: opening a database file, and deciding whether mdtune may
// use it before anything is written to it.
#include <sqlite3.h>

#include <chrono>
#include <string>

#include "mdtune/db/store.h"

namespace mdtune::db {

// Opens `path` with extended result codes and the busy timeout set. ReadWrite
// creates the file lazily (on the first write). ReadOnly never writes: SQLite
// cannot read a WAL file in a folder where it may not create the -shm file, so
// such a file is reopened as immutable when its -wal file holds nothing (no writer
// can exist there); otherwise a DbError says why it cannot be read.
sqlite3* open_connection(const std::string& path, Store::Mode mode, std::chrono::milliseconds busy_timeout);

// Reads only. Throws DbRefusedError unless the file is a sound SQLite database
// (quick_check) that is empty or has mdtune's tables for its user_version, and
// that version is not newer than kSchemaVersion. Returns the version.
int check_mdtune_file(sqlite3* db, const std::string& path);

}  // namespace mdtune::db
