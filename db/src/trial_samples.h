#pragma once
// Internal to mdtune_db: the trial_samples table (schema 6), one row per repeat
// of a trial measured in interleaved rounds, keyed by the trial key.
#include <sqlite3.h>

#include <string>
#include <vector>

#include "mdtune/core/trial.h"

namespace mdtune::db {

// Replaces the samples of a trial (inside the caller's transaction).
void write_samples(sqlite3* db, const std::string& trial_key, const std::vector<RepeatSample>& samples);
// By round; empty for a trial without samples and for databases before schema 6.
std::vector<RepeatSample> read_samples(sqlite3* db, const std::string& trial_key);
// Copies a trial's samples from another database (merge), when it has the table.
void copy_samples(sqlite3* from, sqlite3* to, const std::string& trial_key);

}  // namespace mdtune::db
