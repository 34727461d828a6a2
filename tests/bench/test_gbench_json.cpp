// Parsing Google Benchmark JSON: real output of the suites, non-finite counters,
// and every way a file can be malformed, each with a message that names it.
#include <gtest/gtest.h>

#include <cmath>

#include "../common/error_message.h"
#include "../common/file_text.h"
#include "bench_test_util.h"
#include "mdtune/bench/gbench_json.h"
#include "mdtune/bench/ingest.h"

namespace mdtune::bench {
namespace {

const std::string kFixture = std::string(MDT_BENCH_TEST_DATA) + "/gbench_nonbonded.json";

std::string error_of(const std::string& text) {
    return mdtest::message_of<bench::GbenchError>([&] { bench::parse_gbench_json(text, "input.json"); });
}

TEST(GbenchJson, ParsesRealSuiteOutputWithEveryRepetition) {
    const bench::GbenchReport r = bench::read_gbench_file(kFixture);
    // 3 benchmarks x (5 repetitions + mean, median, stddev, cv)
    ASSERT_EQ(r.runs.size(), 27u);
    EXPECT_EQ(r.iteration_runs(), 15u);
    const bench::GbenchRun& first = r.runs.front();
    EXPECT_EQ(first.type, bench::RunType::Iteration);
    EXPECT_EQ(first.run_name, "BM_Nonbonded/4x4/avx2/500/threads:1/real_time");
    EXPECT_EQ(first.time_unit, "us");
    EXPECT_GT(first.real_time, 0.0);
    EXPECT_GT(first.iterations, 0);
    EXPECT_TRUE(first.counters.count("pairs/s"));
    EXPECT_TRUE(first.counters.count("atoms/s"));
    EXPECT_FALSE(first.counters.count("label"));
    EXPECT_NE(first.label.find("lammps-lj"), std::string::npos);
    int reps = 0;
    for (const auto& run : r.runs)
        if (run.run_name == first.run_name && run.type == bench::RunType::Iteration) ++reps;
    EXPECT_EQ(reps, 5);
    EXPECT_EQ(r.runs[5].type, bench::RunType::Aggregate);
    EXPECT_EQ(r.runs[5].aggregate_name, "mean");
    EXPECT_EQ(r.context.at("mdcore_version"), "0.1.0");
    EXPECT_EQ(bench::build_flags_of(r), "gcc 12.2.0 -O3 -DNDEBUG");
}

TEST(GbenchJson, NonFiniteCountersBecomeNaNAndStringsAreUntouched) {
    std::string text = testing::gbench_json({{"BM_A", {1.0, 2.0}}});
    const auto at = text.find("\"atoms/s\": 1.0e6");
    text.replace(at, 16, "\"atoms/s\": NaN, \"rate\": -Infinity");
    text.replace(text.find("\"./bench_test\""), 14, "\"./NaN Infinity\"");
    const bench::GbenchReport r = bench::parse_gbench_json(text, "x.json");
    EXPECT_TRUE(std::isnan(r.runs[0].counters.at("atoms/s")));
    EXPECT_TRUE(std::isnan(r.runs[0].counters.at("rate")));
    EXPECT_EQ(r.context.at("executable"), "./NaN Infinity");
    // ...but a NaN time is not a measurement.
    std::string bad = testing::gbench_json({{"BM_A", {1.0}}});
    bad.replace(bad.find("\"real_time\": 1"), 14, "\"real_time\": NaN");
    EXPECT_NE(error_of(bad).find("real_time: is NaN"), std::string::npos) << error_of(bad);
}

TEST(GbenchJson, TruncatedFileNamesOffsetAndTruncation) {
    const std::string full = mdtest::file_text(kFixture);
    const std::string cut = full.substr(0, full.size() / 2);
    const std::string e = error_of(cut);
    EXPECT_NE(e.find("input.json: invalid JSON at byte offset"), std::string::npos) << e;
    EXPECT_NE(e.find("truncated"), std::string::npos) << e;
    EXPECT_NE(e.find("line "), std::string::npos) << e;
}

TEST(GbenchJson, SyntaxErrorNamesItsOffset) {
    const std::string text = "{\"context\": {}, \"benchmarks\": [ {\"name\": \"a\",, } ]}";
    const std::string e = error_of(text);
    EXPECT_NE(e.find("byte offset 45"), std::string::npos) << e;
    EXPECT_EQ(e.find("truncated"), std::string::npos) << e;
}

TEST(GbenchJson, EmptyAndWrongShapesAreRejected) {
    EXPECT_NE(error_of("").find("empty file"), std::string::npos);
    EXPECT_NE(error_of("[]").find("expected an object"), std::string::npos);
    EXPECT_NE(error_of("{\"context\": {}}").find("missing field \"benchmarks\""), std::string::npos);
    EXPECT_NE(error_of("{\"context\": 3, \"benchmarks\": []}").find("context: expected an object"), std::string::npos);
}

TEST(GbenchJson, FieldErrorsNameTheEntryAndField) {
    const std::string good = testing::gbench_json({{"BM_A", {1.0, 2.0}}});
    auto with = [&](const std::string& from, const std::string& to, std::size_t nth = 0) {
        std::string t = good;
        std::size_t at = t.find(from);
        for (std::size_t i = 0; i < nth; ++i) at = t.find(from, at + 1);
        t.replace(at, from.size(), to);
        return error_of(t);
    };
    std::string e = with("\"real_time\": 2", "\"real_time\": \"2\"");
    EXPECT_NE(e.find("benchmarks[1] (\"BM_A\").real_time: expected a number, got string"), std::string::npos) << e;
    e = with("\"time_unit\": \"us\"", "\"time_unit\": \"fortnights\"");
    EXPECT_NE(e.find("benchmarks[0] (\"BM_A\").time_unit: unknown time unit 'fortnights'"), std::string::npos) << e;
    e = with(", \"time_unit\": \"us\"", "");
    EXPECT_NE(e.find("missing field \"time_unit\""), std::string::npos) << e;
    e = with("\"iterations\": 100", "\"iterations\": 1.5");
    EXPECT_NE(e.find("iterations: expected an integer"), std::string::npos) << e;
    e = with("\"real_time\": 1", "\"real_time\": -1");
    EXPECT_NE(e.find("must be a finite non-negative number"), std::string::npos) << e;
    e = with("\"repetition_index\": 1", "\"repetition_index\": 0");
    EXPECT_NE(e.find("repetition 0 of 'BM_A' appears twice"), std::string::npos) << e;
    e = with("\"run_type\": \"iteration\"", "\"run_type\": \"warmup\"");
    EXPECT_NE(e.find("neither \"iteration\" nor \"aggregate\""), std::string::npos) << e;
}

TEST(GbenchJson, ErroredRunsAreKeptButSkippedOnIngest) {
    std::string text = testing::gbench_json({{"BM_A", {1.0, 2.0}}, {"BM_B", {1.0}}});
    const std::string b = "{\"name\": \"BM_B\", \"run_name\": \"BM_B\", \"run_type\": \"iteration\", \"repetitions\": 1, "
                          "\"repetition_index\": 0, \"threads\": 1, \"iterations\": 100, \"real_time\": 1";
    text.replace(text.find(b), b.size(),
                 "{\"name\": \"BM_B\", \"run_name\": \"BM_B\", \"run_type\": \"iteration\", \"repetitions\": 1, "
                 "\"repetition_index\": 0, \"threads\": 1, \"iterations\": 0, \"error_occurred\": true, "
                 "\"error_message\": \"no water\", \"real_time\": 0");
    const bench::GbenchReport r = bench::parse_gbench_json(text, "x.json");
    const bench::Converted c = bench::to_run_row(r, {"lbl", "abc", "hw", db::BenchMetric::RealTime});
    EXPECT_EQ(c.row.results.size(), 2u);
    ASSERT_EQ(c.skipped.size(), 1u);
    EXPECT_EQ(c.skipped[0], "BM_B: no water");
}

TEST(GbenchJson, AggregatesOnlyIsNotEnoughForTheGate) {
    std::string text =
        "{\"context\": {}, \"benchmarks\": [{\"name\": \"BM_A_median\", \"run_name\": \"BM_A\", \"run_type\": "
        "\"aggregate\", \"aggregate_name\": \"median\", \"iterations\": 5, \"real_time\": 1, \"cpu_time\": 1, "
        "\"time_unit\": \"ns\"}]}";
    const bench::GbenchReport r = bench::parse_gbench_json(text, "agg.json");
    try {
        bench::to_run_row(r, {"lbl", "", "", db::BenchMetric::RealTime});
        FAIL() << "expected an error";
    } catch (const bench::GbenchError& e) {
        EXPECT_NE(std::string(e.what()).find("only aggregates"), std::string::npos) << e.what();
    }
}

TEST(GbenchJson, InstructionMetricNeedsTheCounter) {
    const bench::GbenchReport r = bench::parse_gbench_json(testing::gbench_json({{"BM_A", {1.0}}}), "t.json");
    EXPECT_THROW(bench::to_run_row(r, {"lbl", "", "", db::BenchMetric::Instructions}), bench::GbenchError);
    bench::GbenchReport with = r;
    with.runs[0].counters["instructions"] = 12345.0;
    const bench::Converted c = bench::to_run_row(with, {"lbl", "", "", db::BenchMetric::Instructions});
    EXPECT_EQ(c.row.results.at(0).value, 12345.0);
    EXPECT_EQ(c.row.results.at(0).unit, "instructions");
}

TEST(GbenchJson, UnitsConvertToSeconds) {
    EXPECT_DOUBLE_EQ(bench::seconds_per_unit("ns"), 1e-9);
    EXPECT_DOUBLE_EQ(bench::seconds_per_unit("us"), 1e-6);
    EXPECT_DOUBLE_EQ(bench::seconds_per_unit("ms"), 1e-3);
    EXPECT_DOUBLE_EQ(bench::seconds_per_unit("s"), 1.0);
    EXPECT_THROW(bench::seconds_per_unit("min"), bench::GbenchError);
}

}  // namespace
}  // namespace mdtune::bench
