// `mdtune sweep` guarding its size and its inputs, before it spends hours: an oversized
// exhaustive sweep is refused with its count and ETA, infeasible configs are
// reported by reason (exit 2 when nothing is left), a huge space sampled with a
// budget starts at once, and a rerun measures anew only what changed its key.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "../common/run_command.h"
#include "../common/temp_dir_test.h"
#include "mdtune/db/store.h"

namespace mdtune {
namespace {

namespace fs = std::filesystem;

mdtest::CommandResult run(const std::string& command_line) { return mdtest::run_command(command_line); }

class SweepCli : public mdtest::TempDirTest {
protected:
    std::string write(const std::string& name, const std::string& text) {
        std::ofstream(dir_ / name) << text;
        return path(name);
    }
    std::string db() const { return path("trials.db"); }
    std::string sweep(const std::string& space) const { return std::string(MDTUNE_BINARY) + " sweep " + space + " --db " + db(); }
};

std::string integers(long count) {
    std::string out = "[";
    for (long k = 1; k <= count; ++k) out += (k > 1 ? ", " : "") + std::to_string(k);
    return out + "]";
}

// 1000 x 1000 x 1000 = 10^9 configs (plus a dim that doubles it to 2 x 10^9).
std::string huge_space() {
    return "[system]\nkind = \"lj\"\nnatoms = [256]\n[space]\nnstlist = " + integers(1000) + "\nnstprune = " +
           integers(1000) + "\nthreads = " + integers(1000) + "\ncluster = [\"4x4\", \"1x1\"]\n" +
           "[measure]\nsteps = 60\nwarmup = 10\nrepeats = 3\ntimeout_s = 120\n";
}

const char* kTiny = "[system]\nkind = \"lj\"\nnatoms = [256]\n[space]\nnstlist = [10]\nthreads = [1]\n"
                    "[measure]\nsteps = 40\nwarmup = 10\nrepeats = 1\ntimeout_s = 60\n";

TEST_F(SweepCli, OversizedExhaustiveIsRefusedWithCountAndEta) {
    const std::string space = write("huge.toml", huge_space());
    const auto r = run(sweep(space));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("strategy exhaustive would run 2000000000 trials"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("limit of 100000"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("ETA up to"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("timeout_s 120 s x 3 repeats"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("--force"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(db())) << "a refused sweep must not create the database";
    const auto bad = run(sweep(space) + " --strategy best");  // a bad flag is named before any counting
    EXPECT_EQ(bad.exit_code, 2) << bad.output;
    EXPECT_NE(bad.output.find("--strategy: 'best'"), std::string::npos) << bad.output;
    // The limit is configurable, and halving without a budget is held to it too.
    const std::string small = write("small.toml", "[system]\nkind = \"lj\"\nnatoms = [256]\n[space]\nnstlist = [10, 20, 40]\n");
    const auto h = run(sweep(small) + " --max-configs 2 --strategy halving");
    EXPECT_EQ(h.exit_code, 2) << h.output;
    EXPECT_NE(h.output.find("strategy halving would run 3 trials"), std::string::npos) << h.output;
    EXPECT_EQ(run(sweep(small) + " --max-configs 0").exit_code, 2);
}

TEST_F(SweepCli, RandomSampleOfAHugeSpaceStartsAtOnce) {
    const std::string space = write("huge.toml", huge_space());
    // Every trial fails at once (the launcher is `false`), so only the set-up is timed by the test's budget.
    const auto r = run(sweep(space) + " --strategy random --budget 3 --launcher false");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("4 measured"), std::string::npos) << r.output;  // baseline + 3
    EXPECT_EQ(db::Store(db(), db::Store::Mode::ReadOnly).trials().size(), 4u);
}

TEST_F(SweepCli, InfeasibleConfigsAreReportedAndNothingFeasibleIsAnError) {
    const std::string none = write("none.toml", "[system]\nkind = \"lj\"\nnatoms = [256]\n[space]\nthreads = [4096]\n");
    auto r = run(sweep(none));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("nothing feasible"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("1 of 1 (system, config) points dropped"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("threads = 4096 exceeds the"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(db()));
    // Sampled, not counted: a space too large to check in full says it only sampled.
    std::string threads = "[";
    for (int t = 4096; t < 4096 + 1000; ++t) threads += (t > 4096 ? ", " : "") + std::to_string(t);
    const std::string rare = write("rare.toml", "[system]\nkind = \"lj\"\nnatoms = [256]\n[space]\nnstlist = " +
                                                    integers(1000) + "\nthreads = " + threads + "]\n");
    r = run(sweep(rare) + " --strategy random --budget 2");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("no feasible point found by sampling"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("100000 of 100000 (system, config) points checked so far"), std::string::npos) << r.output;
    const std::string some = write("some.toml", "[system]\nkind = \"lj\"\nnatoms = [256]\n[space]\nthreads = [1, 4096]\n"
                                                "[measure]\nsteps = 40\nwarmup = 10\nrepeats = 1\n");
    r = run(sweep(some) + " --launcher false");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("note: 1 of 2 (system, config) points dropped as infeasible on this machine: threads = 4096"),
              std::string::npos)
        << r.output;
}

TEST_F(SweepCli, RetryFlagsAndAMissingMdcore) {
    const std::string space = write("tiny.toml", kTiny);
    ASSERT_EQ(run(sweep(space) + " --launcher false").exit_code, 0);  // both trials fail
    auto r = run(sweep(space) + " --launcher false --no-retry-failed");
    EXPECT_NE(r.output.find("0 measured, 2 reused"), std::string::npos) << r.output;
    r = run(sweep(space) + " --launcher false");
    EXPECT_NE(r.output.find("2 measured, 0 reused"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("2 recorded failures measured again"), std::string::npos) << r.output;
    EXPECT_EQ(db::Store(db(), db::Store::Mode::ReadOnly).trials().size(), 2u);
    EXPECT_EQ(run(sweep(space) + " --retry-failed --no-retry-failed").exit_code, 2);
    r = run(sweep(space) + " --mdcore " + (dir_ / "no-such-mdcore").string());
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("no-such-mdcore' is not an executable file"), std::string::npos) << r.output;
}

TEST_F(SweepCli, ARerunMeasuresAnewOnlyWhatChangedTheKey) {
    const std::string space = write("tiny.toml", kTiny);
    const std::string mdcore = std::string(" --mdcore ") + MDCORE_BINARY;
    auto r = run(sweep(space) + mdcore);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("2 measured, 0 reused"), std::string::npos) << r.output;
    r = run(sweep(space) + mdcore);
    EXPECT_NE(r.output.find("0 measured, 2 reused"), std::string::npos) << r.output;
    r = run("OMP_WAIT_POLICY=passive " + sweep(space) + mdcore);
    EXPECT_NE(r.output.find("2 measured, 0 reused"), std::string::npos) << r.output;
    r = run(sweep(space) + mdcore + " --launcher env");
    EXPECT_NE(r.output.find("2 measured, 0 reused"), std::string::npos) << r.output;
    r = run(sweep(space) + mdcore);  // back to the first setting: all recorded
    EXPECT_NE(r.output.find("0 measured, 2 reused"), std::string::npos) << r.output;
    EXPECT_EQ(db::Store(db(), db::Store::Mode::ReadOnly).trials().size(), 6u);
}

// A protein's space with its .mdp: trials run as mdcore run --mdp runs it (the
// report says the time step came from the .mdp); --mdp on the command line takes
// the place of the space's; a refused .mdp is one line, exit 2, no database.
TEST_F(SweepCli, AProteinIsMeasuredWithItsMdp) {
    if (!fs::exists("/usr/share/gromacs/top/charmm27.ff"))
        GTEST_SKIP() << "/usr/share/gromacs/top/charmm27.ff is not installed (GROMACS' data)";
    const std::string data = std::string(MDT_TEST_DATA_DIR) + "/topologies/charmm27/";
    const std::string mdp = write("md.mdp", "integrator = md\ndt = 0.0015\nconstraints = h-bonds\n"
                                            "tcoupl = V-rescale\ntc-grps = System\ntau-t = 0.1\nref-t = 300\n");
    const std::string files = "[system]\ngro = \"" + data + "conf.gro\"\ntop = \"" + data + "topol.top\"\n";
    const std::string rest = "[space]\nnstlist = [10]\nthreads = [1]\n"
                             "[measure]\nsteps = 20\nwarmup = 5\nrepeats = 1\ntimeout_s = 120\n";
    const std::string mdcore = std::string(" --mdcore ") + MDCORE_BINARY;

    const std::string bad = write("bad.mdp", "dt = 0.002\nwarp-drive = yes\n");
    auto r = run(sweep(write("plain.toml", files + rest)) + mdcore + " --mdp " + bad);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(bad + ":2:"), std::string::npos) << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
    r = run(sweep(write("bad.toml", files + "mdp = \"bad.mdp\"\n" + rest)) + mdcore);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(bad + ":2:"), std::string::npos) << r.output;
    EXPECT_EQ(run(sweep(write("lj.toml", kTiny)) + mdcore + " --mdp " + mdp).exit_code, 2);
    EXPECT_FALSE(fs::exists(db())) << "a refused sweep must not create the database";

    r = run(sweep(write("protein.toml", files + "mdp = \"md.mdp\"\n" + rest)) + mdcore);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("2 measured, 0 reused"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("--mdp " + mdp), std::string::npos) << r.output;  // the "run it" line
    const auto trials = db::Store(db(), db::Store::Mode::ReadOnly).trials();
    ASSERT_EQ(trials.size(), 2u);
    for (const db::StoredTrial& t : trials) {
        EXPECT_EQ(t.system.mdp, mdp);
        ASSERT_TRUE(t.result.report) << t.result.stderr_tail;
        EXPECT_EQ(t.result.report->setting_sources.at("dt"), "mdp:" + mdp + ":2");
        EXPECT_EQ(t.result.report->setting_sources.at("constraints"), "mdp:" + mdp + ":3");
    }
    // The same box and .mdp from the command line: the same trials, recorded.
    r = run(sweep(path("plain.toml")) + mdcore + " --mdp " + mdp);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("0 measured, 2 reused"), std::string::npos) << r.output;
}

TEST_F(SweepCli, MdcoreReportsItsBuildId) {
    auto r = run(std::string(MDCORE_BINARY) + " --version --json");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("\"build_id\":\""), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("\"engine_version\""), std::string::npos) << r.output;
    EXPECT_EQ(run(std::string(MDCORE_BINARY) + " --version --bogus").exit_code, 2);
}

}  // namespace
}  // namespace mdtune
