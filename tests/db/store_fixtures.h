#pragma once
// Shared by the store tests: a raw sqlite3 connection for files the Store would
// refuse to write, and a trial with every field set so round trips compare all.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>

#include "mdtune/db/store.h"

namespace storetest {

namespace fs = std::filesystem;
using namespace mdtune;

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

inline int file_user_version(const fs::path& p) {
    RawDb raw(p, SQLITE_OPEN_READONLY);
    return static_cast<int>(raw.count("PRAGMA user_version"));
}

// The median repeat's report of a trial (a few fields set, so rows differ).
inline mdcore::RunReport report_of(long nstlist) {
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

inline db::StoredTrial make_trial(long nstlist, TrialStatus status = TrialStatus::Ok, const std::string& hw = "hw-a",
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

inline void expect_same(const db::StoredTrial& a, const db::StoredTrial& b) {
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

}  // namespace storetest
