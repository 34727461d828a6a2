// mdtune as users run it: sweeps survive SIGKILL, crashing and hanging configs
// are recorded, concurrent sweeps share one database, bad spaces are rejected.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "mdtune/db/store.h"
#include "../common/run_command.h"
#include "../common/temp_dir_test.h"

namespace mdtune {
namespace {

namespace fs = std::filesystem;

using Result = mdtest::CommandResult;

Result run(const std::string& command_line) { return mdtest::run_command(command_line); }

class MdtuneCli : public mdtest::TempDirTest {
protected:
    std::string db() const { return path("trials.db"); }
};

std::string small_space(const std::string& nstlists, int natoms = 256, double timeout = 60) {
    return "[system]\nkind = \"lj\"\nnatoms = [" + std::to_string(natoms) +
           "]\n[space]\nnstlist = [" + nstlists + "]\nthreads = [1]\n[measure]\nsteps = 60\nwarmup = 10\nrepeats = 1\ntimeout_s = " +
           std::to_string(timeout) + "\n";
}

TEST_F(MdtuneCli, CrashAndHangAreRecordedAndTheSweepContinues) {
    const std::string space = write("faults.toml", small_space("10, 13, 17, 20", 256, 3));
    // nstlist 13 aborts, 17 hangs: the hang must be stopped by the 3 s timeout. Only the
    // tests' mdcore_faulty obeys MDCORE_TEST_FAULT.
    const Result r = run("MDCORE_TEST_FAULT=crash:nstlist=13,hang:nstlist=17 " + std::string(MDTUNE_BINARY) +
                         " sweep " + space + " --db " + db() + " --mdcore " + MDCORE_FAULTY_BINARY);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const db::Store store(db(), db::Store::Mode::ReadOnly);
    std::map<long, TrialStatus> by_nstlist;
    for (const auto& t : store.trials())
        if (const auto* v = t.config.get(Param::Nstlist)) by_nstlist[std::get<long>(*v)] = t.result.status;
    EXPECT_EQ(by_nstlist[13], TrialStatus::Crashed);
    EXPECT_EQ(by_nstlist[17], TrialStatus::Timeout);
    EXPECT_EQ(by_nstlist[10], TrialStatus::Ok);
    EXPECT_EQ(by_nstlist[20], TrialStatus::Ok);
    for (const auto& t : store.trials())
        if (t.result.status == TrialStatus::Crashed) EXPECT_NE(t.result.stderr_tail.find("signal"), std::string::npos);
}

TEST_F(MdtuneCli, SigkillMidSweepThenRerunLosesAndDuplicatesNothing) {
    const std::string space = write("kill.toml", small_space("5, 6, 7, 8, 9, 10, 11, 12, 14, 15", 500));
    const pid_t pid = fork();
    if (pid == 0) {
        execl(MDTUNE_BINARY, MDTUNE_BINARY, "sweep", space.c_str(), "--db", db().c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    // Wait until a few trials are committed, then kill -9.
    std::size_t before = 0;
    for (int k = 0; k < 600 && before < 3; ++k) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        try {
            before = db::Store(db(), db::Store::Mode::ReadOnly).trials().size();
        } catch (const db::DbError&) {
        }
    }
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "sweep finished before it could be killed";
    const std::size_t survived = db::Store(db(), db::Store::Mode::ReadOnly).trials().size();
    ASSERT_GE(survived, before);
    const Result r = run(std::string(MDTUNE_BINARY) + " sweep " + space + " --db " + db());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find(std::to_string(survived) + " reused"), std::string::npos) << r.output;
    const auto trials = db::Store(db(), db::Store::Mode::ReadOnly).trials();
    EXPECT_EQ(trials.size(), 11u);  // baseline + 10 configs, each once
    std::set<std::string> keys;
    for (const auto& t : trials) keys.insert(t.key().str());
    EXPECT_EQ(keys.size(), trials.size());
}

TEST_F(MdtuneCli, TwoConcurrentSweepsLoseNoRows) {
    const std::string a = write("a.toml", small_space("10, 11, 12, 14", 256));
    const std::string b = write("b.toml", small_space("15, 16, 18, 19", 300));
    const Result r = run(std::string(MDTUNE_BINARY) + " sweep " + a + " --db " + db() + " > /dev/null & " +
                         MDTUNE_BINARY + " sweep " + b + " --db " + db() + " > /dev/null & wait");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(db::Store(db(), db::Store::Mode::ReadOnly).trials().size(), 10u);
}

TEST_F(MdtuneCli, BadSpacesAreRejectedWithTheKey) {
    const std::string unknown = write("unknown.toml", "[system]\nkind = \"lj\"\nnatoms = [256]\n[space]\nnstlistt = [10]\n");
    Result r = run(std::string(MDTUNE_BINARY) + " sweep " + unknown + " --db " + db());
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("nstlistt"), std::string::npos) << r.output;
    const std::string malformed = write("bad.toml", "[system\nkind = lj\n");
    r = run(std::string(MDTUNE_BINARY) + " sweep " + malformed + " --db " + db());
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("bad.toml"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(db())) << "a rejected space must not create the database";
}

TEST_F(MdtuneCli, ShowAndExport) {
    const std::string space = write("s.toml", small_space("10, 20", 256));
    ASSERT_EQ(run(std::string(MDTUNE_BINARY) + " sweep " + space + " --db " + db()).exit_code, 0);
    Result r = run(std::string(MDTUNE_BINARY) + " show --db " + db());
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("nstlist=10"), std::string::npos) << r.output;
    r = run(std::string(MDTUNE_BINARY) + " db export --db " + db() + " --format csv");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 4) << r.output;  // header + 3 trials
    r = run(std::string(MDTUNE_BINARY) + " db export --db " + path("missing.db"));
    EXPECT_NE(r.exit_code, 0);
    EXPECT_FALSE(fs::exists(dir_ / "missing.db"));
}

TEST_F(MdtuneCli, RoundsRecordEveryRepeatAndShowMarksTheVerdict) {
    const std::string space = write("r.toml", small_space("10, 20", 256));
    const std::string sweep = std::string(MDTUNE_BINARY) + " sweep " + space + " --db " + db();
    Result r = run(sweep + " --rounds 0");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("--rounds"), std::string::npos) << r.output;
    r = run(sweep + " --confidence 1.5");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("--confidence"), std::string::npos) << r.output;
    r = run(sweep + " --min-cpu-share 0");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("--min-cpu-share"), std::string::npos) << r.output;
    r = run(sweep + " --reruns 11");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("--reruns"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(db()));

    r = run(sweep + " --rounds 3");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("round 3/3 of lj:natoms=256:seed=1 done"), std::string::npos) << r.output;
    const auto trials = db::Store(db(), db::Store::Mode::ReadOnly).trials();
    // A loaded machine may starve every run (the guard rail): then there is no best to mark.
    const bool starved = std::all_of(trials.begin(), trials.end(), [](const auto& t) { return is_noisy(t.result); });
    EXPECT_NE(r.output.find(starved ? "  noisy     all" : "  verdict   "), std::string::npos) << r.output;
    ASSERT_EQ(trials.size(), 3u);  // the default + 2 configs
    // A round whose default (the reference, empty config) was starved gives no
    // reference time to anyone in it; every other round gives one to all.
    std::set<int> starved_reference_rounds;
    for (const auto& t : trials)
        if (t.config.canonical().empty())
            for (const RepeatSample& s : t.result.samples)
                if (s.noisy) starved_reference_rounds.insert(s.round);
    for (const auto& t : trials) {
        EXPECT_EQ(t.measure.repeats, 3);
        ASSERT_EQ(t.result.samples.size(), 3u) << t.config.canonical();
        for (const RepeatSample& s : t.result.samples) {
            EXPECT_GT(s.ms_per_step, 0);
            if (starved_reference_rounds.count(s.round))
                EXPECT_EQ(s.ref_ms_per_step, 0) << "round " << s.round;
            else
                EXPECT_GT(s.ref_ms_per_step, 0) << "round " << s.round;
            EXPECT_GT(s.wall_s, 0);
            EXPECT_GT(s.cpu_s, 0);  // getrusage of the child
            EXPECT_GE(s.threads, 1);
        }
    }
    r = run(std::string(MDTUNE_BINARY) + " show --db " + db());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("vs default"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(starved ? " noisy " : "  verdict: "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(starved ? " noisy " : " best "), std::string::npos) << r.output;
    r = run(std::string(MDTUNE_BINARY) + " show --db " + db() + " --json");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find(starved ? "\"mark\": \"noisy\"" : "\"mark\": \"best\""), std::string::npos) << r.output;
    if (starved_reference_rounds.size() < 3u)  // some round has ratios
        EXPECT_NE(r.output.find("\"ratio_to_default\""), std::string::npos) << r.output;
}

// A sweep of one round, recorded directly: the default (ratio 1) and two configs
// whose ms/step order differs from their ratio order.
void store_one_round_sweep(const std::string& db) {
    db::Store store(db);
    const long sweep = store.create_sweep("one-round", "", "exhaustive");
    const auto trial = [&](long nstlist, double ms, double ratio) {
        db::StoredTrial t;
        t.sweep_id = sweep;
        t.hardware_id = "hw";
        t.system = SystemDescriptor{mdcore::SystemKind::Lj, 256, 1};
        if (nstlist > 0) t.config.set(Param::Nstlist, nstlist);
        t.build_id = "b";
        t.measure = MeasureSettings{60, 10, 1, 60.0};
        t.result.status = TrialStatus::Ok;
        t.result.repeats = 1;
        t.result.ms_median = t.result.ms_min = t.result.ms_max = ms;
        t.result.ns_per_day = 1;
        RepeatSample r;
        r.ms_per_step = ratio;
        r.ref_ms_per_step = 1.0;
        r.wall_s = r.measured_s = 1;
        r.cpu_s = 1;
        r.threads = 1;
        t.result.samples = {r};
        store.insert_trial(t);
    };
    trial(0, 1.0, 1.0);
    trial(20, 1.5, 0.8);
    trial(40, 0.9, 0.9);
    store.finish_sweep(sweep, "done");
}

TEST_F(MdtuneCli, ShowFromOneRoundGivesNoIntervalAndRanksByTheColumnItShowsFirst) {
    store_one_round_sweep(db());
    const Result r = run(std::string(MDTUNE_BINARY) + " show --db " + db());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    // Ranked by the ratio to the default: that column comes before ms/step.
    const auto ranked_by = r.output.find("vs default (ranked by)");
    ASSERT_NE(ranked_by, std::string::npos) << r.output;
    EXPECT_LT(ranked_by, r.output.find("ms/step")) << r.output;
    EXPECT_LT(r.output.find("nstlist=20"), r.output.find("nstlist=40")) << r.output;
    EXPECT_NE(r.output.find("0.800 (1 round)"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("0.800-0.800"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("from one round: no 95% statement"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("faster than the default at"), std::string::npos) << r.output;
    const Result j = run(std::string(MDTUNE_BINARY) + " show --db " + db() + " --json");
    ASSERT_EQ(j.exit_code, 0) << j.output;
    EXPECT_NE(j.output.find("\"lo\": null"), std::string::npos) << j.output;
    EXPECT_NE(j.output.find("\"ranked_by\": \"ratio_to_default\""), std::string::npos) << j.output;
}

}  // namespace
}  // namespace mdtune
