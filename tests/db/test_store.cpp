// Tests of the trial database: persistence, keys, filters, refusal of bad files and
// migrations from every older schema (merge, concurrency and export: test_store_merge.cpp).
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
#include "migrations.h"
#include "store_fixtures.h"

namespace fs = std::filesystem;
using namespace mdtune;
using namespace storetest;

using mdtest::read_bytes;
using mdtest::write_bytes;

namespace {

// Inserts `t` with plain SQL into a schema-1 database, as an old mdtune would have.
void raw_insert_v1(RawDb& raw, const db::StoredTrial& t) {
    const TrialKey k = t.key();
    raw.exec("INSERT INTO systems(id, kind, natoms, seed) VALUES('" + k.system + "', '" + t.system.kind_name() + "', " +
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
    EXPECT_THROW(db::Store(missing, db::Store::Mode::ReadOnly), db::DbRefusedError);  // a mistyped name: bad input
    EXPECT_FALSE(fs::exists(missing));
    // An empty file has no tables to read: refused as one, not a raw "no such table".
    const std::string empty = path("empty.db");
    std::ofstream(empty).flush();
    EXPECT_THROW(db::Store(empty, db::Store::Mode::ReadOnly), db::DbRefusedError);
    EXPECT_EQ(fs::file_size(empty), 0u);

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
