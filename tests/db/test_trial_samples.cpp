// The trial_samples table (schema 6): a trial's repeats measured in rounds are
// stored with it, read back, replaced with a retried failure, copied by merge,
// and files from schema 5 migrate (and read read-only) without them.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "../common/temp_dir_test.h"
#include "migrations.h"
#include "mdtune/db/store.h"

namespace mdtune {
namespace {

class TrialSamples : public mdtest::TempDirTest {};

db::StoredTrial trial(long nstlist, TrialStatus status = TrialStatus::Ok, int rounds = 3) {
    db::StoredTrial t;
    t.hardware_id = "hw-a";
    t.system = SystemDescriptor{mdcore::SystemKind::Lj, 256, 1};
    t.config.set(Param::Nstlist, nstlist);
    t.build_id = "build-1";
    t.measure = MeasureSettings{100, 10, rounds, 30.0};
    t.result.status = status;
    t.result.repeats = status == TrialStatus::Ok ? rounds : 0;
    t.result.ms_median = 1.5;
    for (int r = 0; r < (status == TrialStatus::Ok ? rounds : 0); ++r) {
        RepeatSample s;
        s.round = r;
        s.position = (r + 1) % 3;
        s.ms_per_step = 1.5 + 0.1 * r;
        s.ref_ms_per_step = r == 1 ? 0.0 : 2.0;  // the reference failed round 1
        s.wall_s = 4.0;
        s.measured_s = 1.5 + r;
        s.cpu_s = 7.0 - r;
        s.threads = 2;
        s.load_avg = 0.25 * r;
        s.noisy = r == 2;
        t.result.samples.push_back(s);
    }
    return t;
}

void expect_same_samples(const std::vector<RepeatSample>& got, const std::vector<RepeatSample>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t k = 0; k < got.size(); ++k) {
        EXPECT_EQ(got[k].round, want[k].round);
        EXPECT_EQ(got[k].position, want[k].position);
        EXPECT_DOUBLE_EQ(got[k].ms_per_step, want[k].ms_per_step);
        EXPECT_DOUBLE_EQ(got[k].ref_ms_per_step, want[k].ref_ms_per_step);
        EXPECT_DOUBLE_EQ(got[k].wall_s, want[k].wall_s);
        EXPECT_DOUBLE_EQ(got[k].measured_s, want[k].measured_s);
        EXPECT_DOUBLE_EQ(got[k].cpu_s, want[k].cpu_s);
        EXPECT_EQ(got[k].threads, want[k].threads);
        EXPECT_DOUBLE_EQ(got[k].load_avg, want[k].load_avg);
        EXPECT_EQ(got[k].noisy, want[k].noisy);
    }
}

TEST_F(TrialSamples, AreStoredAndReadWithTheirTrial) {
    db::Store s(path("a.db"));
    const db::StoredTrial t = trial(10);
    ASSERT_TRUE(s.insert_trial(t));
    const auto got = s.find_trial(t.key());
    ASSERT_TRUE(got);
    expect_same_samples(got->result.samples, t.result.samples);
    EXPECT_DOUBLE_EQ(got->result.samples[0].ratio(), 0.75);
    EXPECT_DOUBLE_EQ(got->result.samples[1].ratio(), 0.0);  // NULL reference: no ratio
    EXPECT_EQ(s.trials().at(0).result.samples.size(), 3u);
    // Keep: a second insert of the key changes nothing, samples included.
    db::StoredTrial other = trial(10);
    other.result.samples.pop_back();
    EXPECT_FALSE(s.insert_trial(other));
    EXPECT_EQ(s.find_trial(t.key())->result.samples.size(), 3u);
}

TEST_F(TrialSamples, ARetriedFailureGetsTheNewSamples) {
    db::Store s(path("a.db"));
    // The crashed trial kept the samples of the runs it finished (more rounds than
    // the retry, so a stale row left behind would show).
    db::StoredTrial crashed = trial(10, TrialStatus::Ok, 5);
    crashed.measure = trial(10).measure;
    crashed.result.status = TrialStatus::Crashed;
    ASSERT_TRUE(s.insert_trial(crashed));
    ASSERT_EQ(s.find_trial(trial(10).key())->result.samples.size(), 5u);
    const db::StoredTrial ok = trial(10);
    ASSERT_TRUE(s.insert_trial(ok, db::Store::OnExisting::ReplaceFailed));
    expect_same_samples(s.find_trial(ok.key())->result.samples, ok.result.samples);
}

TEST_F(TrialSamples, MergeCopiesThemOnceWithTheirTrial) {
    const db::StoredTrial t = trial(20);
    {
        db::Store shard(path("shard.db"));
        shard.insert_trial(t);
    }
    db::Store main(path("main.db"));
    EXPECT_EQ(main.merge_from(path("shard.db")), 1);
    EXPECT_EQ(main.merge_from(path("shard.db")), 0);
    expect_same_samples(main.find_trial(t.key())->result.samples, t.result.samples);
    sqlite3* db = main.handle();
    sqlite3_stmt* st = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT count(*) FROM trial_samples", -1, &st, nullptr), SQLITE_OK);
    ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
    EXPECT_EQ(sqlite3_column_int(st, 0), 3);
    sqlite3_finalize(st);
}

TEST_F(TrialSamples, SchemaFiveFilesReadWithoutThemAndMigrate) {
    const std::string p = path("v5.db");
    const db::StoredTrial t = trial(40);
    {
        db::Store s(p);
        s.insert_trial(t);
    }
    {  // back to what schema 5 wrote: no samples table, no system paths
        sqlite3* raw = nullptr;
        ASSERT_EQ(sqlite3_open(p.c_str(), &raw), SQLITE_OK);
        ASSERT_EQ(sqlite3_exec(raw, "DROP TABLE trial_samples; ALTER TABLE systems DROP COLUMN gro; ALTER TABLE systems DROP COLUMN top; "
                                    "ALTER TABLE systems DROP COLUMN mdp; "
                                    "PRAGMA user_version = 5;", nullptr, nullptr, nullptr),
                  SQLITE_OK);
        EXPECT_EQ(db::user_version(raw), 5);
        sqlite3_close(raw);
    }
    {
        const db::Store ro(p, db::Store::Mode::ReadOnly);
        EXPECT_EQ(ro.schema_version(), 5);
        const auto got = ro.find_trial(t.key());
        ASSERT_TRUE(got);
        EXPECT_TRUE(got->result.samples.empty());
    }
    db::Store s(p);
    EXPECT_EQ(s.schema_version(), db::kSchemaVersion);
    EXPECT_TRUE(s.find_trial(t.key())->result.samples.empty());
    const db::StoredTrial next = trial(80);
    ASSERT_TRUE(s.insert_trial(next));
    expect_same_samples(s.find_trial(next.key())->result.samples, next.result.samples);
}

}  // namespace
}  // namespace mdtune
