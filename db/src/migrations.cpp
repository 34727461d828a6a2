// The schema, as an append-only list of migrations. Never edit a released
// migration: add a new one, so databases written by any older mdtune upgrade.
#include "migrations.h"

#include <array>
#include <atomic>
#include <string>

#include "mdtune/db/store.h"
#include "statement.h"

namespace mdtune::db {
namespace {

// v1: the trial store. Dimension tables keyed by their canonical text; trials
// keyed by trial_key (TrialKey::str()) so a resumed sweep skips finished work.
constexpr const char* kV1 = R"sql(
CREATE TABLE hardware(
  id TEXT PRIMARY KEY,
  json TEXT NOT NULL,
  first_seen TEXT NOT NULL
);
CREATE TABLE builds(
  id TEXT PRIMARY KEY,
  json TEXT NOT NULL
);
CREATE TABLE systems(
  id TEXT PRIMARY KEY,            -- SystemDescriptor::canonical()
  kind TEXT NOT NULL,
  natoms INTEGER NOT NULL,
  seed INTEGER NOT NULL
);
CREATE TABLE sweeps(
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  space_text TEXT NOT NULL,
  strategy TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('running', 'done', 'interrupted')),
  started_at TEXT NOT NULL,
  finished_at TEXT
);
CREATE TABLE configs(
  id TEXT PRIMARY KEY             -- Config::canonical()
);
CREATE TABLE trials(
  id INTEGER PRIMARY KEY,
  trial_key TEXT UNIQUE NOT NULL,
  sweep_id INTEGER,               -- NULL when not part of a sweep
  hardware_id TEXT NOT NULL,
  system_id TEXT NOT NULL REFERENCES systems(id),
  config_id TEXT NOT NULL REFERENCES configs(id),
  build_id TEXT NOT NULL,
  measure TEXT NOT NULL,          -- MeasureSettings::canonical()
  steps INTEGER NOT NULL,
  warmup INTEGER NOT NULL,
  repeats_requested INTEGER NOT NULL,
  timeout_s REAL NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('ok', 'invalid', 'failed', 'timeout', 'crashed')),
  repeats INTEGER NOT NULL,
  ms_median REAL,
  ms_min REAL,
  ms_max REAL,
  ns_per_day REAL,
  drift REAL,
  drift_tolerance REAL,
  timings_json TEXT NOT NULL,
  pairlist_json TEXT NOT NULL,
  config_json TEXT NOT NULL,
  report_json TEXT NOT NULL,
  stderr_tail TEXT NOT NULL,
  load_avg REAL,
  wall_s REAL,
  created_at TEXT NOT NULL
);
)sql";

// v2: indices for the tuner's queries, and fitted performance models.
constexpr const char* kV2 = R"sql(
CREATE INDEX trials_by_sweep ON trials(sweep_id);
CREATE INDEX trials_by_hardware_system_status ON trials(hardware_id, system_id, status);
CREATE INDEX trials_by_config ON trials(config_id);
CREATE TABLE models(
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  feature_set TEXT,
  coefficients_json TEXT,
  training_trial_ids_json TEXT,
  cv_json TEXT,
  created_at TEXT NOT NULL,
  build_id TEXT,
  hardware_scope TEXT
);
)sql";

// v3: Google Benchmark runs, for the performance-regression checks.
constexpr const char* kV3 = R"sql(
CREATE TABLE bench_runs(
  id INTEGER PRIMARY KEY,
  label TEXT NOT NULL,
  git_commit TEXT,
  build_flags TEXT,
  hardware_id TEXT,
  metric TEXT NOT NULL CHECK (metric IN ('real_time', 'instructions')),
  created_at TEXT NOT NULL,
  context_json TEXT
);
CREATE TABLE bench_results(
  run_id INTEGER NOT NULL REFERENCES bench_runs(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  repetition INTEGER NOT NULL DEFAULT 0,
  value REAL NOT NULL,
  unit TEXT,
  iterations INTEGER,
  extra_json TEXT
);
CREATE INDEX bench_results_by_name ON bench_results(name);
CREATE INDEX bench_results_by_run ON bench_results(run_id);
)sql";

// v4: MPI collective tuning (benchmarks/mpi, `mdtune mpi`). One row per
// measured (layout, collective, algorithm variant, message size); a re-measure
// replaces its row. Rules files evaluated against Open MPI's defaults keep the
// paired latencies; fitted selection models keep features, coefficients and CV.
constexpr const char* kV4 = R"sql(
CREATE TABLE mpi_sweeps(
  id INTEGER PRIMARY KEY,
  hardware_id TEXT NOT NULL,
  mpi_library TEXT NOT NULL,
  launcher TEXT NOT NULL,
  settings_json TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('running', 'done', 'interrupted')),
  started_at TEXT NOT NULL,
  finished_at TEXT
);
CREATE TABLE mpi_results(
  id INTEGER PRIMARY KEY,
  sweep_id INTEGER,
  hardware_id TEXT NOT NULL,
  mpi_library TEXT NOT NULL,          -- e.g. 'Open MPI 4.1.4'
  nodes INTEGER NOT NULL CHECK (nodes >= 1),
  ppn INTEGER NOT NULL CHECK (ppn >= 1),
  ranks INTEGER NOT NULL CHECK (ranks >= 1),
  collective TEXT NOT NULL,
  selection TEXT NOT NULL CHECK (selection IN ('forced', 'default')),
  algorithm INTEGER NOT NULL,         -- coll_tuned id; 0 = Open MPI's own decision
  segsize INTEGER NOT NULL,
  faninout INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  iterations INTEGER NOT NULL,
  warmup INTEGER NOT NULL,
  lat_min_us REAL,
  lat_avg_us REAL,
  lat_max_us REAL,
  lat_median_us REAL,
  lat_p10_us REAL,                    -- 10th percentile of the slowest rank: what selection uses
  status TEXT NOT NULL CHECK (status IN ('ok', 'incorrect', 'failed')),
  error TEXT NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (hardware_id, mpi_library, nodes, ppn, collective, selection, algorithm, segsize, faninout, bytes)
);
CREATE INDEX mpi_results_by_collective ON mpi_results(hardware_id, collective, ranks);
CREATE TABLE mpi_rules_files(
  digest TEXT PRIMARY KEY,
  text TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE TABLE mpi_rules_evals(
  id INTEGER PRIMARY KEY,
  digest TEXT NOT NULL REFERENCES mpi_rules_files(digest),
  hardware_id TEXT NOT NULL,
  mpi_library TEXT NOT NULL,
  nodes INTEGER NOT NULL,
  ppn INTEGER NOT NULL,
  ranks INTEGER NOT NULL,
  collective TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  rounds INTEGER NOT NULL,
  default_us REAL NOT NULL,           -- 10th percentile of the slowest rank, median over rounds
  rules_us REAL NOT NULL,
  default_median_us REAL,             -- the same with the median over iterations
  rules_median_us REAL,
  created_at TEXT NOT NULL
);
CREATE INDEX mpi_rules_evals_by_digest ON mpi_rules_evals(digest);
CREATE TABLE mpi_models(
  id INTEGER PRIMARY KEY,
  hardware_id TEXT NOT NULL,
  mpi_library TEXT NOT NULL,
  collective TEXT NOT NULL,
  feature_set TEXT NOT NULL,
  model_json TEXT NOT NULL,
  cv_json TEXT NOT NULL,
  training_rows INTEGER NOT NULL,
  created_at TEXT NOT NULL
);
)sql";

// v5: who runs a sweep and who is measuring a trial. A sweep records its owner
// process (host, pid, start token) and a heartbeat with a lease, so a sweep whose
// process died is marked interrupted by the next sweep that opens the file;
// a trial is claimed before it is measured, so two sweeps never measure the same
// one. Sweeps from before v5 (and merged ones) have no owner and are left alone.
constexpr const char* kV5 = R"sql(
ALTER TABLE sweeps ADD COLUMN owner_host TEXT;
ALTER TABLE sweeps ADD COLUMN owner_pid INTEGER;
ALTER TABLE sweeps ADD COLUMN owner_start TEXT;
ALTER TABLE sweeps ADD COLUMN heartbeat_unix REAL;  -- seconds since 1970, last sign of life
ALTER TABLE sweeps ADD COLUMN lease_s REAL;         -- how long that sign of life holds
CREATE TABLE trial_claims(
  trial_key TEXT PRIMARY KEY,                       -- trials.trial_key once measured
  sweep_id INTEGER,                                 -- NULL when not part of a sweep
  owner_host TEXT NOT NULL,
  owner_pid INTEGER NOT NULL,
  owner_start TEXT NOT NULL,
  claimed_at TEXT NOT NULL,
  heartbeat_unix REAL NOT NULL,
  lease_s REAL NOT NULL
);
)sql";

// v6: interleaved rounds (a drifting machine slows a config and its reference alike). Every repeat of a trial measured in rounds,
// with the reference config's time in the same round and the CPU time the run
// got (the guard rail against runs that did not get their threads). Keyed by
// the trial key, so shards merge like trials; trials from before v6 have none.
constexpr const char* kV6 = R"sql(
CREATE TABLE trial_samples(
  trial_key TEXT NOT NULL,              -- trials.trial_key
  round INTEGER NOT NULL,               -- 0-based
  position INTEGER NOT NULL,            -- place in the round's random order
  ms_per_step REAL NOT NULL,
  ref_ms_per_step REAL,                 -- the reference (default) config in the same round; NULL when none
  wall_s REAL NOT NULL,
  measured_s REAL NOT NULL,             -- wall seconds of the measured steps
  cpu_s REAL NOT NULL,
  threads INTEGER NOT NULL,
  load_avg REAL NOT NULL,
  noisy INTEGER NOT NULL,               -- 1: the run got too little of the CPU it asked for
  PRIMARY KEY(trial_key, round)
);
)sql";

// v7: where a user's box was read (so fit can read it again): the digest in the system id says which
// box, these paths let a later `mdtune fit` read it again (and check the digest).
constexpr const char* kV7 = R"sql(
ALTER TABLE systems ADD COLUMN gro TEXT;  -- absolute path of a user's .gro; NULL for generated kinds
ALTER TABLE systems ADD COLUMN top TEXT;  -- and of its .top
)sql";

// v8: a user's box may come with its .mdp (part of the digest in the system id);
// its path lets a later `mdtune fit` read the box as it was measured.
constexpr const char* kV8 = R"sql(
ALTER TABLE systems ADD COLUMN mdp TEXT;  -- absolute path of a user's .mdp; NULL without one
)sql";

// kMigrations[i] takes the schema from version i to i+1.
constexpr std::array<const char*, 8> kMigrations{kV1, kV2, kV3, kV4, kV5, kV6, kV7, kV8};
static_assert(kMigrations.size() == kSchemaVersion, "one migration per schema version");

std::atomic<int> g_failing_migration{0};

void apply(sqlite3* db, int version) {
    Transaction tx(db);
    // Another process may have migrated between our read and taking the write lock.
    if (user_version(db) >= version) return;
    sql::exec(db, kMigrations[static_cast<std::size_t>(version - 1)]);
    if (g_failing_migration.load() == version) throw DbError("simulated failure (test hook)");
    sql::exec(db, "PRAGMA user_version = " + std::to_string(version));
    tx.commit();
}

}  // namespace

int user_version(sqlite3* db) { return static_cast<int>(sql::query_int(db, "PRAGMA user_version")); }

void migrate_to(sqlite3* db, int version) {
    if (version < 0 || version > kSchemaVersion)
        throw DbError(sql::db_path(db) + ": no migration to schema " + std::to_string(version));
    for (int v = user_version(db) + 1; v <= version; ++v) {
        try {
            apply(db, v);
        } catch (const std::exception& e) {
            throw DbError(sql::db_path(db) + ": migration to schema " + std::to_string(v) +
                          " failed, database left at schema " + std::to_string(v - 1) + ": " + e.what());
        }
    }
}

const std::vector<std::string>& tables_of_schema(int version) {
    if (version < 0 || version > kSchemaVersion) throw DbError("no mdtune schema " + std::to_string(version));
    // Computed once: tables_by_version[v] lists the tables after migration v.
    static const std::vector<std::vector<std::string>> tables_by_version = [] {
        sqlite3* mem = nullptr;
        if (sqlite3_open_v2(":memory:", &mem, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
            sqlite3_close_v2(mem);
            throw DbError("cannot open an in-memory database to list the schema's tables");
        }
        std::vector<std::vector<std::string>> out(1);  // schema 0: no tables
        try {
            for (const char* migration : kMigrations) {
                sql::exec(mem, migration);
                std::vector<std::string> names;
                sql::Statement st(mem, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
                while (st.step()) names.push_back(st.column_text(0));
                out.push_back(std::move(names));
            }
        } catch (...) {
            sqlite3_close_v2(mem);
            throw;
        }
        sqlite3_close_v2(mem);
        return out;
    }();
    return tables_by_version[static_cast<std::size_t>(version)];
}

void set_failing_migration_for_tests(int version) { g_failing_migration.store(version); }

}  // namespace mdtune::db
