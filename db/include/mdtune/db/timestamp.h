#pragma once
#include <string>

namespace mdtune::db {

// Now as ISO 8601 UTC with milliseconds ("2026-12-01T22:02:13.827Z"): sortable
// as text, and distinct enough that (sweep name, started_at) identifies a sweep
// across merged shards. Every created_at/started_at column uses it, and the
// Slurm submission manifests.
std::string now_iso8601();

// Now in seconds since 1970 (UTC), for heartbeats compared in SQL.
double now_unix_seconds();

}  // namespace mdtune::db
