// `mdtune submit`, `status` and `sweep --slice` as users meet them without a
// cluster: bad input is refused with the flag or key named (exit 2), a missing
// sbatch is a runtime error (exit 1) that writes nothing, --dry-run shows the
// scripts and submits nothing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "../common/run_command.h"
#include "../common/shell_quote.h"
#include "../common/temp_dir_test.h"

namespace {

namespace fs = std::filesystem;

mdtest::CommandResult run(const std::string& line) { return mdtest::run_command(line); }

bool has(const mdtest::CommandResult& r, const std::string& text) { return r.output.find(text) != std::string::npos; }

class SubmitCli : public mdtest::TempDirTest {
protected:
    void SetUp() override {
        TempDirTest::SetUp();
        space_ = write("six.toml", "[system]\nkind = \"lj\"\nnatoms = 256\n[space]\ncluster = [\"4x4\", \"1x1\"]\n"
                                   "nstlist = [10, 20, 40]\n[measure]\nsteps = 30\nwarmup = 10\nrepeats = 1\n");
    }
    std::string submit(const std::string& rest) const {
        return std::string(MDTUNE_BINARY) + " submit " + space_ + " --db " + db() + " " + rest;
    }
    std::string db() const { return path("main.db"); }
    std::string space_;
};

TEST_F(SubmitCli, BadFlagsAndSpacesExitTwoNamingTheProblem) {
    auto r = run(submit("--exclusive --shared --dry-run"));
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_TRUE(has(r, "--exclusive and --shared")) << r.output;
    r = run(submit("--time soon --dry-run"));
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_TRUE(has(r, "--time: 'soon'")) << r.output;
    r = run(submit("--trials-per-task 0 --dry-run"));
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_TRUE(has(r, "--trials-per-task")) << r.output;
    const std::string ranks = write("ranks.toml", "[system]\nkind = \"lj\"\nnatoms = 256\n[launch]\nranks = 2\n");
    r = run(std::string(MDTUNE_BINARY) + " submit " + ranks + " --dry-run");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_TRUE(has(r, "sweep them in [space]")) << r.output;
    r = run(std::string(MDTUNE_BINARY) + " submit --mpi --ranks 2 --nodes 3 --dry-run");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_TRUE(has(r, "--nodes 3 exceeds --ranks 2")) << r.output;
    r = run(std::string(MDTUNE_BINARY) + " submit --mpi --dry-run -- --db other.db");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_TRUE(has(r, "--db is set by submit")) << r.output;
    EXPECT_FALSE(fs::exists(db() + ".shards"));
}

TEST_F(SubmitCli, DryRunShowsTheArrayAndMergeScriptsAndWritesNothing) {
    const auto r = run(submit("--dry-run --partition short --array-parallel 2"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(has(r, "7 point(s) in 7 slice(s)")) << r.output;
    EXPECT_TRUE(has(r, "#SBATCH --exclusive")) << r.output;
    EXPECT_TRUE(has(r, "#SBATCH --partition=short")) << r.output;
    EXPECT_TRUE(has(r, "--slice \"${SLURM_ARRAY_TASK_ID}/7\"")) << r.output;
    EXPECT_TRUE(has(r, "sbatch --parsable --array=0-6%2 ")) << r.output;
    EXPECT_TRUE(has(r, "--dependency=afterany:")) << r.output;
    EXPECT_TRUE(has(r, " db merge ")) << r.output;
    EXPECT_FALSE(fs::exists(db()));
    EXPECT_FALSE(fs::exists(db() + ".shards"));
}

TEST_F(SubmitCli, WithoutSbatchItFailsBeforeWritingAnything) {
    const auto r = run("env PATH=/nonexistent " + submit(""));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(has(r, "sbatch not found")) << r.output;
    EXPECT_FALSE(fs::exists(db()));
    EXPECT_FALSE(fs::exists(db() + ".shards"));
}

using mdtest::sh_quoted;

TEST_F(SubmitCli, DryRunQuotesAnOutputFolderWithASpaceAndQuotes) {
    const std::string folder = path("my \"runs\" it's");
    fs::create_directories(folder);
    const auto r = run(std::string(MDTUNE_BINARY) + " submit " + space_ + " --db " + sh_quoted(folder + "/main.db") +
                       " --dry-run");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    // sbatch reads "..." as one word, \" as a quote: the folder exactly.
    const std::string escaped = path("my \\\"runs\\\" it's");
    EXPECT_TRUE(has(r, "#SBATCH --output=\"" + escaped + "/main.db.shards/six-")) << r.output;
    EXPECT_TRUE(has(r, "/logs/task-%a.out\"\n")) << r.output;
    EXPECT_TRUE(has(r, "/logs/merge-%j.out\"\n")) << r.output;
    EXPECT_FALSE(fs::exists(folder + "/main.db.shards"));
}

TEST_F(SubmitCli, SystemFilesRelativeToTheSpaceAreResolvedAndCheckedAtSubmit) {
    const std::string data = std::string(MDT_TEST_DATA_DIR) + "/gromacs/water-3nm/";
    fs::create_directories(path("box"));
    fs::copy_file(data + "conf.gro", path("box/conf.gro"));
    fs::copy_file(data + "topol.top", path("box/topol.top"));
    const std::string box = write("box.toml", "[system]\ngro = \"box/conf.gro\"\ntop = \"box/topol.top\"\n"
                                              "[space]\nnstlist = [10, 20]\n");
    // From another folder: the paths are the space file's, made absolute here.
    auto r = run("cd / && " + std::string(MDTUNE_BINARY) + " submit " + box + " --db " + db() + " --dry-run");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(has(r, "[system] gro = " + path("box/conf.gro") + " (digest ")) << r.output;
    EXPECT_TRUE(has(r, "[system] top = " + path("box/topol.top") + " (digest ")) << r.output;
    // A file missing on the login node is refused there, named.
    const std::string missing = write("missing.toml", "[system]\ngro = \"nowhere/conf.gro\"\ntop = \"box/topol.top\"\n"
                                                      "[space]\nnstlist = [10]\n");
    r = run(std::string(MDTUNE_BINARY) + " submit " + missing + " --db " + db() + " --dry-run");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(has(r, "nowhere/conf.gro")) << r.output;
    EXPECT_FALSE(fs::exists(db() + ".shards"));
}

TEST_F(SubmitCli, AMissingSlurmConfFailsAtOnceInOneLine) {
    // Every Slurm command would retry reading it for 60 s, silent.
    for (const std::string& args : {space_ + " --db " + db(), "--mpi --db " + db(), space_ + " --db " + db() + " --dry-run"}) {
        const auto r = run("env SLURM_CONF=/nonexistent " + std::string(MDTUNE_BINARY) + " submit " + args);
        EXPECT_EQ(r.exit_code, 2) << args << ": " << r.output;
        EXPECT_TRUE(has(r, "SLURM_CONF=/nonexistent: no such file")) << r.output;
        EXPECT_FALSE(has(r, "retrying")) << r.output;  // no Slurm command ran
        EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
    }
    EXPECT_FALSE(fs::exists(db()));
    EXPECT_FALSE(fs::exists(db() + ".shards"));
}

TEST_F(SubmitCli, StatusWithoutSubmissionsAndWithABrokenManifest) {
    auto r = run(std::string(MDTUNE_BINARY) + " status --db " + db());
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(has(r, "no submitted sweeps")) << r.output;
    fs::create_directories(db() + ".shards/x-1");
    std::ofstream(db() + ".shards/x-1/manifest.json") << "{ not json";
    r = run(std::string(MDTUNE_BINARY) + " status --db " + db());
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(has(r, "manifest.json: not an mdtune submission manifest")) << r.output;
}

TEST_F(SubmitCli, SweepSliceIsCheckedAndRefusedForHalving) {
    auto r = run(std::string(MDTUNE_BINARY) + " sweep " + space_ + " --db " + db() + " --slice 3/3");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_TRUE(has(r, "--slice: '3/3': i must be 0 to 2")) << r.output;
    r = run(std::string(MDTUNE_BINARY) + " sweep " + space_ + " --db " + db() + " --slice 0/2 --strategy halving");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_TRUE(has(r, "--slice works with --strategy exhaustive or random")) << r.output;
    EXPECT_FALSE(fs::exists(db()));
}

}  // namespace
