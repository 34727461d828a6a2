// `mdtune bench` end to end: ingest, compare (exit codes and formats), history,
// run on a tiny suite, and bad input leaving the database as it was. Skipped when
// the mdtune executable has not been built.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "../common/file_text.h"
#include "bench_test_util.h"
#include "mdtune/db/bench_store.h"

namespace mdtune::bench {
namespace {

// $MDT_TEST_MDTUNE overrides the build's mdtune (e.g. to test an installed one).
std::string mdtune_exe() {
    if (const char* e = std::getenv("MDT_TEST_MDTUNE"); e && *e) return e;
#ifdef MDT_MDTUNE_EXE
    return MDT_MDTUNE_EXE;
#else
    return "";
#endif
}
const std::string kMdtune = mdtune_exe();
using testing::kFixtureExe;
#ifdef MDT_BENCH_UPDATE_EXE
const std::string kBenchUpdateExe = MDT_BENCH_UPDATE_EXE;
#else
const std::string kBenchUpdateExe;
#endif

class BenchCli : public ::testing::Test {
protected:
    void SetUp() override {
        if (kMdtune.empty() || !std::filesystem::exists(kMdtune)) GTEST_SKIP() << "mdtune not built";
        dir_ = testing::temp_dir("cli");
        db_ = dir_ + "/m.db";
        // An mdtune built before the bench command was linked in (stale build).
        if (mdtune("bench --help") != 0 && out_.find("unknown command 'bench'") != std::string::npos)
            GTEST_SKIP() << kMdtune << " has no bench command (rebuild the mdtune target)";
    }
    void TearDown() override {
        if (!dir_.empty()) std::filesystem::remove_all(dir_);
    }
    // Exit code of `mdtune ARGS`; output in out_.
    int mdtune(const std::string& args) {
        const std::string log = dir_ + "/out.txt";
        const int status = std::system((kMdtune + " " + args + " >" + log + " 2>&1").c_str());
        out_ = mdtest::file_text(log);
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    std::string json_file(const std::string& name, const std::map<std::string, std::vector<double>>& us) {
        const std::string path = dir_ + "/" + name;
        testing::write_file(path, testing::gbench_json(us));
        return path;
    }
    std::pair<long, long> counts() {
        db::Store store(db_, db::Store::Mode::ReadOnly);
        db::BenchStore b(store);
        return {b.run_count(), b.result_count()};
    }
    std::string dir_, db_, out_;
};

const std::vector<double> kBase{100, 100.4, 99.6, 100.2, 99.8, 100.1, 99.9, 100.3, 99.7};

std::vector<double> scaled(double f) {
    std::vector<double> v;
    for (double x : kBase) v.push_back(x * f);
    return v;
}

// Repetitions of run r (0-based) of a build f times slower than kBase: three
// consecutive values of kBase, so the runs' medians differ a little.
std::vector<double> run_values(int r, double f) {
    const auto all = scaled(f);
    return {all[r % 7], all[r % 7 + 1], all[r % 7 + 2]};
}

TEST_F(BenchCli, IngestCompareAndHistory) {
    auto runs = [&](const std::string& stem, double kernel_factor) {
        std::string files;
        for (int r = 0; r < 7; ++r)
            files += " " + json_file(stem + std::to_string(r) + ".json",
                                     {{"BM_Kernel", run_values(r, kernel_factor)}, {"BM_Other", run_values(r, 1.0)}});
        return files;
    };
    const auto base = runs("base", 1.0), same = runs("same", 1.001), slow = runs("slow", 1.05);
    ASSERT_EQ(mdtune("bench ingest" + base + " --label base --commit aaaa0000 --hardware hw --db " + db_), 0) << out_;
    EXPECT_NE(out_.find("stored 42 result(s) of 2 benchmark(s)"), std::string::npos) << out_;
    ASSERT_EQ(mdtune("bench ingest" + same + " --label same --commit bbbb0000 --hardware hw --db " + db_), 0) << out_;
    ASSERT_EQ(mdtune("bench ingest" + slow + " --label slow --commit cccc0000 --hardware hw --db " + db_), 0) << out_;

    EXPECT_EQ(mdtune("bench compare --baseline base --candidate same --db " + db_), 0) << out_;
    EXPECT_NE(out_.find("gate: pass"), std::string::npos) << out_;
    // Candidate defaults to the latest run; a commit prefix selects too.
    EXPECT_EQ(mdtune("bench compare --baseline aaaa --db " + db_), 1) << out_;
    EXPECT_NE(out_.find("BM_Kernel"), std::string::npos);
    EXPECT_NE(out_.find("regression"), std::string::npos);
    EXPECT_NE(out_.find("gate: FAIL"), std::string::npos);
    EXPECT_NE(out_.find("geometric mean"), std::string::npos);
    // Two past labels are no history yet: no drift applied.
    EXPECT_NE(out_.find("0 benchmark(s) with >= 3 past labels"), std::string::npos) << out_;
    // ...but not beyond a 10 % threshold.
    EXPECT_EQ(mdtune("bench compare --baseline base --candidate slow --threshold 10% --db " + db_), 0) << out_;

    ASSERT_EQ(mdtune("bench compare --baseline base --candidate slow --format json --db " + db_), 1);
    const auto j = nlohmann::json::parse(out_);
    EXPECT_EQ(j["regressions"], 1);
    EXPECT_EQ(j["benchmarks"][0]["name"], "BM_Kernel");
    EXPECT_EQ(j["benchmarks"][0]["n_baseline"], 7);  // runs, not repetitions
    EXPECT_NEAR(j["benchmarks"][0]["change"].get<double>(), 0.05, 1e-9);
    ASSERT_EQ(mdtune("bench compare --baseline base --candidate slow --format markdown --db " + db_), 1);
    EXPECT_NE(out_.find("**regression**"), std::string::npos) << out_;

    ASSERT_EQ(mdtune("bench history BM_Kernel --db " + db_), 0) << out_;
    EXPECT_NE(out_.find("STEP: slower"), std::string::npos) << out_;
    EXPECT_NE(out_.find("cccc0000"), std::string::npos);
    ASSERT_EQ(mdtune("bench list --db " + db_), 0) << out_;
    EXPECT_NE(out_.find("21 real_time run(s)"), std::string::npos) << out_;
}

TEST_F(BenchCli, ZeroTimeIsRefusedNamingFileAndBenchmark) {
    const auto zero = json_file("zero.json", {{"BM_Kernel", {0.0}}});
    EXPECT_EQ(mdtune("bench ingest " + zero + " --label zero --hardware hw --db " + db_), 2) << out_;
    EXPECT_NE(out_.find(zero + ": benchmarks[0] (\"BM_Kernel\").real_time: is 0"), std::string::npos) << out_;
    EXPECT_FALSE(std::filesystem::exists(db_) && counts().first > 0) << "a run was stored";
}

TEST_F(BenchCli, OneProcessASideGivesNoVerdict) {
    // Nine repetitions of one process are one independent sample, not nine.
    const auto base = json_file("base.json", {{"BM_Kernel", kBase}});
    const auto slow = json_file("slow.json", {{"BM_Kernel", scaled(1.10)}});
    ASSERT_EQ(mdtune("bench ingest " + base + " --label base --hardware hw --db " + db_), 0) << out_;
    ASSERT_EQ(mdtune("bench ingest " + slow + " --label slow --hardware hw --db " + db_), 0) << out_;
    EXPECT_EQ(mdtune("bench compare --baseline base --candidate slow --db " + db_), 2) << out_;
    EXPECT_NE(out_.find("too few independent runs: 1 < 7"), std::string::npos) << out_;
    EXPECT_NE(out_.find("gate: no verdict"), std::string::npos) << out_;
    EXPECT_NE(out_.find("--runs 7"), std::string::npos) << out_;
    // --min-runs 1 lets one run a side through, and then the U test has too little
    // to go on: inconclusive, not a pass.
    EXPECT_EQ(mdtune("bench compare --baseline base --candidate slow --min-runs 1 --db " + db_), 3) << out_;
    EXPECT_NE(out_.find("too few repetitions to reach p < 0.0500"), std::string::npos) << out_;
}

TEST_F(BenchCli, ANoisySlowdownIsInconclusiveWithItsOwnExitCode) {
    // Seven runs a side; BM_Noisy is really 5 % slower but its runs spread 8 %.
    const std::vector<double> noisy{90, 95, 100, 105, 110, 97, 103};
    auto ingest_label = [&](const std::string& label, double factor) {
        std::string files;
        for (int r = 0; r < 7; ++r)
            files += " " + json_file(label + std::to_string(r) + ".json",
                                     {{"BM_Noisy", {noisy[r] * factor}}, {"BM_Quiet", {100.0 + 0.01 * r}}});
        ASSERT_EQ(mdtune("bench ingest" + files + " --label " + label + " --hardware hw --db " + db_), 0) << out_;
    };
    ingest_label("base", 1.0);
    ingest_label("slow", 1.05);
    const std::string cmp = "bench compare --baseline base --candidate slow --db " + db_;
    EXPECT_EQ(mdtune(cmp), 3) << out_;
    EXPECT_NE(out_.find("gate: INCONCLUSIVE"), std::string::npos) << out_;
    EXPECT_NE(out_.find("inconclusive: 1 of 2 benchmark(s) cannot resolve +-3.0%: BM_Noisy (~"), std::string::npos)
        << out_;
    EXPECT_NE(out_.find("--metric instructions"), std::string::npos) << out_;
    EXPECT_EQ(out_.find("gate: pass"), std::string::npos) << out_;
    EXPECT_EQ(mdtune(cmp + " --allow-inconclusive"), 0) << out_;
    EXPECT_NE(out_.find("gate: pass (inconclusive allowed"), std::string::npos) << out_;
    EXPECT_EQ(mdtune(cmp + " --format json"), 3) << out_;
    EXPECT_EQ(nlohmann::json::parse(out_.substr(out_.find("{\n"), out_.rfind('}') - out_.find("{\n") + 1))["outcome"], "inconclusive") << out_;
}

TEST_F(BenchCli, ABaselineFromAnotherTimeIsJudgedAgainstTheHistoricDrift) {
    // Five past labels of one build on this hardware alternating between the
    // machine's fast state and a slow state 8 % slower, then a candidate 6 % slower.
    auto ingest_label = [&](const std::string& label, double factor) {
        std::string files;
        for (int r = 0; r < 7; ++r)
            files += " " + json_file(label + std::to_string(r) + ".json", {{"BM_Kernel", run_values(r, factor)}});
        ASSERT_EQ(mdtune("bench ingest" + files + " --label " + label + " --hardware hw --db " + db_), 0) << out_;
    };
    for (int i = 0; i < 5; ++i) ingest_label("past" + std::to_string(i), i % 2 ? 1.08 : 1.0);
    ingest_label("now", 1.06);
    EXPECT_EQ(mdtune("bench compare --baseline past4 --candidate now --db " + db_), 0) << out_;
    EXPECT_NE(out_.find("historic drift +-8.0%"), std::string::npos) << out_;
    EXPECT_NE(out_.find("1 benchmark(s) with >= 3 past labels"), std::string::npos) << out_;
    // Without the history the same numbers are a regression.
    EXPECT_EQ(mdtune("bench compare --baseline past4 --candidate now --no-history --db " + db_), 1) << out_;
}

TEST_F(BenchCli, BadInputIsAClearErrorAndStoresNothing) {
    const auto base = json_file("base.json", {{"BM_Kernel", kBase}});
    ASSERT_EQ(mdtune("bench ingest " + base + " --label base --hardware hw --db " + db_), 0) << out_;
    const std::string full = mdtest::file_text(base);
    const std::string cut = dir_ + "/cut.json";
    testing::write_file(cut, full.substr(0, full.size() / 2));
    // A good file followed by a truncated one: neither is stored.
    EXPECT_EQ(mdtune("bench ingest " + base + " " + cut + " --label two --hardware hw --db " + db_), 2) << out_;
    EXPECT_NE(out_.find(cut + ": invalid JSON at byte offset"), std::string::npos) << out_;
    EXPECT_NE(out_.find("truncated"), std::string::npos) << out_;
    EXPECT_EQ(counts(), (std::pair<long, long>{1, 9}));
    EXPECT_EQ(mdtune("bench ingest " + dir_ + "/missing.json --hardware hw --db " + db_), 2) << out_;
    EXPECT_NE(out_.find("cannot open"), std::string::npos) << out_;

    EXPECT_EQ(mdtune("bench compare --baseline nope --db " + db_), 2) << out_;
    EXPECT_NE(out_.find("--baseline: no real_time runs with label or commit 'nope'"), std::string::npos) << out_;
    EXPECT_EQ(mdtune("bench compare --baseline base --db " + db_), 2) << out_;  // latest run is the baseline
    EXPECT_EQ(mdtune("bench compare --baseline base --threshold 3 --db " + db_), 2) << out_;
    EXPECT_NE(out_.find("--threshold"), std::string::npos);
    EXPECT_EQ(mdtune("bench history BM_Nothing --db " + db_), 2) << out_;
    EXPECT_EQ(mdtune("bench frobnicate"), 2) << out_;
    EXPECT_EQ(counts(), (std::pair<long, long>{1, 9}));
}

TEST_F(BenchCli, RunsASuiteWithAllRepetitions) {
    if (kFixtureExe.empty()) GTEST_SKIP() << "built without Google Benchmark";
    const std::string bin = dir_ + "/bin";
    std::filesystem::create_directories(bin);
    std::filesystem::create_symlink(kFixtureExe, bin + "/bench_fixture");
    ASSERT_EQ(mdtune("bench run --bench-dir " + bin + " --runs 1 --repetitions 5 --min-time 0.001 --label A --commit "
                     "deadbeef00 --quiet --db " + db_),
              0)
        << out_;
    EXPECT_NE(out_.find("stored 10 result(s) of 2 benchmark(s)"), std::string::npos) << out_;
    ASSERT_EQ(mdtune("bench run --bench-dir " + bin + " --filter 20000 --runs 1 --repetitions 5 --min-time 0.001 "
                     "--label B --quiet --db " + db_),
              0)
        << out_;
    EXPECT_NE(out_.find("stored 5 result(s) of 1 benchmark(s)"), std::string::npos) << out_;
    // One process a side: the gate gives no verdict, for the common benchmark.
    EXPECT_EQ(mdtune("bench compare --baseline A --candidate B --db " + db_), 2) << out_;
    EXPECT_NE(out_.find("BM_Work/20000"), std::string::npos) << out_;
    EXPECT_NE(out_.find("only in baseline:  BM_Work/10000"), std::string::npos) << out_;
    EXPECT_NE(out_.find("too few independent runs: 1 < 7"), std::string::npos) << out_;
    EXPECT_EQ(mdtune("bench run --bench-dir " + bin + " --filter nomatch --db " + db_), 2) << out_;
    EXPECT_EQ(mdtune("bench run --bench-dir " + dir_ + "/empty --db " + db_), 2) << out_;
}

TEST_F(BenchCli, RunsAreProcessesInterleavedAcrossSuites) {
    if (kFixtureExe.empty()) GTEST_SKIP() << "built without Google Benchmark";
    const std::string bin = dir_ + "/bin";
    std::filesystem::create_directories(bin);
    std::filesystem::create_symlink(kFixtureExe, bin + "/bench_a");
    std::filesystem::create_symlink(kFixtureExe, bin + "/bench_b");
    ASSERT_EQ(mdtune("bench run --bench-dir " + bin + " --filter 10000 --runs 3 --repetitions 2 --min-time 0.001 "
                     "--label A --quiet --db " + db_),
              0)
        << out_;
    // A1 B1 A2 B2 A3 B3: one process per suite and run.
    std::size_t at = 0;
    for (const std::string step : {"run 1/3: bench_a", "run 1/3: bench_b", "run 2/3: bench_a", "run 2/3: bench_b",
                                   "run 3/3: bench_a", "run 3/3: bench_b"}) {
        const std::size_t found = out_.find(step, at);
        ASSERT_NE(found, std::string::npos) << step << " after offset " << at << ":\n" << out_;
        at = found + 1;
    }
    EXPECT_NE(out_.find("stored 12 result(s) of 1 benchmark(s)"), std::string::npos) << out_;
    EXPECT_EQ(counts(), (std::pair<long, long>{6, 12}));
    // The default number of runs is enough for a comparison, whatever the machine's
    // noise: pass, fail or (noisy) inconclusive, never "no verdict".
    for (const std::string label : {"B", "C"}) {
        ASSERT_EQ(mdtune("bench run --bench-dir " + bin + " --suites bench_a --filter 10000 --min-time 0.001 --label " +
                         label + " --quiet --db " + db_),
                  0)
            << out_;
        EXPECT_NE(out_.find("7 run(s) x 3 repetition(s)"), std::string::npos) << out_;
    }
    const int rc = mdtune("bench compare --baseline B --candidate C --db " + db_);
    EXPECT_TRUE(rc == 0 || rc == 1 || rc == 3) << out_;
    EXPECT_NE(out_.find("7/7"), std::string::npos) << out_;
}

TEST_F(BenchCli, InstructionCountsRunOnTheDefaultBuild) {
    // The default build has AVX-512 kernels, which valgrind cannot execute: the
    // engine caps itself at AVX2 under callgrind and keeps AVX-512 code out of
    // everything that runs before the kernels are chosen.
    if (std::system("valgrind --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "valgrind not installed";
    if (kBenchUpdateExe.empty()) GTEST_SKIP() << "bench_update not built";
    const std::string bin = std::filesystem::path(kBenchUpdateExe).parent_path().string();
    const std::string out = dir_ + "/json";
    ASSERT_EQ(mdtune("bench run --metric instructions --bench-dir " + bin + " --suites bench_update --filter "
                     "'^BM_(LeapFrog/4000|Update/water/3000)/threads:1/real_time$' --label I --out " + out +
                     " --quiet --db " + db_),
              0)
        << out_;
    EXPECT_NE(out_.find("stored 2 result(s) of 2 benchmark(s)"), std::string::npos) << out_;
    const auto j = nlohmann::json::parse(mdtest::file_text(out + "/bench_update.instructions.json"));
    const std::string simd = j["context"].value("mdcore_simd_available", "");
    EXPECT_EQ(simd.find("avx512"), std::string::npos) << simd;
    for (const auto& b : j["benchmarks"])
        if (b["run_type"] == "iteration") EXPECT_GT(b["instructions"].get<double>(), 1e4) << b.dump();
}

}  // namespace
}  // namespace mdtune::bench
