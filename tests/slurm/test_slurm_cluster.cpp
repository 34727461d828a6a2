// mdtune on a real Slurm (scripts/slurm_local.sh, started by the ctest fixture):
// a job array of sweep slices, the merge job, status while it runs, a cancelled
// task resubmitted alone. Skipped when no Slurm could be started (not root, no
// munge/slurm-wlm packages).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <thread>

#include "../common/run_command.h"
#include "../common/shell_quote.h"
#include "../common/temp_dir_test.h"
#include "mdtune/db/mpi_store.h"
#include "mdtune/db/store.h"

namespace mdtune {
namespace {

namespace fs = std::filesystem;

mdtest::CommandResult run(const std::string& line) { return mdtest::run_command(line); }

std::string mdtune() { return MDTUNE_BINARY; }

bool slurm_up() {
    const char* conf = std::getenv("SLURM_CONF");
    if (!conf || !*conf || !fs::exists(conf)) return false;
    const auto r = run("sinfo -h -o %t");
    return r.exit_code == 0 && std::regex_search(r.output, std::regex("idle|mix|alloc"));
}

#define REQUIRE_SLURM()                                                                                        \
    if (!slurm_up())                                                                                           \
    GTEST_SKIP() << "no Slurm here: scripts/slurm_local.sh start (run by the slurm_start fixture) needs root " \
                    "and the munge and slurm-wlm packages (scripts/bootstrap.sh installs them)"

// Waits until none of the jobs is in the queue (the merge job runs after the array).
void wait_gone(const std::vector<std::string>& jobs, std::function<void()> while_waiting = {}) {
    std::string list;
    for (const auto& j : jobs) list += (list.empty() ? "" : ",") + j;
    for (int k = 0; k < 600; ++k) {  // generous: a loaded CI machine schedules slowly
        if (while_waiting) while_waiting();
        const auto q = run("squeue -h -j " + list + " -o %i");
        if (q.exit_code != 0 || q.output.find_first_not_of(" \n") == std::string::npos) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    FAIL() << "jobs " << list << " still queued after 120 s";
}

struct Submitted {
    std::string array, merge;
};

Submitted parse_submit(const std::string& out) {
    std::smatch m;
    if (!std::regex_search(out, m, std::regex(R"(submitted array job (\d+) \(tasks [^)]*\) and merge job (\d+))")))
        return {};
    return {m[1], m[2]};
}

// (system, config, status) of every trial: what must agree between a local
// sweep and the merged shards (times never do).
std::multiset<std::string> rows(const std::string& db) {
    std::multiset<std::string> out;
    const db::Store store(db, db::Store::Mode::ReadOnly);
    for (const auto& t : store.trials())
        out.insert(t.system.canonical() + "|" + t.config.canonical() + "|" + std::string(to_string(t.result.status)));
    return out;
}

class SlurmCluster : public mdtest::TempDirTest {
protected:
    SlurmCluster() { keep_on_failure_ = true; }  // the task logs tell why
    // Six configs of a tiny LJ box; with the default config 7 points.
    std::string space(const std::string& name, const std::string& nstlists) {
        return write(name, "[system]\nkind = \"lj\"\nnatoms = 256\n[space]\ncluster = [\"4x4\", \"1x1\"]\nnstlist = [" +
                               nstlists + "]\n[measure]\nsteps = 30\nwarmup = 10\nrepeats = 1\ntimeout_s = 60\n");
    }
    std::string db(const std::string& name) const { return path(name); }
};

TEST_F(SlurmCluster, ArrayOfThreeTasksMergesToTheRowsOfALocalSweep) {
    REQUIRE_SLURM();
    const std::string sp = space("six.toml", "10, 20, 40");
    const auto local = run(mdtune() + " sweep " + sp + " --db " + db("local.db"));
    ASSERT_EQ(local.exit_code, 0) << local.output;

    const auto sub = run(mdtune() + " submit " + sp + " --db " + db("main.db") + " --trials-per-task 3 --array-parallel 1");
    ASSERT_EQ(sub.exit_code, 0) << sub.output;
    EXPECT_NE(sub.output.find("7 point(s) in 3 slice(s)"), std::string::npos) << sub.output;
    const Submitted job = parse_submit(sub.output);
    ASSERT_FALSE(job.array.empty()) << sub.output;

    // Status while the array runs: the tasks and their states.
    bool saw_array = false;
    wait_gone({job.array, job.merge}, [&] {
        if (saw_array) return;
        const auto st = run(mdtune() + " status --db " + db("main.db"));
        saw_array = st.exit_code == 0 && std::regex_search(st.output, std::regex("task 0 .*(RUNNING|PENDING|COMPLETED)")) &&
                    std::regex_search(st.output, std::regex("(RUNNING|PENDING)"));
    });
    EXPECT_TRUE(saw_array);

    EXPECT_EQ(rows(db("main.db")), rows(db("local.db")));
    EXPECT_EQ(rows(db("main.db")).size(), 7u);
    const auto st = run(mdtune() + " status --db " + db("main.db"));
    EXPECT_NE(st.output.find("main database: 7/7"), std::string::npos) << st.output;
    // The fingerprint recorded inside the job names the node type.
    const db::Store store(db("main.db"), db::Store::Mode::ReadOnly);
    const auto trials = store.trials();
    ASSERT_FALSE(trials.empty());
    EXPECT_NE(store.hardware_json(trials[0].hardware_id).value_or("").find("\"node_type\""), std::string::npos);
}

using mdtest::sh_quoted;

// sbatch reads the quoted #SBATCH --output of a folder with a space and quotes,
// and the tasks find a box named relative to the space file from the sweep folder.
TEST_F(SlurmCluster, AFolderWithQuotesAndABoxRelativeToTheSpaceRunAsSubmitted) {
    REQUIRE_SLURM();
    const std::string data = std::string(MDT_TEST_DATA_DIR) + "/gromacs/water-3nm/";
    std::filesystem::create_directories(path("box"));
    std::filesystem::copy_file(data + "conf.gro", path("box/conf.gro"));
    std::filesystem::copy_file(data + "topol.top", path("box/topol.top"));
    const std::string sp = write("box.toml", "[system]\ngro = \"box/conf.gro\"\ntop = \"box/topol.top\"\n[space]\n"
                                             "nstlist = [10]\nthreads = [1]\n[measure]\nsteps = 20\nwarmup = 5\n"
                                             "repeats = 1\ntimeout_s = 120\n");
    const std::string folder = path("my \"runs\" it's");
    std::filesystem::create_directories(folder);
    const std::string main_db = folder + "/main.db";
    const auto sub = run("cd / && " + mdtune() + " submit " + sp + " --db " + sh_quoted(main_db));
    ASSERT_EQ(sub.exit_code, 0) << sub.output;
    const Submitted job = parse_submit(sub.output);
    ASSERT_FALSE(job.array.empty()) << sub.output;
    wait_gone({job.array, job.merge});
    const auto trials = db::Store(main_db, db::Store::Mode::ReadOnly).trials();
    ASSERT_EQ(trials.size(), 2u);  // the default and nstlist=10
    for (const auto& t : trials) EXPECT_EQ(t.result.status, TrialStatus::Ok) << t.result.stderr_tail;
    bool logged = false;
    for (const auto& e : std::filesystem::recursive_directory_iterator(main_db + ".shards"))
        logged |= e.path().filename() == "task-0.out";
    EXPECT_TRUE(logged) << "no task log in the quoted folder";
}

TEST_F(SlurmCluster, CancelledTaskIsTheOnlyOneSubmittedAgain) {
    REQUIRE_SLURM();
    const std::string sp = space("cancel.toml", "10, 25, 50");
    const std::string main = db("main.db");
    const auto first = run(mdtune() + " submit " + sp + " --db " + main + " --trials-per-task 3 --array-parallel 1");
    ASSERT_EQ(first.exit_code, 0) << first.output;
    const Submitted a = parse_submit(first.output);
    ASSERT_FALSE(a.array.empty()) << first.output;
    ASSERT_EQ(run("scancel " + a.array + "_1").exit_code, 0);
    wait_gone({a.array, a.merge});
    const std::size_t merged_before = rows(main).size();
    EXPECT_LT(merged_before, 7u);  // slice 1 (up to 2 points) is missing
    EXPECT_GE(merged_before, 5u);

    // The cancelled task's shard: absent when it never started, partial otherwise.
    fs::path folder;
    for (const auto& e : fs::directory_iterator(main + ".shards")) folder = e.path();
    const fs::path shard1 = folder / "task-1.db";
    const std::size_t in_shard1 = fs::exists(shard1) ? rows(shard1.string()).size() : 0;

    const auto again = run(mdtune() + " submit " + sp + " --db " + main);
    ASSERT_EQ(again.exit_code, 0) << again.output;
    EXPECT_NE(again.output.find("2 complete, 0 queued or running, 1 to submit"), std::string::npos) << again.output;
    const Submitted b = parse_submit(again.output);
    ASSERT_FALSE(b.array.empty()) << again.output;
    EXPECT_NE(again.output.find("(tasks 1)"), std::string::npos) << again.output;
    wait_gone({b.array, b.merge});
    const auto merged = rows(main);
    EXPECT_EQ(merged.size(), 7u);
    EXPECT_EQ(std::set<std::string>(merged.begin(), merged.end()).size(), 7u);  // nothing twice
    // The rerun measured only slice 1's missing points (slice 1 of 3 holds points 1 and 4).
    std::ifstream log(folder / "logs" / "task-1.out");
    const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find(std::to_string(2 - in_shard1) + " measured, " + std::to_string(in_shard1) + " reused"),
              std::string::npos)
        << text;
    const auto done = run(mdtune() + " submit " + sp + " --db " + main);
    EXPECT_NE(done.output.find("nothing to submit"), std::string::npos) << done.output;
}

TEST_F(SlurmCluster, TwoRankMpiBenchmarkRunsThroughSrun) {
    REQUIRE_SLURM();
#ifndef MDT_HAVE_MPI_COLLECTIVES
    GTEST_SKIP() << "mpi_collectives was not built (no MPI found at configure time)";
#endif
    const auto sub = run(mdtune() + " submit --mpi --ranks 2 --db " + db("mpi.db") +
                         " -- --quick --collectives allreduce --sizes 8 --timeout 60");
    ASSERT_EQ(sub.exit_code, 0) << sub.output;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(sub.output, m, std::regex(R"(submitted MPI job (\d+))"))) << sub.output;
    const std::string job = m[1];
    wait_gone({job});
    std::ifstream log(fs::path(db("mpi.db") + ".shards") / "mpi" / "logs" / ("mpi-" + job + ".out"));
    const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("2 ranks, allreduce"), std::string::npos) << text;
    EXPECT_NE(text.find(", srun, db"), std::string::npos) << text;
    db::Store store(db("mpi.db"), db::Store::Mode::ReadOnly);
    std::size_t ok_two_rank = 0;
    for (const auto& r : db::MpiStore(store).measurements())
        if (r.ranks == 2 && r.status == "ok") ++ok_two_rank;
    EXPECT_GT(ok_two_rank, 0u) << text;
}

}  // namespace
}  // namespace mdtune
