// The bench tables through db::BenchStore: one transaction per ingest, queries by
// label, commit prefix and name, and a database left as it was by bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "../common/file_text.h"
#include "bench_test_util.h"
#include "mdtune/bench/gbench_json.h"
#include "mdtune/bench/history.h"
#include "mdtune/bench/ingest.h"
#include "mdtune/db/bench_store.h"

namespace mdtune::bench {
namespace {

class BenchStoreTest : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = testing::temp_dir("store");
        db_ = dir_ + "/bench.db";
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }

    db::BenchRunRow run(const std::string& label, const std::string& commit, std::vector<double> us,
                    const std::string& name = "BM_A") {
        const bench::GbenchReport r = bench::parse_gbench_json(testing::gbench_json({{name, us}}), "t.json");
        return bench::to_run_row(r, {label, commit, "hw1", db::BenchMetric::RealTime}).row;
    }

    std::string dir_, db_;
};

TEST_F(BenchStoreTest, InsertsRunsWithEveryRepetitionAndQueriesThem) {
    db::Store store(db_);
    db::BenchStore bench(store);
    const auto ids = bench.insert({run("main", "0123456789abcdef", {10, 11, 12, 13, 14})});
    ASSERT_EQ(ids.size(), 1u);
    EXPECT_EQ(bench.run_count(), 1);
    EXPECT_EQ(bench.result_count(), 5);  // repetitions, not the median aggregate

    const auto by_label = bench.runs_matching("main", db::BenchMetric::RealTime);
    ASSERT_EQ(by_label.size(), 1u);
    const db::BenchRunRow& r = by_label[0];
    EXPECT_EQ(r.git_commit, "0123456789abcdef");
    EXPECT_EQ(r.hardware_id, "hw1");
    EXPECT_EQ(r.build_flags, "gcc 12 -O3");
    EXPECT_EQ(r.created_at.size(), 24u) << r.created_at;  // 2026-01-01T00:00:00.000Z
    ASSERT_EQ(r.results.size(), 5u);
    EXPECT_EQ(r.results[3].repetition, 3);
    EXPECT_DOUBLE_EQ(r.results[3].value, 13.0);
    EXPECT_EQ(r.results[3].unit, "us");
    EXPECT_EQ(r.results[3].iterations, 100);
    EXPECT_NE(r.results[3].extra_json.find("\"atoms/s\""), std::string::npos);

    EXPECT_EQ(bench.runs_matching("01234567", db::BenchMetric::RealTime).size(), 1u);  // commit prefix
    EXPECT_TRUE(bench.runs_matching("012", db::BenchMetric::RealTime).empty());         // too short for a prefix
    EXPECT_TRUE(bench.runs_matching("main", db::BenchMetric::Instructions).empty());
    EXPECT_TRUE(bench.runs_matching("0123%", db::BenchMetric::RealTime).empty());       // LIKE is escaped
}

TEST_F(BenchStoreTest, LabelsPoolRunsAndSeriesFollowCommits) {
    db::Store store(db_);
    db::BenchStore bench(store);
    bench.insert({run("base", "aaaa1111", {10, 10, 10, 10, 10})});
    bench.insert({run("head", "bbbb2222", {11, 11, 11, 11, 11})});
    bench.insert({run("base", "aaaa1111", {10, 10, 10, 10, 10})});
    const bench::Samples s = bench::samples_of(bench.runs_matching("base", db::BenchMetric::RealTime));
    ASSERT_EQ(s.at("BM_A").size(), 10u);
    EXPECT_DOUBLE_EQ(s.at("BM_A")[0], 10e-6);  // seconds
    EXPECT_EQ(bench.latest_run(db::BenchMetric::RealTime)->label, "base");
    EXPECT_EQ(bench.names(db::BenchMetric::RealTime), std::vector<std::string>{"BM_A"});
    const auto series = bench.series("BM_A", db::BenchMetric::RealTime);
    ASSERT_EQ(series.size(), 3u);
    EXPECT_EQ(series[1].git_commit, "bbbb2222");
    EXPECT_EQ(series[1].values.size(), 5u);
}

TEST_F(BenchStoreTest, AFailureInsideTheTransactionWritesNothing) {
    db::Store store(db_);
    db::BenchStore bench(store);
    bench.insert({run("before", "c0ffee00", {1, 2, 3})});
    db::BenchRunRow good = run("batch", "c0ffee01", {1, 2, 3});
    db::BenchRunRow bad = run("batch", "c0ffee01", {4, 5, 6}, "BM_B");
    bad.results[2].value = std::nan("");  // fails after two rows of this run were written
    EXPECT_THROW(bench.insert({good, bad}), db::DbError);
    EXPECT_EQ(bench.run_count(), 1);
    EXPECT_EQ(bench.result_count(), 3);
    EXPECT_TRUE(bench.runs_matching("batch", db::BenchMetric::RealTime).empty());
}

TEST_F(BenchStoreTest, MalformedOrTruncatedJsonLeavesTheDatabaseUntouched) {
    {
        db::Store store(db_);
        db::BenchStore(store).insert({run("before", "c0ffee00", {1, 2, 3})});
    }
    const std::string before = mdtest::file_text(db_);
    const std::string full = mdtest::file_text(std::string(MDT_BENCH_TEST_DATA) + "/gbench_nonbonded.json");
    const std::string truncated = dir_ + "/truncated.json";
    testing::write_file(truncated, full.substr(0, full.size() - 700));
    const std::string wrong = dir_ + "/wrong.json";
    std::string bad_unit = testing::gbench_json({{"BM_A", {1, 2}}});
    bad_unit.replace(bad_unit.find("\"us\""), 4, "\"parsecs\"");
    testing::write_file(wrong, bad_unit);
    for (const std::string& path : {truncated, wrong}) {
        // The ingest order of `mdtune bench ingest`: parse and convert every file,
        // then one insert.
        db::Store store(db_);
        db::BenchStore bench(store);
        std::string message;
        try {
            const bench::GbenchReport r = bench::read_gbench_file(path);
            bench.insert({bench::to_run_row(r, {"x", "", "", db::BenchMetric::RealTime}).row});
        } catch (const bench::GbenchError& e) {
            message = e.what();
        }
        EXPECT_NE(message.find(path), std::string::npos) << message;
        EXPECT_EQ(bench.run_count(), 1);
        EXPECT_EQ(bench.result_count(), 3);
    }
    EXPECT_EQ(mdtest::file_text(db_), before);
}

TEST_F(BenchStoreTest, HistoryFlagsAStepChangeBetweenCommits) {
    db::Store store(db_);
    db::BenchStore bench(store);
    const std::vector<double> flat{100, 100.2, 99.8, 100.1, 99.9, 100, 100.3};
    std::vector<double> slower;
    for (double v : flat) slower.push_back(v * 1.08);
    // Seven runs (processes) per label, each with its repetitions shifted a little.
    auto runs = [&](const std::string& label, const std::string& commit, const std::vector<double>& values) {
        for (int r = 0; r < kDefaultRuns; ++r) {
            std::vector<double> v;
            for (double x : values) v.push_back(x * (1.0 + 0.001 * r));
            bench.insert({run(label, commit, v)});
        }
    };
    runs("c1", "1111aaaa", flat);
    runs("c2", "2222bbbb", flat);
    runs("c2-again", "2222bbbb", flat);  // same commit: pooled
    runs("c3", "3333cccc", slower);
    runs("c4", "4444dddd", slower);
    const auto h = bench::build_history(bench.series("BM_A", db::BenchMetric::RealTime), bench::GateOptions{});
    ASSERT_EQ(h.size(), 4u);
    EXPECT_EQ(h[1].runs, 2 * kDefaultRuns);
    EXPECT_EQ(h[1].values.size(), 14u);  // one median per run
    EXPECT_FALSE(h[1].step);
    EXPECT_TRUE(h[2].step);
    EXPECT_EQ(h[2].vs_previous.verdict, bench::Verdict::Regression);
    EXPECT_NEAR(h[2].vs_previous.change, 0.08, 1e-9);
    EXPECT_FALSE(h[3].step);
    const std::string text = bench::format_history("BM_A", h, bench::GateOptions{});
    EXPECT_NE(text.find("STEP: slower"), std::string::npos) << text;
    EXPECT_NE(text.find("1 step change"), std::string::npos) << text;
}

}  // namespace
}  // namespace mdtune::bench
