// Tests of the trial database: persistence, keys, filters, refusal of bad files,
// migrations from every older schema, merge, concurrent writers and export.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "../common/temp_dir_test.h"
#include "file_bytes.h"
#include "mdtune/db/store.h"
#include "migrations.h"

namespace fs = std::filesystem;
using namespace mdtune;

using mdtest::read_bytes;
using mdtest::write_bytes;

namespace {

// A raw connection, for setting up files the Store would refuse to write.
struct RawDb {
    explicit RawDb(const fs::path& p, int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) {
        if (sqlite3_open_v2(p.c_str(), &db, flags, nullptr) != SQLITE_OK) {
            ADD_FAILURE() << "open " << p << ": " << sqlite3_errmsg(db);
        }
    }
    ~RawDb() { sqlite3_close_v2(db); }
    void exec(const std::string& sql) {
        char* err = nullptr;
        if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
            ADD_FAILURE() << sql << ": " << (err ? err : "?");
            sqlite3_free(err);
        }
    }
    long count(const std::string& sql) {
        sqlite3_stmt* st = nullptr;
        long n = -1;
        if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
            n = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        return n;
    }
    bool has_table(const std::string& name) {
        return count("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '" + name + "'") == 1;
    }
    sqlite3* db = nullptr;
};

int file_user_version(const fs::path& p) {
    RawDb raw(p, SQLITE_OPEN_READONLY);
    return static_cast<int>(raw.count("PRAGMA user_version"));
}

// The median repeat's report of a trial (a few fields set, so rows differ).
mdcore::RunReport report_of(long nstlist) {
    mdcore::RunReport rep;
    rep.build.git_commit = "0123456789ab";
    rep.config.cluster = mdcore::ClusterShape::k4x8;
    rep.config.nstlist = static_cast<int>(nstlist);
    rep.config.rlist = 1.05;
    rep.config.drift_tolerance = 1e-3;
    rep.pairlist.list_pairs = 12345;
    rep.pairlist.efficiency = 0.5;
    rep.ms_per_step = 1.25;
    rep.timings = {{"nonbonded", 0.5}};
    return rep;
}

db::StoredTrial make_trial(long nstlist, TrialStatus status = TrialStatus::Ok, const std::string& hw = "hw-a",
                       long sweep = 0, mdcore::SystemKind kind = mdcore::SystemKind::Water, long natoms = 3000) {
    db::StoredTrial t;
    t.sweep_id = sweep;
    t.hardware_id = hw;
    t.system = SystemDescriptor{kind, natoms, 7};
    t.config.set(Param::Cluster, std::string("4x8"));
    t.config.set(Param::Nstlist, nstlist);
    t.config.set(Param::Rlist, 1.05);
    t.build_id = "build-1";
    t.measure = MeasureSettings{500, 50, 3, 30.0};
    TrialResult& r = t.result;
    r.status = status;
    r.repeats = 3;
    r.ms_median = 1.25 + static_cast<double>(nstlist) / 100;
    r.ms_min = 1.2;
    r.ms_max = 1.5;
    r.ns_per_day = 123.5;
    r.drift = 1e-5;
    r.drift_tolerance = 1e-3;
    r.timings = {{"nonbonded", 0.001}, {"pme", 0.0004}};
    r.report = report_of(nstlist);
    r.stderr_tail = status == TrialStatus::Ok ? "" : "it went wrong\nline 2";
    r.load_avg = 0.5;
    r.wall_s = 2.5;
    return t;
}

void expect_same(const db::StoredTrial& a, const db::StoredTrial& b) {
    EXPECT_EQ(a.sweep_id, b.sweep_id);
    EXPECT_EQ(a.hardware_id, b.hardware_id);
    EXPECT_EQ(a.system.canonical(), b.system.canonical());
    EXPECT_EQ(a.config, b.config);
    EXPECT_EQ(a.build_id, b.build_id);
    EXPECT_EQ(a.measure.canonical(), b.measure.canonical());
    EXPECT_DOUBLE_EQ(a.measure.timeout_s, b.measure.timeout_s);
    const TrialResult &x = a.result, &y = b.result;
    EXPECT_EQ(x.status, y.status);
    EXPECT_EQ(x.repeats, y.repeats);
    EXPECT_DOUBLE_EQ(x.ms_median, y.ms_median);
    EXPECT_DOUBLE_EQ(x.ms_min, y.ms_min);
    EXPECT_DOUBLE_EQ(x.ms_max, y.ms_max);
    EXPECT_DOUBLE_EQ(x.ns_per_day, y.ns_per_day);
    EXPECT_DOUBLE_EQ(x.drift, y.drift);
    EXPECT_DOUBLE_EQ(x.drift_tolerance, y.drift_tolerance);
    EXPECT_EQ(x.timings, y.timings);
    ASSERT_EQ(x.report.has_value(), y.report.has_value());
    if (x.report) EXPECT_EQ(mdcore::run_report_to_json(*x.report), mdcore::run_report_to_json(*y.report));
    EXPECT_EQ(x.stderr_tail, y.stderr_tail);
    EXPECT_DOUBLE_EQ(x.load_avg, y.load_avg);
    EXPECT_DOUBLE_EQ(x.wall_s, y.wall_s);
}

// Inserts `t` with plain SQL into a schema-1 database, as an old mdtune would have.
void raw_insert_v1(RawDb& raw, const db::StoredTrial& t) {
    const TrialKey k = t.key();
    raw.exec("INSERT INTO systems VALUES('" + k.system + "', '" + t.system.kind_name() + "', " +
             std::to_string(t.system.natoms) + ", " + std::to_string(t.system.seed) + ")");
    raw.exec("INSERT INTO configs VALUES('" + k.config + "')");
    raw.exec("INSERT INTO trials(trial_key, hardware_id, system_id, config_id, build_id, measure, steps, warmup, "
             "repeats_requested, timeout_s, status, repeats, ms_median, timings_json, pairlist_json, config_json, "
             "report_json, stderr_tail, created_at) VALUES('" + k.str() + "', '" + t.hardware_id + "', '" + k.system +
             "', '" + k.config + "', '" + t.build_id + "', '" + k.measure + "', " + std::to_string(t.measure.steps) +
             ", " + std::to_string(t.measure.warmup) + ", " + std::to_string(t.measure.repeats) + ", 30, 'ok', 3, 1.5, "
             "'{\"pme\":0.5}', '{}', '{}', '{}', '', '2024-01-01T00:00:00.000Z')");
}

struct FailingMigration {
    explicit FailingMigration(int v) { db::set_failing_migration_for_tests(v); }
    ~FailingMigration() { db::set_failing_migration_for_tests(0); }
};

using StoreTest = mdtest::TempDirTest;

}  // namespace

TEST_F(StoreTest, CreateAndReopenPersists) {
    const std::string p = path("a.db");
    db::StoredTrial t = make_trial(20);
    long sweep = 0;
    {
        db::Store s(p);
        EXPECT_EQ(s.schema_version(), db::kSchemaVersion);
        s.put_hardware("hw-a", R"({"cpu":"x"})");
        s.put_hardware("hw-a", R"({"cpu":"y"})");  // upsert: the latest json wins
        s.put_build("build-1", R"({"flags":"-O3"})");
        sweep = s.create_sweep("first", "[space]\nnstlist = [10, 20]\n", "exhaustive");
        t.sweep_id = sweep;
        EXPECT_TRUE(s.insert_trial(t));
        s.finish_sweep(sweep, "done");
        EXPECT_THROW(s.finish_sweep(sweep + 100, "done"), db::DbError);
    }
    db::Store s(p);
    EXPECT_EQ(s.schema_version(), db::kSchemaVersion);
    EXPECT_EQ(s.hardware_json("hw-a").value_or(""), R"({"cpu":"y"})");
    EXPECT_FALSE(s.hardware_json("hw-zzz"));
    const auto sweeps = s.sweeps();
    ASSERT_EQ(sweeps.size(), 1u);
    EXPECT_EQ(sweeps[0].id, sweep);
    EXPECT_EQ(sweeps[0].name, "first");
    EXPECT_EQ(sweeps[0].space_text, "[space]\nnstlist = [10, 20]\n");
    EXPECT_EQ(sweeps[0].strategy, "exhaustive");
    EXPECT_EQ(sweeps[0].status, "done");
    const std::regex iso(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)");
    EXPECT_TRUE(std::regex_match(sweeps[0].started_at, iso)) << sweeps[0].started_at;
    EXPECT_TRUE(std::regex_match(sweeps[0].finished_at, iso)) << sweeps[0].finished_at;
    const auto all = s.trials();
    ASSERT_EQ(all.size(), 1u);
    expect_same(all[0], t);
    EXPECT_GT(all[0].id, 0);
    EXPECT_TRUE(std::regex_match(all[0].created_at, iso)) << all[0].created_at;
}

TEST_F(StoreTest, SecondInsertOfSameKeyIsIgnored) {
    db::Store s(path("a.db"));
    const db::StoredTrial t = make_trial(20);
    EXPECT_TRUE(s.insert_trial(t));
    db::StoredTrial again = t;
    again.result.ms_median = 99;  // same key, different outcome: the first one stays
    EXPECT_FALSE(s.insert_trial(again));
    const auto all = s.trials();
    ASSERT_EQ(all.size(), 1u);
    EXPECT_DOUBLE_EQ(all[0].result.ms_median, t.result.ms_median);
}

TEST_F(StoreTest, FindTrialByKey) {
    db::Store s(path("a.db"));
    const db::StoredTrial a = make_trial(10), b = make_trial(20);
    s.insert_trial(a);
    s.insert_trial(b);
    const auto found = s.find_trial(b.key());
    ASSERT_TRUE(found);
    expect_same(*found, b);
    EXPECT_EQ(found->key().str(), b.key().str());
    EXPECT_FALSE(s.find_trial(make_trial(30).key()));
    db::StoredTrial other_build = b;
    other_build.build_id = "build-2";
    EXPECT_FALSE(s.find_trial(other_build.key()));
}

TEST_F(StoreTest, DefaultConfigAndEmptyFieldsRoundTrip) {
    db::Store s(path("a.db"));
    db::StoredTrial t = make_trial(10, TrialStatus::Crashed);
    t.config = Config{};  // canonical text ""
    t.result.timings.clear();
    t.result.report.reset();
    ASSERT_TRUE(s.insert_trial(t));
    const auto found = s.find_trial(t.key());
    ASSERT_TRUE(found);
    expect_same(*found, t);
}

TEST_F(StoreTest, FiltersSelectAndOrderById) {
    db::Store s(path("a.db"));
    const long sw = s.create_sweep("s", "", "random");
    s.insert_trial(make_trial(1, TrialStatus::Ok, "hw-a", sw, mdcore::SystemKind::Water, 3000));
    s.insert_trial(make_trial(2, TrialStatus::Invalid, "hw-a", sw, mdcore::SystemKind::Water, 3000));
    s.insert_trial(make_trial(3, TrialStatus::Ok, "hw-b", 0, mdcore::SystemKind::Water, 3000));
    s.insert_trial(make_trial(4, TrialStatus::Ok, "hw-a", 0, mdcore::SystemKind::Lj, 1000));
    s.insert_trial(make_trial(5, TrialStatus::Ok, "hw-a", sw, mdcore::SystemKind::Water, 6000));

    auto ids_of = [](const std::vector<db::StoredTrial>& v) {
        std::vector<long> out;
        for (const auto& t : v) out.push_back(std::get<long>(*t.config.get(Param::Nstlist)));
        return out;
    };
    EXPECT_EQ(ids_of(s.trials()), (std::vector<long>{1, 2, 3, 4, 5}));
    EXPECT_EQ(ids_of(s.trials({.sweep_id = sw})), (std::vector<long>{1, 2, 5}));
    EXPECT_EQ(ids_of(s.trials({.hardware_id = "hw-b"})), (std::vector<long>{3}));
    EXPECT_EQ(ids_of(s.trials({.system_kind = "lj"})), (std::vector<long>{4}));
    EXPECT_EQ(ids_of(s.trials({.natoms = 6000})), (std::vector<long>{5}));
    EXPECT_EQ(ids_of(s.trials({.status = TrialStatus::Invalid})), (std::vector<long>{2}));
    EXPECT_EQ(ids_of(s.trials({.hardware_id = "hw-a", .system_kind = "water", .natoms = 3000,
                               .status = TrialStatus::Ok})),
              (std::vector<long>{1}));
    EXPECT_TRUE(s.trials({.hardware_id = "nope"}).empty());
    const auto all = s.trials();
    for (std::size_t i = 1; i < all.size(); ++i) EXPECT_LT(all[i - 1].id, all[i].id);
}

TEST_F(StoreTest, EveryStatusRoundTrips) {
    const std::string p = path("a.db");
    const std::vector<TrialStatus> statuses{TrialStatus::Ok, TrialStatus::Invalid, TrialStatus::Failed,
                                            TrialStatus::Timeout, TrialStatus::Crashed};
    {
        db::Store s(p);
        long n = 0;
        for (TrialStatus st : statuses) ASSERT_TRUE(s.insert_trial(make_trial(++n, st)));
    }
    db::Store s(p, db::Store::Mode::ReadOnly);
    long n = 0;
    for (TrialStatus st : statuses) {
        const db::StoredTrial want = make_trial(++n, st);
        const auto got = s.find_trial(want.key());
        ASSERT_TRUE(got) << to_string(st);
        expect_same(*got, want);
        EXPECT_EQ(s.trials({.status = st}).size(), 1u) << to_string(st);
    }
}

TEST_F(StoreTest, ReadOnlyModeNeitherCreatesNorWrites) {
    const std::string missing = path("missing.db");
    EXPECT_THROW(db::Store(missing, db::Store::Mode::ReadOnly), db::DbError);
    EXPECT_FALSE(fs::exists(missing));

    const std::string p = path("a.db");
    { db::Store s(p); s.insert_trial(make_trial(1)); }
    db::Store ro(p, db::Store::Mode::ReadOnly);
    EXPECT_EQ(ro.trials().size(), 1u);
    EXPECT_THROW(ro.insert_trial(make_trial(2)), db::DbError);
    EXPECT_EQ(ro.trials().size(), 1u);
}

TEST_F(StoreTest, TextFileIsRefusedAndLeftAlone) {
    const std::string p = path("notes.db");
    const std::string text = "this is not a database, it is a note about one\n"
                             "with more than one line of text so the header is long enough to look at\n";
    write_bytes(p, text);
    for (db::Store::Mode mode : {db::Store::Mode::ReadWrite, db::Store::Mode::ReadOnly}) {
        try {
            db::Store s(p, mode);
            FAIL() << "opened a text file";
        } catch (const db::DbError& e) {
            EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
        }
    }
    EXPECT_EQ(read_bytes(p), text);
    EXPECT_FALSE(fs::exists(p + "-wal"));
    EXPECT_FALSE(fs::exists(p + "-journal"));
}

TEST_F(StoreTest, CorruptDatabaseIsRefusedAndLeftAlone) {
    const std::string p = path("a.db");
    {
        db::Store s(p);
        for (long i = 1; i <= 20; ++i) s.put_hardware("hw-" + std::to_string(i), R"({"cores":16})");
        s.insert_trial(make_trial(1));
    }
    std::string bytes = read_bytes(p);
    RawDb probe(p, SQLITE_OPEN_READONLY);
    const long page = probe.count("PRAGMA page_size");
    ASSERT_GE(bytes.size(), static_cast<std::size_t>(3 * page));
    for (long i = page; i < 2 * page; ++i) bytes[static_cast<std::size_t>(i)] = static_cast<char>((i * 37 + 11) & 0xff);
    write_bytes(p, bytes);
    try {
        db::Store s(p);
        FAIL() << "opened a corrupt database";
    } catch (const db::DbError& e) {
        EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
    }
    EXPECT_EQ(read_bytes(p), bytes);
}

// The kind column holds mdcore's names; one this build does not know is named, not guessed.
TEST_F(StoreTest, UnknownSystemKindIsAClearError) {
    const std::string p = path("a.db");
    {
        db::Store s(p);
        s.insert_trial(make_trial(1, TrialStatus::Ok, "hw-a", 0, mdcore::SystemKind::WaterIons));
    }
    {
        RawDb raw(p);
        EXPECT_EQ(raw.count("SELECT COUNT(*) FROM systems WHERE kind = 'water-ions'"), 1);  // the text format
        raw.exec("UPDATE systems SET kind = 'gas'");
    }
    db::Store s(p, db::Store::Mode::ReadOnly);
    try {
        (void)s.trials();
        FAIL() << "read a trial of kind 'gas'";
    } catch (const db::DbError& e) {
        EXPECT_NE(std::string(e.what()).find("has system kind 'gas' (not lj, argon, lammps-lj, water, water-ions, gro)"),
                  std::string::npos)
            << e.what();
    }
}

TEST_F(StoreTest, NewerSchemaIsRefusedAndLeftAlone) {
    const std::string p = path("a.db");
    { db::Store s(p); s.insert_trial(make_trial(1)); }
    { RawDb raw(p); raw.exec("PRAGMA user_version = 99"); }
    const std::string before = read_bytes(p);
    try {
        db::Store s(p);
        FAIL() << "opened a newer database";
    } catch (const db::DbError& e) {
        const std::string expected = "written by a newer mdtune (schema 99 > " + std::to_string(db::kSchemaVersion) + ")";
        EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
    }
    EXPECT_EQ(file_user_version(p), 99);
    EXPECT_EQ(read_bytes(p), before);
}

TEST_F(StoreTest, MigratesFromEveryOlderVersion) {
    for (int from = 0; from < db::kSchemaVersion; ++from) {
        SCOPED_TRACE("from schema " + std::to_string(from));
        const std::string p = path("v" + std::to_string(from) + ".db");
        const db::StoredTrial t = make_trial(42);
        {
            RawDb raw(p);
            db::migrate_to(raw.db, from);
            ASSERT_EQ(db::user_version(raw.db), from);
            EXPECT_EQ(raw.has_table("trials"), from >= 1);
            EXPECT_EQ(raw.has_table("models"), from >= 2);
            EXPECT_EQ(raw.has_table("bench_runs"), from >= 3);
            if (from >= 1) raw_insert_v1(raw, t);
        }
        {
            db::Store s(p);
            EXPECT_EQ(s.schema_version(), db::kSchemaVersion);
            if (from >= 1) {
                const auto got = s.find_trial(t.key());
                ASSERT_TRUE(got);
                EXPECT_EQ(got->hardware_id, t.hardware_id);
                EXPECT_EQ(got->config, t.config);
                EXPECT_DOUBLE_EQ(got->result.ms_median, 1.5);
                EXPECT_EQ(got->result.timings.at("pme"), 0.5);
                EXPECT_FALSE(got->result.report);  // "{}": the first schema kept no report
                EXPECT_EQ(got->created_at, "2024-01-01T00:00:00.000Z");
            }
            EXPECT_TRUE(s.insert_trial(make_trial(43)));
        }
        RawDb raw(p, SQLITE_OPEN_READONLY);
        EXPECT_TRUE(raw.has_table("models"));
        EXPECT_TRUE(raw.has_table("bench_runs"));
        EXPECT_TRUE(raw.has_table("bench_results"));
        EXPECT_EQ(raw.count("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'trials_by_sweep'"), 1);
        EXPECT_EQ(raw.count("SELECT count(*) FROM trials"), from >= 1 ? 2 : 1);
    }
}

TEST_F(StoreTest, FailingMigrationLeavesThePreviousVersion) {
    const std::string p = path("a.db");
    const db::StoredTrial t = make_trial(7);
    {
        RawDb raw(p);
        db::migrate_to(raw.db, 2);
        raw_insert_v1(raw, t);
    }
    {
        FailingMigration hook(3);
        try {
            db::Store s(p);
            FAIL() << "migration 3 should have failed";
        } catch (const db::DbError& e) {
            EXPECT_NE(std::string(e.what()).find("migration to schema 3"), std::string::npos) << e.what();
        }
    }
    {
        RawDb raw(p, SQLITE_OPEN_READONLY);
        EXPECT_EQ(db::user_version(raw.db), 2);
        EXPECT_FALSE(raw.has_table("bench_runs"));
        EXPECT_FALSE(raw.has_table("bench_results"));
        EXPECT_EQ(raw.count("SELECT count(*) FROM sqlite_master WHERE name = 'bench_results_by_name'"), 0);
        EXPECT_EQ(raw.count("SELECT count(*) FROM trials"), 1);
    }
    // A fresh file whose very first migration fails is left without any table.
    const std::string fresh = path("fresh.db");
    {
        FailingMigration hook(1);
        EXPECT_THROW(db::Store s(fresh), db::DbError);
    }
    {
        RawDb raw(fresh, SQLITE_OPEN_READONLY);
        EXPECT_EQ(db::user_version(raw.db), 0);
        EXPECT_EQ(raw.count("SELECT count(*) FROM sqlite_master"), 0);
    }
    // Without the failure the same files migrate and keep their data.
    db::Store s(p);
    EXPECT_EQ(s.schema_version(), db::kSchemaVersion);
    EXPECT_TRUE(s.find_trial(t.key()));
    EXPECT_EQ(db::Store(fresh).schema_version(), db::kSchemaVersion);
}

TEST_F(StoreTest, MergeIsAUnionAndIdempotent) {
    const std::string a = path("a.db"), b = path("b.db");
    long a_sweep = 0;
    {
        db::Store s(a);
        s.put_hardware("hw-a", R"({"host":"a"})");
        a_sweep = s.create_sweep("sweep-a", "a", "exhaustive");
        for (long n = 1; n <= 3; ++n) s.insert_trial(make_trial(n, TrialStatus::Ok, "hw-a", a_sweep));
    }
    {
        db::Store s(b);
        s.put_hardware("hw-a", R"({"host":"changed"})");
        s.put_hardware("hw-b", R"({"host":"b"})");
        s.put_build("build-1", "{}");
        s.create_sweep("empty", "", "random");  // shifts b's sweep ids against a's
        const long sw = s.create_sweep("sweep-b", "b", "random");
        s.finish_sweep(sw, "interrupted");
        for (long n = 2; n <= 5; ++n) s.insert_trial(make_trial(n, TrialStatus::Ok, "hw-a", sw));
        s.insert_trial(make_trial(6, TrialStatus::Timeout, "hw-b", 0));
    }
    db::Store s(a);
    EXPECT_EQ(s.merge_from(b), 3);  // 4, 5 and 6; 2 and 3 were already here
    EXPECT_EQ(s.trials().size(), 6u);
    EXPECT_EQ(s.merge_from(b), 0);
    EXPECT_EQ(s.merge_from(a), 0);  // merging a file into itself adds nothing either
    EXPECT_EQ(s.trials().size(), 6u);

    const auto sweeps = s.sweeps();
    ASSERT_EQ(sweeps.size(), 3u);
    EXPECT_EQ(sweeps[0].id, a_sweep);
    long b_sweep = 0;
    for (const auto& row : sweeps)
        if (row.name == "sweep-b") {
            b_sweep = row.id;
            EXPECT_EQ(row.status, "interrupted");
            EXPECT_FALSE(row.finished_at.empty());
        }
    ASSERT_NE(b_sweep, 0);
    ASSERT_NE(b_sweep, 2);  // b's own id for it: must have been remapped (a has 1, "empty" became 2)
    std::vector<long> in_b;
    for (const auto& t : s.trials({.sweep_id = b_sweep})) in_b.push_back(std::get<long>(*t.config.get(Param::Nstlist)));
    EXPECT_EQ(in_b, (std::vector<long>{4, 5}));
    EXPECT_EQ(s.trials({.sweep_id = a_sweep}).size(), 3u);
    const auto unswept = s.find_trial(make_trial(6, TrialStatus::Timeout, "hw-b").key());
    ASSERT_TRUE(unswept);
    EXPECT_EQ(unswept->sweep_id, 0);
    expect_same(*unswept, make_trial(6, TrialStatus::Timeout, "hw-b"));
    EXPECT_EQ(s.hardware_json("hw-a").value_or(""), R"({"host":"a"})");  // existing rows are kept
    EXPECT_EQ(s.hardware_json("hw-b").value_or(""), R"({"host":"b"})");
}

TEST_F(StoreTest, MergeAgainBringsTheSweepsLaterOutcome) {
    const std::string a = path("a.db"), shard = path("shard.db");
    db::Store s(a);
    db::Store w(shard);
    const long sw = w.create_sweep("nightly", "", "random");
    w.insert_trial(make_trial(1, TrialStatus::Ok, "hw-a", sw));
    EXPECT_EQ(s.merge_from(shard), 1);
    ASSERT_EQ(s.sweeps().size(), 1u);
    EXPECT_EQ(s.sweeps()[0].status, "running");
    w.insert_trial(make_trial(2, TrialStatus::Failed, "hw-a", sw));
    w.finish_sweep(sw, "done");
    EXPECT_EQ(s.merge_from(shard), 1);
    const auto sweeps = s.sweeps();
    ASSERT_EQ(sweeps.size(), 1u);
    EXPECT_EQ(sweeps[0].status, "done");
    EXPECT_EQ(sweeps[0].finished_at, w.sweeps()[0].finished_at);
    EXPECT_EQ(s.trials({.sweep_id = sweeps[0].id}).size(), 2u);
}

TEST_F(StoreTest, MergeOfBadInputChangesNothing) {
    const std::string a = path("a.db");
    { db::Store s(a); s.insert_trial(make_trial(1)); }
    const std::string text = path("notes.txt");
    write_bytes(text, "not a database at all, just some words in a text file that is long enough\n");
    const std::string newer = path("newer.db");
    { db::Store s(newer); s.insert_trial(make_trial(2)); }
    { RawDb raw(newer); raw.exec("PRAGMA user_version = 99"); }
    const std::string empty = path("empty.db");
    write_bytes(empty, "");
    const std::string corrupt = path("corrupt.db");
    {
        db::Store s(corrupt);
        for (long i = 1; i <= 20; ++i) s.put_hardware("hw-" + std::to_string(i), "{}");
    }
    std::string bytes = read_bytes(corrupt);
    for (std::size_t i = 4096; i < 8192 && i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 13);
    write_bytes(corrupt, bytes);

    const std::string before = read_bytes(a);
    {
        db::Store s(a);
        for (const std::string& bad : {text, newer, empty, corrupt, path("missing.db")}) {
            try {
                s.merge_from(bad);
                ADD_FAILURE() << "merged " << bad;
            } catch (const db::DbError& e) {
                EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
            }
        }
        EXPECT_EQ(s.trials().size(), 1u);
    }
    EXPECT_EQ(read_bytes(a), before);
    EXPECT_FALSE(fs::exists(path("missing.db")));
    EXPECT_EQ(file_user_version(newer), 99);
}

TEST_F(StoreTest, ConcurrentWritersLoseNothing) {
    // Two processes open the same new file at once and each commit 200 trials;
    // busy_timeout + BEGIN IMMEDIATE must serialise them without losing a row.
    const std::string p = path("shared.db");
    constexpr int kWriters = 2, kEach = 200;
    std::vector<pid_t> children;
    for (int w = 0; w < kWriters; ++w) {
        const pid_t pid = ::fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            int rc = 0;
            try {
                db::Store s(p);
                for (int i = 0; i < kEach; ++i)
                    if (!s.insert_trial(make_trial(i, TrialStatus::Ok, "hw-" + std::to_string(w)))) rc = 2;
            } catch (const std::exception& e) {
                std::fprintf(stderr, "writer %d: %s\n", w, e.what());
                rc = 1;
            }
            ::_exit(rc);
        }
        children.push_back(pid);
    }
    for (pid_t pid : children) {
        int status = 0;
        ASSERT_EQ(::waitpid(pid, &status, 0), pid);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "writer status " << status;
    }
    db::Store s(p);
    EXPECT_EQ(s.trials().size(), static_cast<std::size_t>(kWriters * kEach));
    for (int w = 0; w < kWriters; ++w)
        EXPECT_EQ(s.trials({.hardware_id = "hw-" + std::to_string(w)}).size(), static_cast<std::size_t>(kEach));
}

TEST_F(StoreTest, ExportCsvQuotesPerRfc4180) {
    db::Store s(path("a.db"));
    db::StoredTrial t = make_trial(10);
    t.hardware_id = "node,1 \"big\"\nrack 2";
    s.insert_trial(t);
    s.insert_trial(make_trial(20));
    const std::string csv = db::export_trials_csv(s.trials());
    const std::string header =
        "id,sweep_id,hardware_id,system_kind,natoms,seed,config,build_id,steps,warmup,repeats,status,"
        "ms_median,ms_min,ms_max,ns_per_day,drift,load_avg,created_at\r\n";
    ASSERT_EQ(csv.substr(0, header.size()), header);
    EXPECT_NE(csv.find(",\"node,1 \"\"big\"\"\nrack 2\",water,3000,7,cluster=4x8;nstlist=10;rlist=1.05,build-1,"),
              std::string::npos)
        << csv;
    EXPECT_NE(csv.find(",hw-a,water,3000,7,cluster=4x8;nstlist=20;rlist=1.05,build-1,500,50,3,ok,1.45,1.2,1.5,"),
              std::string::npos)
        << csv;
    // Two records plus the header, each ended by CRLF; the quoted newline is a bare LF.
    std::size_t crlf = 0;
    for (std::size_t i = csv.find("\r\n"); i != std::string::npos; i = csv.find("\r\n", i + 2)) ++crlf;
    EXPECT_EQ(crlf, 3u);
    EXPECT_EQ(db::export_trials_csv({}), header);
}

TEST_F(StoreTest, ExportJsonParsesBack) {
    db::Store s(path("a.db"));
    db::StoredTrial t = make_trial(10, TrialStatus::Invalid);
    t.hardware_id = "quote \" and \\ backslash";
    s.insert_trial(t);
    db::StoredTrial plain = make_trial(20);
    plain.result.report.reset();
    s.insert_trial(plain);
    const auto rows = nlohmann::json::parse(db::export_trials_json(s.trials()));
    ASSERT_TRUE(rows.is_array());
    ASSERT_EQ(rows.size(), 2u);
    const auto& r = rows[0];
    EXPECT_EQ(r.at("hardware_id"), t.hardware_id);
    EXPECT_EQ(r.at("status"), "invalid");
    EXPECT_EQ(r.at("system_kind"), "water");
    EXPECT_EQ(r.at("natoms"), 3000);
    EXPECT_EQ(r.at("seed"), 7);
    EXPECT_EQ(r.at("config"), "cluster=4x8;nstlist=10;rlist=1.05");
    EXPECT_EQ(r.at("steps"), 500);
    EXPECT_DOUBLE_EQ(r.at("ms_median").get<double>(), t.result.ms_median);
    EXPECT_DOUBLE_EQ(r.at("drift").get<double>(), t.result.drift);
    EXPECT_EQ(r.at("timings").at("pme"), 0.0004);
    EXPECT_EQ(r.at("pairlist").at("list_pairs"), 12345);
    EXPECT_EQ(r.at("pairlist").at("nstlist"), 10);
    EXPECT_TRUE(rows[1].at("pairlist").is_null());
    EXPECT_EQ(nlohmann::json::parse(db::export_trials_json({})).size(), 0u);
}
