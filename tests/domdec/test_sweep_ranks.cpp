// The tuner launches a config's ranks: `mdtune sweep` over [space] ranks = [1, 2]
// starts the 2-rank trials under mpirun (tuner/launch.h), mdcore checks that it got
// them (--ranks), and the stored report says which layout ran. Skipped without MPI.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include "../common/run_command.h"
#include "../common/temp_dir_test.h"
#include "mdtune/db/store.h"

namespace mdtune {
namespace {

#ifdef MDT_MPIRUN
constexpr const char* kMpirun = MDT_MPIRUN;
#else
constexpr const char* kMpirun = nullptr;
#endif

class SweepRanks : public mdtest::TempDirTest {
protected:
    void SetUp() override {
        mdtest::TempDirTest::SetUp();
        if (!kMpirun || !std::filesystem::exists(kMpirun)) GTEST_SKIP() << "no MPI or mpirun";
        // The tuner finds mpirun on PATH, as a user's shell would.
        const std::string dir = std::filesystem::path(kMpirun).parent_path().string();
        setenv("PATH", (dir + ":" + std::getenv("PATH")).c_str(), 1);
    }
    std::string sweep(const std::string& space) const {
        return std::string(MDTUNE_BINARY) + " sweep " + space + " --db " + path("t.db") + " --mdcore " + MDCORE_BINARY;
    }
};

TEST_F(SweepRanks, TwoRankTrialsRunUnderMpirunAndAreKeyedByTheirRanks) {
    const std::string space = write("ranks.toml",
                                    "[system]\nkind = \"water\"\nnatoms = 3000\n"
                                    "[space]\nranks = [1, 2]\nthreads = 1\nnpme = 0\n"
                                    "[measure]\nsteps = 30\nwarmup = 10\nrepeats = 1\n"
                                    "[launch]\noversubscribe = true\n");
    const mdtest::CommandResult r = mdtest::run_command(sweep(space));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::map<long, mdcore::RunReport> by_ranks;
    for (const db::StoredTrial& t : db::Store(path("t.db"), db::Store::Mode::ReadOnly).trials()) {
        if (t.config.canonical().empty()) continue;  // the default baseline: one rank
        // Ran to the end (a 30-step run may be judged invalid by its drift fit; the launch is what counts here).
        ASSERT_TRUE(t.result.status == TrialStatus::Ok || t.result.status == TrialStatus::Invalid)
            << t.config.canonical() << "\n" << t.result.stderr_tail;
        ASSERT_TRUE(t.result.report);
        by_ranks[*t.config.value<long>(Param::Ranks)] = *t.result.report;
    }
    ASSERT_EQ(by_ranks.size(), 2u) << r.output;
    EXPECT_EQ(by_ranks[1].config.ranks, 1);
    EXPECT_EQ(by_ranks[2].config.ranks, 2);
    EXPECT_EQ(by_ranks[2].config.dd[0] * by_ranks[2].config.dd[1] * by_ranks[2].config.dd[2], 2);
    EXPECT_EQ(by_ranks[2].config.npme, 0);
    EXPECT_EQ(by_ranks[2].parallel.atoms.size(), 2u);
}

// A fixed --launcher replaces the policy: a 2-rank config started as one process is
// refused by mdcore's --ranks check, so it fails instead of being stored as 2 ranks.
TEST_F(SweepRanks, ALauncherThatStartsOtherRanksFailsTheTrial) {
    const std::string space = write("two.toml",
                                    "[system]\nkind = \"lj\"\nnatoms = 2000\n"
                                    "[space]\nranks = 2\nthreads = 1\n"
                                    "[measure]\nsteps = 20\nwarmup = 5\nrepeats = 1\n");
    const mdtest::CommandResult r = mdtest::run_command(sweep(space) + " --launcher env");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    bool seen = false;
    for (const db::StoredTrial& t : db::Store(path("t.db"), db::Store::Mode::ReadOnly).trials()) {
        if (t.config.canonical().empty()) continue;
        seen = true;
        EXPECT_EQ(t.result.status, TrialStatus::Failed);
        EXPECT_NE(t.result.stderr_tail.find("--ranks 2: this run has 1 MPI rank(s)"), std::string::npos)
            << t.result.stderr_tail;
    }
    EXPECT_TRUE(seen) << r.output;
}

}  // namespace
}  // namespace mdtune
