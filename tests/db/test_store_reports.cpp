// A trial's RunReport in the database: written and read through the engine's
// writer and reader (db/src/report_columns.cpp), in the columns SQL users query.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "mdtune/db/store.h"

namespace fs = std::filesystem;
using namespace mdtune;

namespace {

class StoreReports : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("mdt_store_reports_" + std::to_string(::getpid()) + "_" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    std::string db() const { return (dir_ / "a.db").string(); }

    // One text column of the only trial row.
    std::string column(const std::string& name) const {
        sqlite3* raw = nullptr;
        EXPECT_EQ(sqlite3_open_v2(db().c_str(), &raw, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
        sqlite3_stmt* st = nullptr;
        EXPECT_EQ(sqlite3_prepare_v2(raw, ("SELECT " + name + " FROM trials").c_str(), -1, &st, nullptr), SQLITE_OK);
        EXPECT_EQ(sqlite3_step(st), SQLITE_ROW);
        const auto* text = sqlite3_column_text(st, 0);
        std::string out = text ? reinterpret_cast<const char*>(text) : "";
        sqlite3_finalize(st);
        sqlite3_close(raw);
        return out;
    }
    void exec(const std::string& sql) const {
        sqlite3* raw = nullptr;
        ASSERT_EQ(sqlite3_open(db().c_str(), &raw), SQLITE_OK);
        char* err = nullptr;
        EXPECT_EQ(sqlite3_exec(raw, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
        sqlite3_free(err);
        sqlite3_close(raw);
    }

    fs::path dir_;
};

// An ok trial whose median repeat's report has a few fields set.
db::StoredTrial trial_with_report() {
    mdcore::RunReport rep;
    rep.build.git_commit = "fedcba987654";
    rep.config.cluster = mdcore::ClusterShape::k8x4;
    rep.config.nstlist = 40;
    rep.config.pme = true;
    rep.config.pme_grid = {20, 21, 22};
    rep.pairlist.list_pairs = 4321;
    rep.pairlist.searches = 25;
    rep.ms_per_step = 2.5;
    db::StoredTrial t;
    t.system = SystemDescriptor{"water-ions", 6000, 3};
    t.config.set(Param::Nstlist, 40L);
    t.hardware_id = "hw-reports";
    t.build_id = "build-reports";
    t.measure = MeasureSettings{400, 40, 1, 60.0};
    t.result.report = rep;
    t.result.status = TrialStatus::Ok;
    t.result.ms_median = rep.ms_per_step;
    return t;
}

TEST_F(StoreReports, ColumnsHoldWhatTheEngineWrites) {
    const db::StoredTrial t = trial_with_report();
    db::Store(db()).insert_trial(t);
    const mdcore::RunReport& rep = *t.result.report;
    EXPECT_EQ(nlohmann::json::parse(column("config_json")),
              nlohmann::json::parse(mdcore::effective_config_to_json(rep.config)));
    EXPECT_EQ(nlohmann::json::parse(column("pairlist_json")),
              nlohmann::json::parse(mdcore::pairlist_to_json(rep.pairlist, rep.config)));
    EXPECT_EQ(nlohmann::json::parse(column("report_json")), nlohmann::json::parse(mdcore::run_report_to_json(rep)));

    const auto found = db::Store(db(), db::Store::Mode::ReadOnly).find_trial(t.key());
    ASSERT_TRUE(found && found->result.report);
    EXPECT_EQ(found->result.report->build.git_commit, "fedcba987654");  // the commit of the binary that ran
    EXPECT_EQ(found->result.report->config.pme_grid, rep.config.pme_grid);
    EXPECT_EQ(found->result.report->pairlist.searches, 25);
}

TEST_F(StoreReports, ATrialWithoutAReportHasEmptyColumns) {
    db::StoredTrial t = trial_with_report();
    t.result.status = TrialStatus::Crashed;
    t.result.report.reset();
    db::Store(db()).insert_trial(t);
    EXPECT_EQ(column("config_json"), "");
    EXPECT_EQ(column("pairlist_json"), "");
    EXPECT_EQ(column("report_json"), "");
    const auto found = db::Store(db()).find_trial(t.key());
    ASSERT_TRUE(found);
    EXPECT_FALSE(found->result.report);
}

TEST_F(StoreReports, AnUnreadableReportNamesTheTrialAndTheField) {
    const db::StoredTrial t = trial_with_report();
    db::Store(db()).insert_trial(t);
    exec(R"(UPDATE trials SET report_json = '{"ms_per_step":1,"ns_per_day":1,"drift_per_atom_per_ps":0,)"
         R"("config":{"cluster":"8x4","simd":"none","threads":1,"nstlist":"twenty"}}')");
    try {
        db::Store(db()).find_trial(t.key());
        FAIL() << "an unreadable report was accepted";
    } catch (const db::DbError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("trial 1"), std::string::npos) << what;
        EXPECT_NE(what.find("report_json"), std::string::npos) << what;
        EXPECT_NE(what.find("config.nstlist"), std::string::npos) << what;
    }
}

}  // namespace
