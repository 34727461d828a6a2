// `mdtune bench` end to end: ingest, compare (exit codes and formats), history,
// run on a tiny suite, and bad input leaving the database as it was. Skipped when
// the mdtune executable has not been built.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <nlohmann/json.hpp>

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
#ifdef MDT_GBENCH_FIXTURE
const std::string kFixtureExe = MDT_GBENCH_FIXTURE;
#else
const std::string kFixtureExe;
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
        out_ = testing::read_file(log);
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

TEST_F(BenchCli, IngestCompareAndHistory) {
    const auto base = json_file("base.json", {{"BM_Kernel", kBase}, {"BM_Other", kBase}});
    const auto same = json_file("same.json", {{"BM_Kernel", scaled(1.001)}, {"BM_Other", kBase}});
    const auto slow = json_file("slow.json", {{"BM_Kernel", scaled(1.05)}, {"BM_Other", kBase}});
    ASSERT_EQ(mdtune("bench ingest " + base + " --label base --commit aaaa0000 --hardware hw --db " + db_), 0) << out_;
    EXPECT_NE(out_.find("stored 18 result(s) of 2 benchmark(s)"), std::string::npos) << out_;
    ASSERT_EQ(mdtune("bench ingest " + same + " --label same --commit bbbb0000 --hardware hw --db " + db_), 0) << out_;
    ASSERT_EQ(mdtune("bench ingest " + slow + " --label slow --commit cccc0000 --hardware hw --db " + db_), 0) << out_;

    EXPECT_EQ(mdtune("bench compare --baseline base --candidate same --db " + db_), 0) << out_;
    EXPECT_NE(out_.find("gate: pass"), std::string::npos) << out_;
    // Candidate defaults to the latest run; a commit prefix selects too.
    EXPECT_EQ(mdtune("bench compare --baseline aaaa --db " + db_), 1) << out_;
    EXPECT_NE(out_.find("BM_Kernel"), std::string::npos);
    EXPECT_NE(out_.find("regression"), std::string::npos);
    EXPECT_NE(out_.find("gate: FAIL"), std::string::npos);
    EXPECT_NE(out_.find("geometric mean"), std::string::npos);
    // ...but not beyond a 10 % threshold.
    EXPECT_EQ(mdtune("bench compare --baseline base --candidate slow --threshold 10% --db " + db_), 0) << out_;

    ASSERT_EQ(mdtune("bench compare --baseline base --candidate slow --format json --db " + db_), 1);
    const auto j = nlohmann::json::parse(out_);
    EXPECT_EQ(j["regressions"], 1);
    EXPECT_EQ(j["benchmarks"][0]["name"], "BM_Kernel");
    EXPECT_NEAR(j["benchmarks"][0]["change"].get<double>(), 0.05, 1e-9);
    ASSERT_EQ(mdtune("bench compare --baseline base --candidate slow --format markdown --db " + db_), 1);
    EXPECT_NE(out_.find("**regression**"), std::string::npos) << out_;

    ASSERT_EQ(mdtune("bench history BM_Kernel --db " + db_), 0) << out_;
    EXPECT_NE(out_.find("STEP: slower"), std::string::npos) << out_;
    EXPECT_NE(out_.find("cccc0000"), std::string::npos);
    ASSERT_EQ(mdtune("bench list --db " + db_), 0) << out_;
    EXPECT_NE(out_.find("3 real_time run(s)"), std::string::npos) << out_;
}

TEST_F(BenchCli, BadInputIsAClearErrorAndStoresNothing) {
    const auto base = json_file("base.json", {{"BM_Kernel", kBase}});
    ASSERT_EQ(mdtune("bench ingest " + base + " --label base --hardware hw --db " + db_), 0) << out_;
    const std::string full = testing::read_file(base);
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
    ASSERT_EQ(mdtune("bench run --bench-dir " + bin + " --repetitions 5 --min-time 0.001 --label A --commit "
                     "deadbeef00 --quiet --db " + db_),
              0)
        << out_;
    EXPECT_NE(out_.find("stored 10 result(s) of 2 benchmark(s)"), std::string::npos) << out_;
    ASSERT_EQ(mdtune("bench run --bench-dir " + bin + " --filter 20000 --repetitions 5 --min-time 0.001 --label B "
                     "--quiet --db " + db_),
              0)
        << out_;
    EXPECT_NE(out_.find("stored 5 result(s) of 1 benchmark(s)"), std::string::npos) << out_;
    // Whatever the machine's noise, the gate gives a verdict line for the common benchmark.
    const int rc = mdtune("bench compare --baseline A --candidate B --db " + db_);
    EXPECT_TRUE(rc == 0 || rc == 1) << out_;
    EXPECT_NE(out_.find("BM_Work/20000"), std::string::npos) << out_;
    EXPECT_NE(out_.find("only in baseline:  BM_Work/10000"), std::string::npos) << out_;
    EXPECT_EQ(mdtune("bench run --bench-dir " + bin + " --filter nomatch --db " + db_), 2) << out_;
    EXPECT_EQ(mdtune("bench run --bench-dir " + dir_ + "/empty --db " + db_), 2) << out_;
}

}  // namespace
}  // namespace mdtune::bench
