// The suite runner on a tiny real Google Benchmark executable: all repetitions
// in wall-time mode, and deterministic per-iteration instruction counts under
// callgrind (skipped where valgrind is not installed).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "bench_test_util.h"
#include "mdtune/bench/callgrind.h"
#include "mdtune/bench/ingest.h"
#include "mdtune/bench/runner.h"

namespace mdtune::bench {
namespace {

using testing::kFixtureExe;
#ifdef MDT_CALLGRIND_HOOKS
const std::string kHooks = MDT_CALLGRIND_HOOKS;
#else
const std::string kHooks;
#endif

bool have_valgrind() { return std::system("valgrind --version >/dev/null 2>&1") == 0; }

class RunnerTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (kFixtureExe.empty()) GTEST_SKIP() << "built without Google Benchmark";
        dir_ = testing::temp_dir("runner");
        opts_.work_dir = dir_;
        opts_.quiet = true;
    }
    void TearDown() override {
        if (!dir_.empty()) std::filesystem::remove_all(dir_);
    }
    std::string dir_;
    bench::SuiteOptions opts_;
    std::ostringstream log_;
};

TEST_F(RunnerTest, ListsAndRunsEveryRepetition) {
    EXPECT_EQ(bench::list_benchmarks(kFixtureExe, ""), (std::vector<std::string>{"BM_Work/10000", "BM_Work/20000"}));
    EXPECT_EQ(bench::list_benchmarks(kFixtureExe, "20000"), std::vector<std::string>{"BM_Work/20000"});
    EXPECT_TRUE(bench::list_benchmarks(kFixtureExe, "nothing-matches").empty());
    opts_.repetitions = 3;
    opts_.min_time = "0.001";
    const bench::GbenchReport r = bench::run_suite(kFixtureExe, db::BenchMetric::RealTime, opts_, log_);
    EXPECT_EQ(r.iteration_runs(), 6u);
    const bench::Converted c = bench::to_run_row(r, {"t", "", "", db::BenchMetric::RealTime});
    EXPECT_EQ(c.row.results.size(), 6u);
    EXPECT_EQ(bench::samples_of({c.row}).at("BM_Work/20000").size(), 3u);
}

// Per-iteration counts of BM_Work/10000 and /20000 (2 repetitions each).
bench::Samples instruction_samples(const bench::GbenchReport& r) {
    const bench::Converted c = bench::to_run_row(r, {"t", "", "", db::BenchMetric::Instructions});
    return bench::samples_of({c.row});
}

void expect_exact_and_proportional(const bench::Samples& s) {
    ASSERT_EQ(s.size(), 2u);
    const auto& small = s.at("BM_Work/10000");
    const auto& large = s.at("BM_Work/20000");
    ASSERT_EQ(small.size(), 2u);
    ASSERT_EQ(large.size(), 2u);
    EXPECT_EQ(small[0], small[1]) << "repetitions must count the same instructions";
    EXPECT_EQ(large[0], large[1]);
    EXPECT_GT(small[0], 10000 * 3);  // a multiply-add and a loop per step, at least
    EXPECT_NEAR(large[0] / small[0], 2.0, 0.01) << small[0] << " " << large[0];
}

TEST_F(RunnerTest, HookedCallgrindCountsAreExactProportionalAndSurviveAFailingBenchmark) {
    if (!have_valgrind()) GTEST_SKIP() << "valgrind not installed";
    if (kHooks.empty()) GTEST_SKIP() << "callgrind hooks not built (valgrind headers missing)";
    // BM_Fails skips with an error inside its loop: its timed loop is counted but
    // has no run to belong to, so the runner measures the others again without it.
    setenv("MDT_FIXTURE_FAIL", "1", 1);
    opts_.repetitions = 2;
    opts_.callgrind_hooks = kHooks;
    const bench::GbenchReport r = bench::run_suite(kFixtureExe, db::BenchMetric::Instructions, opts_, log_);
    unsetenv("MDT_FIXTURE_FAIL");
    EXPECT_NE(log_.str().find("measuring the others again without it"), std::string::npos) << log_.str();
    EXPECT_EQ(log_.str().find("did not take effect"), std::string::npos) << log_.str();
    const bench::Converted c = bench::to_run_row(r, {"t", "", "", db::BenchMetric::Instructions});
    EXPECT_EQ(c.skipped, (std::vector<std::string>{"BM_Fails: deliberate failure", "BM_Fails: deliberate failure"}));
    const bench::Samples s = instruction_samples(r);
    expect_exact_and_proportional(s);

    // Another process, from a work directory with a longer name: the same count
    // (the suite's argv does not depend on where mdtune keeps its files).
    const std::string other = dir_ + "/a_much_longer_directory_name";
    std::filesystem::create_directories(other);
    opts_.work_dir = other;
    opts_.filter = "BM_Work/10000";
    opts_.repetitions = 1;
    const bench::Samples again = instruction_samples(bench::run_suite(kFixtureExe, db::BenchMetric::Instructions, opts_, log_));
    EXPECT_EQ(again.at("BM_Work/10000").at(0), s.at("BM_Work/10000").at(0));
}

TEST_F(RunnerTest, FunctionTriggeredCallgrindCountsTheSameLoops) {
    // Without the hooks callgrind instruments everything and marks the loops by
    // function entry: the same counts up to the hooks' own few instructions.
    if (!have_valgrind()) GTEST_SKIP() << "valgrind not installed";
    opts_.repetitions = 2;
    const bench::Samples plain = instruction_samples(bench::run_suite(kFixtureExe, db::BenchMetric::Instructions, opts_, log_));
    expect_exact_and_proportional(plain);
    if (kHooks.empty()) return;
    opts_.callgrind_hooks = kHooks;
    const bench::Samples hooked = instruction_samples(bench::run_suite(kFixtureExe, db::BenchMetric::Instructions, opts_, log_));
    EXPECT_NEAR(hooked.at("BM_Work/10000")[0], plain.at("BM_Work/10000")[0], 50.0);
    EXPECT_NEAR(hooked.at("BM_Work/20000")[0], plain.at("BM_Work/20000")[0], 50.0);
}

TEST(Callgrind, ReadsDumpHeadersAndMatchesLoopsToRuns) {
    const std::string dir = testing::temp_dir("cg");
    auto dump = [&](const std::string& name, int part, const std::string& trigger, long long ir) {
        std::ostringstream s;
        s << "# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\npid: 42\ncmd:  ./bench\npart: " << part
          << "\n\n\ndesc: I1 cache: \ndesc: Timerange: Basic block 1 - 2\ndesc: Trigger: " << trigger
          << "\n\npositions: line\nevents: Ir\nsummary: " << ir << "\n\n\nfn=(1) main\n0 5\n\ntotals: " << ir << "\n";
        testing::write_file(dir + "/" + name, s.str());
    };
    dump("s.cg.42.2", 2, "Dump Before benchmark::State::FinishKeepRunning()", 2000);
    dump("s.cg.42.1", 1, "Dump Before benchmark::State::FinishKeepRunning()", 1000);
    dump("s.cg.42", 3, "Program termination", 99999);
    dump("other.cg.7.1", 1, "Dump Before benchmark::State::FinishKeepRunning()", 5);
    const auto dumps = bench::loop_dumps(dir, "s.cg");
    ASSERT_EQ(dumps.size(), 2u);
    EXPECT_EQ(dumps[0].instructions, 1000);
    EXPECT_EQ(dumps[1].part, 2);

    bench::GbenchReport report = bench::parse_gbench_json(testing::gbench_json({{"BM_A", {1.0}}, {"BM_B", {1.0}}}), "x.json");
    ASSERT_TRUE(bench::attach_instructions(report, dumps));
    EXPECT_DOUBLE_EQ(report.runs[0].counters.at("instructions"), 10.0);  // 1000 over 100 iterations
    EXPECT_DOUBLE_EQ(report.runs[2].counters.at("instructions"), 20.0);  // runs[1] is BM_A's median
    bench::GbenchReport three = bench::parse_gbench_json(testing::gbench_json({{"BM_A", {1.0, 1.0, 1.0}}}), "x.json");
    EXPECT_FALSE(bench::attach_instructions(three, dumps));
    EXPECT_FALSE(three.runs[0].counters.count("instructions"));

    testing::write_file(dir + "/junk", "hello\n");
    EXPECT_THROW(bench::read_callgrind_dump(dir + "/junk"), bench::GbenchError);
    std::filesystem::remove_all(dir);
}

TEST(Runner, ExactFilterEscapesRegexCharacters) {
    EXPECT_EQ(bench::exact_filter("BM_A/4x4/threads:1/real_time"), "^(BM_A/4x4/threads:1/real_time)$");
    EXPECT_EQ(bench::exact_filter("BM_(x).y[1]+"), "^(BM_\\(x\\)\\.y\\[1\\]\\+)$");
    EXPECT_EQ(bench::exact_filter_any({"BM_A", "BM_B/2"}), "^(BM_A|BM_B/2)$");
}

}  // namespace
}  // namespace mdtune::bench
