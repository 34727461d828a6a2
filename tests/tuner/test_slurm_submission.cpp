// The Slurm submission pieces that need no Slurm: batch scripts, --array ranges,
// job option checks, manifests and slice progress read from shards.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "mdtune/slurm/batch_script.h"
#include "mdtune/slurm/job_space.h"
#include "mdtune/slurm/submission.h"
#include "mdtune/db/store.h"
#include "mdtune/tuner/sweep.h"

namespace mdtune::slurm {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

slurm::ArrayScript array_script() {
    return slurm::ArrayScript{"mdtune-x", "/opt/md tune/mdtune", "/opt/mdcore", "/d/space.toml", "/d", "x", 3, 1, 1};
}

TEST(BatchScript, ArrayTaskSweepsItsSliceIntoItsShardUnderSrun) {
    slurm::JobOptions o;
    o.partition = "short";
    o.time = "00:10:00";
    o.account = "proj1";
    const std::string s = slurm::render_array_script(array_script(), o);
    EXPECT_TRUE(contains(s, "#SBATCH --exclusive\n")) << s;
    EXPECT_TRUE(contains(s, "#SBATCH --partition=short\n")) << s;
    EXPECT_TRUE(contains(s, "#SBATCH --time=00:10:00\n")) << s;
    EXPECT_TRUE(contains(s, "#SBATCH --account=proj1\n")) << s;
    EXPECT_TRUE(contains(s, "#SBATCH --output=/d/logs/task-%a.out\n")) << s;
    EXPECT_TRUE(contains(s, "exec '/opt/md tune/mdtune' sweep '/d/space.toml'")) << s;
    EXPECT_TRUE(contains(s, "--slice \"${SLURM_ARRAY_TASK_ID}/3\"")) << s;
    EXPECT_TRUE(contains(s, "--db '/d'\"/task-${SLURM_ARRAY_TASK_ID}.db\"")) << s;
    EXPECT_TRUE(contains(s, "#SBATCH --ntasks=1\n")) << s;
    // The sweep starts each trial with srun for that trial's ranks (tuner/launch.h), not one fixed launcher.
    EXPECT_FALSE(contains(s, "--launcher")) << s;
    o.sharing = slurm::NodeSharing::Shared;
    EXPECT_FALSE(contains(slurm::render_array_script(array_script(), o), "--exclusive"));
}

TEST(BatchScript, MergeJoinsOnlyTheShardsThatExist) {
    const std::string s = slurm::render_merge_script({"mdtune-merge-x", "/b/mdtune", "/w/main.db", "/w/main.db.shards/x"}, {});
    EXPECT_TRUE(contains(s, "shopt -s nullglob")) << s;
    EXPECT_TRUE(contains(s, "shards=('/w/main.db.shards/x'/task-*.db)")) << s;
    EXPECT_TRUE(contains(s, "exec '/b/mdtune' db merge '/w/main.db' \"${shards[@]}\"")) << s;
    EXPECT_FALSE(contains(s, "--exclusive")) << s;
}

TEST(BatchScript, ArrayRangesAndQuoting) {
    EXPECT_EQ(slurm::array_ranges({0, 1, 2}), "0-2");
    EXPECT_EQ(slurm::array_ranges({1, 4, 5, 7}), "1,4-5,7");
    EXPECT_EQ(slurm::array_ranges({3}), "3");
    EXPECT_EQ(slurm::shell_quote("it's"), "'it'\\''s'");
}

TEST(BatchScript, JobOptionsAreCheckedBeforeTheyReachAnSbatchLine) {
    slurm::JobOptions o;
    for (const char* t : {"10", "00:10:00", "1-00:00:00", "90:00", "2-12", "25:00:00", "1-23:59:59", "0:30"}) {
        o.time = t;
        EXPECT_NO_THROW(slurm::validate_job_options(o)) << t;
    }
    // 0 would be no limit at all; minutes and seconds stop at 59, hours after days at 23.
    for (const char* t : {"ten", "1:2:3:4", "00:10:00\n#SBATCH --x", "", "0", "00:00:00", "0-0", "25:61:61", "10:60",
                          "1-24", "1-1:60:00", "-5", "1:-1"}) {
        o.time = t;
        if (o.time.empty()) continue;
        EXPECT_THROW(slurm::validate_job_options(o), std::invalid_argument) << t;
    }
    o.time.clear();
    o.partition = "a b";
    try {
        slurm::validate_job_options(o);
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_TRUE(contains(e.what(), "--partition")) << e.what();
    }
}

TEST(BatchScript, SbatchValuesWithSpacesQuotesOrPercentSurviveSbatchsParser) {
    EXPECT_EQ(slurm::sbatch_value("/d/logs/task-%a.out"), "/d/logs/task-%a.out");
    // sbatch reads "..." as one word, with \" and \\ as a quote and a backslash.
    EXPECT_EQ(slurm::sbatch_value("/my runs/x"), "\"/my runs/x\"");
    EXPECT_EQ(slurm::sbatch_value("/a \"b\" it's\\c#d"), "\"/a \\\"b\\\" it's\\\\c#d\"");
    EXPECT_THROW(slurm::sbatch_value("/a\nb"), std::invalid_argument);
    // A '%' of the folder is literal in the --output pattern; the pattern's own stays.
    EXPECT_EQ(slurm::output_pattern_folder("/100% sure"), "/100%% sure");
    auto a = array_script();
    a.sweep_dir = "/w/my \"runs\"/x";
    a.job_name = "mdtune-my space";
    const std::string s = slurm::render_array_script(a, {});
    EXPECT_TRUE(contains(s, "#SBATCH --output=\"/w/my \\\"runs\\\"/x/logs/task-%a.out\"\n")) << s;
    EXPECT_TRUE(contains(s, "#SBATCH --job-name=\"mdtune-my space\"\n")) << s;
    const std::string m = slurm::render_merge_script({"m", "/b/mdtune", "/w/main.db", "/w/50%"}, {});
    EXPECT_TRUE(contains(m, "#SBATCH --output=/w/50%%/logs/merge-%j.out\n")) << m;
}

// A space in one folder naming its box relative to itself, as the array tasks get it.
TEST(JobSpace, SystemFilesBecomeAbsoluteAndKeepTheirDigests) {
    const fs::path dir = fs::temp_directory_path() / ("mdtune_job_space_" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "box");
    fs::create_directories(dir / "elsewhere");
    const std::string data = std::string(MDT_TEST_DATA_DIR) + "/gromacs/water-3nm/";
    fs::copy_file(data + "conf.gro", dir / "box/conf.gro");
    fs::copy_file(data + "topol.top", dir / "box/topol.top");
    const std::string text = "# my box\n[system]\ngro = \"box/conf.gro\"  # relative\ntop = 'box/topol.top'\n"
                             "[space]\nnstlist = [10, 20]\n";
    std::ofstream(dir / "space.toml") << text;
    const tuner::SearchSpace space = tuner::load_space((dir / "space.toml").string());
    const std::string jobs = slurm::space_text_for_jobs(space);
    const std::string abs_dir = fs::absolute(dir).lexically_normal().string();
    EXPECT_EQ(jobs, "# my box\n[system]\ngro = \"" + abs_dir + "/box/conf.gro\"  # relative\ntop = \"" + abs_dir +
                        "/box/topol.top\"\n[space]\nnstlist = [10, 20]\n");
    // Read from another folder, the copy names the same system.
    std::ofstream(dir / "elsewhere/space.toml") << jobs;
    const tuner::SearchSpace copy = tuner::load_space((dir / "elsewhere/space.toml").string());
    ASSERT_EQ(copy.systems.size(), 1u);
    EXPECT_EQ(copy.systems[0].canonical(), space.systems[0].canonical());
    const auto files = slurm::system_files(space);
    ASSERT_EQ(files.size(), 2u);
    EXPECT_EQ(files[0].key, "gro");
    EXPECT_EQ(files[0].path, abs_dir + "/box/conf.gro");
    EXPECT_EQ(files[0].digest.size(), 16u);
    EXPECT_NE(files[0].digest, files[1].digest);
    fs::remove_all(dir);
}

class Manifests : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("mdtune_manifest_" + std::to_string(getpid()));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    fs::path dir_;
};

TEST_F(Manifests, RoundTripAndBadFilesAreNamed) {
    const std::string main_db = (dir_ / "main.db").string();
    const fs::path folder = slurm::sweep_folder(main_db, "lj-0123");
    fs::create_directories(folder);
    slurm::SweepManifest m{"lj-0123", "lj.toml", "0123", 3, 2, {{"17", "18", {0, 2}, "2026-01-01T00:00:00.000Z"}}};
    slurm::save_manifest(folder, m);
    const auto all = slurm::all_manifests(main_db);
    ASSERT_EQ(all.size(), 1u);
    EXPECT_EQ(all[0].second.tasks, 3);
    EXPECT_EQ(all[0].second.submissions.at(0).slices, (std::vector<int>{0, 2}));
    EXPECT_EQ(all[0].second.submissions.at(0).merge_job, "18");
    std::ofstream(folder / "manifest.json") << "{\"key\": 1}";
    try {
        slurm::load_manifest(folder);
        FAIL();
    } catch (const std::runtime_error& e) {
        EXPECT_TRUE(contains(e.what(), "manifest.json")) << e.what();
    }
}

TEST_F(Manifests, SweepKeyFollowsTheSpaceText) {
    const tuner::SearchSpace a = tuner::parse_space("[system]\nkind = \"lj\"\nnatoms = 256\n", "dir/my space.toml");
    const tuner::SearchSpace b = tuner::parse_space("[system]\nkind = \"lj\"\nnatoms = 500\n", "dir/my space.toml");
    EXPECT_EQ(slurm::sweep_key(a).rfind("my_space-", 0), 0u) << slurm::sweep_key(a);
    EXPECT_NE(slurm::sweep_key(a), slurm::sweep_key(b));
    EXPECT_EQ(slurm::sweep_key(a), slurm::sweep_key(tuner::parse_space(a.text, "other/my space.toml")));
}

TEST_F(Manifests, SliceProgressCountsResultsOfAnyBuildButNotFailures) {
    const tuner::SearchSpace space = tuner::parse_space(
        "[system]\nkind = \"lj\"\nnatoms = 256\n[space]\nnstlist = [10, 20, 40, 80]\n[measure]\nsteps = 30\nwarmup = 10\n",
        "p.toml");
    HardwareCaps hw;
    hw.cores = 2;
    const fs::path shard = dir_ / "task-0.db";
    const auto points = tuner::slice_points(space, {0, 2});  // default, nstlist 20, 80
    ASSERT_EQ(points.size(), 3u);
    EXPECT_EQ(slurm::slice_progress(space, {0, 2}, shard, hw).present, 0u);  // no shard yet
    {
        db::Store store(shard.string());
        const TrialStatus statuses[] = {TrialStatus::Ok, TrialStatus::Invalid, TrialStatus::Failed};
        for (std::size_t k = 0; k < 3; ++k) {
            db::StoredTrial t;
            t.hardware_id = "hw-node";
            t.system = points[k].system;
            t.config = points[k].config;
            t.measure = points[k].measure;
            // The node keys trials by its own launcher and environment: any build id counts.
            t.build_id = "build-node-" + std::to_string(k);
            t.result.status = statuses[k];  // a failure is measured again on resubmission
            store.insert_trial(t);
        }
    }
    const slurm::SliceProgress p = slurm::slice_progress(space, {0, 2}, shard, hw);
    EXPECT_EQ(p.expected, 3u);
    EXPECT_EQ(p.present, 2u);
    EXPECT_FALSE(p.complete());
}

}  // namespace
}  // namespace mdtune::slurm
