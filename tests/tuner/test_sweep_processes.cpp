// mdtune sweep and its child processes: a hung mdcore dies with a SIGKILLed or
// SIGHUPed mdtune and the next sweep marks the dead one interrupted; a child
// flooding stdout fails its trial instead of mdtune; quoted launcher arguments
// reach the child whole; two sweeps over one space measure each trial once; the
// mdcore users run ignores the test fault hook; SIGTERM or SIGINT after two of three
// rounds keeps what the rounds measured and exits 128 + the signal.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include "../common/process_probe.h"
#include "../common/run_command.h"
#include "../common/temp_dir_test.h"
#include "mdtune/db/store.h"

namespace mdtune {
namespace {

namespace fs = std::filesystem;
using mdtest::ends_within;
using mdtest::run_command;

const std::string kMdtune = MDTUNE_BINARY, kMdcore = MDCORE_BINARY, kFaulty = MDCORE_FAULTY_BINARY;

std::string space_text(const std::string& nstlists, double timeout_s) {
    return "[system]\nkind = \"lj\"\nnatoms = [256]\n[space]\nnstlist = [" + nstlists +
           "]\nthreads = [1]\n[measure]\nsteps = 60\nwarmup = 10\nrepeats = 1\ntimeout_s = " +
           std::to_string(timeout_s) + "\n";
}

std::string read_text(const fs::path& p) {
    std::ifstream in(p);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<std::string> proc_words(long pid, const char* file) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/" + file);
    std::vector<std::string> words;
    for (std::string w; std::getline(in, w, file[0] == 'c' ? '\0' : ' ');) words.push_back(w);
    return words;
}

// The first child of `parent` whose command line holds `needle`, 0 if none.
long child_running(pid_t parent, const std::string& needle) {
    for (const auto& e : fs::directory_iterator("/proc")) {
        const std::string name = e.path().filename();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        const long pid = std::stol(name);
        const auto stat = proc_words(pid, "stat");
        // Field 4 is the parent (a command name with spaces would shift it; ours has none).
        if (stat.size() < 4 || stat[3] != std::to_string(parent)) continue;
        std::string cmd;
        for (const auto& w : proc_words(pid, "cmdline")) cmd += w + " ";
        if (cmd.find(needle) != std::string::npos) return pid;
    }
    return 0;
}

class SweepProcesses : public mdtest::TempDirTest {
protected:
    std::string db() const { return path("trials.db"); }
    std::string write(const std::string& name, const std::string& text, bool executable = false) {
        const fs::path p = dir_ / name;
        std::ofstream(p) << text;
        if (executable) fs::permissions(p, fs::perms::owner_all);
        return p.string();
    }

    // Starts a sweep whose nstlist-17 trial hangs, kills mdtune with `sig` while
    // that trial runs, and checks the hung mdcore goes with it.
    void kill_mid_hang(int sig) {
        const std::string space = write("hang.toml", space_text("17", 600));
        const pid_t mdtune = fork();
        ASSERT_GE(mdtune, 0);
        if (mdtune == 0) {
            setenv("MDCORE_TEST_FAULT", "hang:nstlist=17", 1);
            signal(SIGHUP, SIG_DFL);  // a test runner under nohup would pass its SIG_IGN on
            const int null = open("/dev/null", O_WRONLY);
            dup2(null, STDOUT_FILENO);
            execl(kMdtune.c_str(), kMdtune.c_str(), "sweep", space.c_str(), "--db", db().c_str(), "--mdcore",
                  kFaulty.c_str(), static_cast<char*>(nullptr));
            _exit(127);
        }
        long hung = 0;
        for (int k = 0; k < 1200 && !hung; ++k) {  // the baseline runs first
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            hung = child_running(mdtune, "--nstlist 17");
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(200));  // past fork, inside the hang
        kill(mdtune, sig);
        int status = 0;
        waitpid(mdtune, &status, 0);
        ASSERT_GT(hung, 0) << "never saw the hanging trial";
        EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig);
        EXPECT_TRUE(ends_within(hung, std::chrono::seconds(5))) << "mdcore " << hung << " outlived mdtune";
        kill(static_cast<pid_t>(hung), SIGKILL);  // never leave it behind
        const auto sweeps = db::Store(db(), db::Store::Mode::ReadOnly).sweeps();
        ASSERT_EQ(sweeps.size(), 1u);
        EXPECT_EQ(sweeps[0].status, "running");  // nobody could say otherwise yet
    }
};

TEST_F(SweepProcesses, SigkilledMdtuneTakesItsHungChildAndTheNextSweepMarksItInterrupted) {
    kill_mid_hang(SIGKILL);
    // The next sweep on the file (without the fault) sees the owner is gone.
    const auto r = run_command(kMdtune + " sweep " + (dir_ / "hang.toml").string() + " --db " + db() + " --mdcore " +
                               kMdcore);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("sweep 1 was left running by a process that is gone: marked interrupted"),
              std::string::npos)
        << r.output;
    const auto sweeps = db::Store(db(), db::Store::Mode::ReadOnly).sweeps();
    ASSERT_EQ(sweeps.size(), 2u);
    EXPECT_EQ(sweeps[0].status, "interrupted");
    EXPECT_FALSE(sweeps[0].finished_at.empty());
    EXPECT_EQ(sweeps[1].status, "done");
}

TEST_F(SweepProcesses, SighupedMdtuneTakesItsHungChild) { kill_mid_hang(SIGHUP); }

// A sweep of one config and the default in 3 rounds whose mdcore hangs from its
// fifth run on (the first of round 3); `sig` arrives during that run. The two
// trials are stored as interrupted with their two rounds; a resume measures them
// again, even with --no-retry-failed.
void stop_in_third_round(const std::string& dir, const std::string& db, int sig, int expected_exit) {
    const std::string count = dir + "/runs", hanging = dir + "/hanging";
    const std::string wrapper = dir + "/mdcore_wrapper.sh";
    std::ofstream(wrapper) << "#!/bin/sh\n[ \"$1\" = run ] || exec " << kMdcore << " \"$@\"\n"
                           << "n=$(($(cat " << count << " 2>/dev/null || echo 0) + 1)); echo $n > " << count << "\n"
                           << "if [ $n -gt 4 ]; then touch " << hanging << "; exec sleep 600; fi\nexec " << kMdcore
                           << " \"$@\"\n";
    fs::permissions(wrapper, fs::perms::owner_all);
    const std::string space = dir + "/rounds.toml";
    std::ofstream(space) << "[system]\nkind = \"lj\"\nnatoms = [256]\n[space]\nnstlist = [10]\nthreads = [1]\n"
                            "[measure]\nsteps = 60\nwarmup = 10\nrepeats = 3\ntimeout_s = 600\n";
    const pid_t mdtune = fork();
    ASSERT_GE(mdtune, 0);
    if (mdtune == 0) {
        const int null = open("/dev/null", O_WRONLY);
        dup2(null, STDOUT_FILENO);
        // --reruns 0: a starved repeat run again would shift which run hangs.
        execl(kMdtune.c_str(), kMdtune.c_str(), "sweep", space.c_str(), "--db", db.c_str(), "--mdcore",
              wrapper.c_str(), "--reruns", "0", static_cast<char*>(nullptr));
        _exit(127);
    }
    bool hung = false;
    for (int k = 0; k < 2400 && !hung; ++k) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        hung = fs::exists(hanging);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    kill(mdtune, sig);
    int status = 0;
    waitpid(mdtune, &status, 0);
    ASSERT_TRUE(hung) << "never reached round 3";
    ASSERT_TRUE(WIFEXITED(status)) << "mdtune died by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    EXPECT_EQ(WEXITSTATUS(status), expected_exit);
    {
        const db::Store store(db, db::Store::Mode::ReadOnly);
        const auto sweeps = store.sweeps();
        ASSERT_EQ(sweeps.size(), 1u);
        EXPECT_EQ(sweeps[0].status, "interrupted");
        const auto trials = store.trials();
        ASSERT_EQ(trials.size(), 2u);  // nstlist=10 and the default
        for (const db::StoredTrial& tr : trials) {
            EXPECT_EQ(tr.result.status, TrialStatus::Failed);
            EXPECT_TRUE(is_interrupted(tr.result));
            EXPECT_EQ(tr.result.stderr_tail, "interrupted after 2 of 3 round(s)");
            ASSERT_EQ(tr.result.samples.size(), 2u);  // rounds 1 and 2
            for (const RepeatSample& r : tr.result.samples) EXPECT_GT(r.ms_per_step, 0);
        }
    }
    const auto resumed =
        run_command(kMdtune + " sweep " + space + " --db " + db + " --mdcore " + kMdcore + " --no-retry-failed");
    ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
    const auto trials = db::Store(db, db::Store::Mode::ReadOnly).trials();
    ASSERT_EQ(trials.size(), 2u);
    for (const db::StoredTrial& tr : trials) {
        EXPECT_EQ(tr.result.status, TrialStatus::Ok) << tr.result.stderr_tail;
        EXPECT_EQ(tr.result.samples.size(), 3u);
    }
}

TEST_F(SweepProcesses, SigtermAfterTwoOfThreeRoundsKeepsTheRoundsAndExits143) {
    stop_in_third_round(dir_.string(), db(), SIGTERM, 143);
}

TEST_F(SweepProcesses, SigintAfterTwoOfThreeRoundsKeepsTheRoundsAndExits130) {
    stop_in_third_round(dir_.string(), db(), SIGINT, 130);
}

TEST_F(SweepProcesses, AChildFloodingStdoutFailsItsTrialNotMdtune) {
    // 20 MB on stdout, more than the 16 MiB mdtune keeps, then a normal exit.
    const std::string flood = write("flood.sh", "#!/bin/sh\nhead -c 20000000 /dev/zero\n", true);
    const auto r = run_command(kMdtune + " sweep " + write("s.toml", space_text("10", 60)) + " --db " + db() +
                               " --mdcore " + flood);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto trials = db::Store(db(), db::Store::Mode::ReadOnly).trials();
    ASSERT_EQ(trials.size(), 2u);  // the baseline and nstlist=10
    for (const db::StoredTrial& t : trials) {
        EXPECT_EQ(t.result.status, TrialStatus::Failed);
        EXPECT_NE(t.result.stderr_tail.find("stdout exceeded 16777216 bytes (20000000 read)"), std::string::npos)
            << t.result.stderr_tail;
    }
}

TEST_F(SweepProcesses, QuotedLauncherArgumentsReachTheChildWhole) {
    // The "launcher" records its arguments, drops its own three and runs mdcore.
    const fs::path args = dir_ / "args.txt";
    const std::string launcher =
        write("launch.sh", "#!/bin/sh\nprintf '%s\\n' \"$@\" > " + args.string() + "\nshift 3\nexec \"$@\"\n", true);
    const auto r = run_command(kMdtune + " sweep " + write("s.toml", space_text("10", 60)) + " --db " + db() +
                               " --mdcore " + kMdcore + " --launcher \"" + launcher + " 'a b' \\\"c\\\\\\\"d\\\"\"" +
                               " --launcher-arg '--x=y z'");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(read_text(args).substr(0, 15), "a b\nc\"d\n--x=y z") << read_text(args);
    for (const db::StoredTrial& t : db::Store(db(), db::Store::Mode::ReadOnly).trials()) EXPECT_EQ(t.result.status, TrialStatus::Ok);
}

TEST_F(SweepProcesses, AnUnbalancedLauncherQuoteIsAUsageError) {
    const auto r = run_command(kMdtune + " sweep " + write("s.toml", space_text("10", 60)) + " --db " + db() +
                               " --launcher \"mpirun -x 'A=b\"");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("--launcher: unbalanced ' quote at character 11"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(db()));
    const auto missing = run_command(kMdtune + " sweep " + (dir_ / "s.toml").string() + " --launcher-arg");
    EXPECT_EQ(missing.exit_code, 2) << missing.output;
    EXPECT_NE(missing.output.find("--launcher-arg needs a value"), std::string::npos) << missing.output;
}

// Two sweeps of one space at once: every trial measured by one of them, reused by the other.
TEST_F(SweepProcesses, ConcurrentSweepsOfOneSpaceMeasureEachTrialOnce) {
    const std::string space = write("same.toml", space_text("10, 11, 12, 14, 15", 60));
    const std::string sweep = kMdtune + " sweep " + space + " --db " + db() + " --mdcore " + kMdcore;
    const auto r = run_command(sweep + " > " + (dir_ / "a.out").string() + " & " + sweep + " > " +
                               (dir_ / "b.out").string() + " & wait");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    int measured = 0, reused = 0;
    const std::regex counts(R"(sweep \d+ done: (\d+) measured, (\d+) reused)");
    for (const char* out : {"a.out", "b.out"}) {
        const std::string text = read_text(dir_ / out);
        std::smatch m;
        ASSERT_TRUE(std::regex_search(text, m, counts)) << text;
        measured += std::stoi(m[1]);
        reused += std::stoi(m[2]);
    }
    EXPECT_EQ(measured, 6);  // baseline + 5 configs, each once
    EXPECT_EQ(reused, 6);
    EXPECT_EQ(db::Store(db(), db::Store::Mode::ReadOnly).trials().size(), 6u);
}

TEST_F(SweepProcesses, TheUsersMdcoreIgnoresTheTestFaultHook) {
    const std::string run = " run --system lj --natoms 256 --steps 10 --nstlist 13 --threads 1 --json -";
    const auto normal = run_command("MDCORE_TEST_FAULT=crash:nstlist=13 " + kMdcore + run);
    EXPECT_EQ(normal.exit_code, 0) << normal.output;
    EXPECT_NE(normal.output.find("ms_per_step"), std::string::npos) << normal.output;
    const auto faulty = run_command("MDCORE_TEST_FAULT=crash:nstlist=13 " + kFaulty + run);
    // Killed by SIGABRT: the shell popen runs reports 128 + 6, or it is -1 when it exec'd mdcore_faulty.
    EXPECT_TRUE(faulty.exit_code == -1 || faulty.exit_code == 128 + SIGABRT)
        << "the tests' mdcore_faulty should abort: " << faulty.exit_code << " " << faulty.output;
}

}  // namespace
}  // namespace mdtune
