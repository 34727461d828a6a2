// Resuming sweeps (an interrupted or failed sweep must not be measured twice nor reuse a failure): recorded failures are measured
// again unless asked to keep them, invalid results are reused, and trials are
// keyed by what changes a measurement — the mdcore binary, the launcher and the
// OMP_/GOMP_/KMP_/MDCORE_ environment — so changing any of them measures anew.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "../common/temp_dir_test.h"
#include "mdtune/tuner/measurement_identity.h"
#include "mdtune/tuner/runner.h"
#include "mdtune/tuner/sweep.h"

namespace mdtune {
namespace {

namespace fs = std::filesystem;

using SweepResume = mdtest::TempDirTest;

tuner::SearchSpace space() {
    return tuner::parse_space("[system]\nkind = \"lj\"\nnatoms = [256]\n[space]\nnstlist = [10, 20, 40, 80]\n"
                       "[measure]\nsteps = 40\nwarmup = 10\nrepeats = 1\n",
                       "resume.toml");
}

tuner::SweepContext context(const std::string& build_id = "build-a") {
    tuner::SweepContext ctx;
    ctx.hardware_id = "hw-test";
    ctx.build_id = build_id;
    ctx.caps = HardwareCaps{2, false, {"none"}};
    return ctx;
}

TrialResult ok(double ms) {
    TrialResult r;
    r.status = TrialStatus::Ok;
    r.repeats = 1;
    r.ms_median = r.ms_min = r.ms_max = ms;
    r.ns_per_day = 100.0 / ms;
    r.drift = 1e-4;
    r.drift_tolerance = 5e-3;
    return r;
}

// Recordings for the baseline and nstlist 10, 20, 40, 80 with the given results.
std::vector<tuner::Observation> recordings(const tuner::SearchSpace& s, const std::vector<TrialResult>& per_config) {
    std::vector<tuner::Observation> out{{{s.systems[0], Config{}, s.measure}, ok(2.0)}};
    const std::vector<Config> configs = s.configs();
    for (std::size_t k = 0; k < configs.size(); ++k) out.push_back({{s.systems[0], configs[k], s.measure}, per_config[k]});
    return out;
}

tuner::SweepSummary sweep(db::Store& store, const std::vector<tuner::Observation>& recorded, const tuner::SweepContext& ctx) {
    const tuner::SearchSpace s = space();
    auto runner = tuner::make_replay_runner(recorded);
    auto strategy = tuner::make_exhaustive(s, ctx.caps);
    return tuner::run_sweep(s, store, *runner, *strategy, ctx, "resume", nullptr, {});
}

std::map<long, TrialStatus> status_by_nstlist(const db::Store& store) {
    std::map<long, TrialStatus> out;
    for (const db::StoredTrial& t : store.trials())
        if (const auto n = t.config.value<long>(Param::Nstlist)) out[*n] = t.result.status;
    return out;
}

std::vector<TrialResult> with_failures() {
    TrialResult crashed, timeout, invalid = ok(0.5);
    crashed.status = TrialStatus::Crashed;
    crashed.stderr_tail = "killed by signal 6";
    timeout.status = TrialStatus::Timeout;
    invalid.drift = 1.0;  // far above the tolerance: measure() judges it Invalid
    return {crashed, timeout, invalid, ok(1.0)};
}

TEST_F(SweepResume, RecordedFailuresAreMeasuredAgainAndInvalidIsReused) {
    const tuner::SearchSpace s = space();
    db::Store store(path("t.db"));
    const tuner::SweepSummary first = sweep(store, recordings(s, with_failures()), context());
    EXPECT_EQ(first.measured, 5u);
    EXPECT_EQ(status_by_nstlist(store)[10], TrialStatus::Crashed);
    EXPECT_EQ(status_by_nstlist(store)[40], TrialStatus::Invalid);
    std::map<std::string, long> ids;
    for (const db::StoredTrial& t : store.trials()) ids[t.key().str()] = t.id;

    // The machine is fixed: the same configs now run fine.
    const tuner::SweepSummary second = sweep(store, recordings(s, {ok(1.5), ok(1.2), ok(0.5), ok(9.0)}), context());
    EXPECT_EQ(second.measured, 2u);  // the crash and the timeout
    EXPECT_EQ(second.retried, 2u);
    EXPECT_EQ(second.reused, 3u);    // baseline, invalid and ok
    auto status = status_by_nstlist(store);
    EXPECT_EQ(status[10], TrialStatus::Ok);
    EXPECT_EQ(status[20], TrialStatus::Ok);
    EXPECT_EQ(status[40], TrialStatus::Invalid);  // an accuracy verdict is a result
    // Replaced in place: one row per key, same row ids.
    const auto trials = store.trials();
    ASSERT_EQ(trials.size(), 5u);
    for (const db::StoredTrial& t : trials) EXPECT_EQ(ids.at(t.key().str()), t.id) << t.key().str();
    for (const db::StoredTrial& t : trials)
        if (t.config.value<long>(Param::Nstlist) == 80L) EXPECT_DOUBLE_EQ(t.result.ms_median, 1.0);  // ok kept
}

TEST_F(SweepResume, KeepFailedReusesThem) {
    const tuner::SearchSpace s = space();
    db::Store store(path("t.db"));
    sweep(store, recordings(s, with_failures()), context());
    tuner::SweepContext keep = context();
    keep.failed_trials = tuner::FailedTrials::Keep;
    const tuner::SweepSummary again = sweep(store, recordings(s, {ok(1.5), ok(1.2), ok(0.5), ok(9.0)}), keep);
    EXPECT_EQ(again.measured, 0u);
    EXPECT_EQ(again.reused, 5u);
    EXPECT_EQ(status_by_nstlist(store)[10], TrialStatus::Crashed);
}

TEST_F(SweepResume, MergeAfterARetryStaysIdempotent) {
    const tuner::SearchSpace s = space();
    {
        db::Store shard(path("shard.db"));
        sweep(shard, recordings(s, with_failures()), context());
        sweep(shard, recordings(s, {ok(1.5), ok(1.2), ok(0.5), ok(9.0)}), context());
    }
    db::Store merged(path("merged.db"));
    EXPECT_EQ(merged.merge_from(path("shard.db")), 5);
    EXPECT_EQ(merged.merge_from(path("shard.db")), 0);
    EXPECT_EQ(merged.trials().size(), 5u);
    EXPECT_EQ(status_by_nstlist(merged)[10], TrialStatus::Ok);
}

// ---- what a trial is keyed by ------------------------------------------------

std::vector<const char*> env_of(std::vector<std::string>& storage) {
    std::vector<const char*> out;
    for (const std::string& e : storage) out.push_back(e.c_str());
    out.push_back(nullptr);
    return out;
}

std::string build_id(const std::string& mdcore, const std::vector<std::string>& launcher, std::vector<std::string> env) {
    return tuner::measurement_build_id(tuner::identify_measurement(mdcore, launcher, env_of(env).data()));
}

TEST(MeasurementEnvironment, KeepsOnlyWhatChangesARun) {
    std::vector<std::string> env{"OMP_NUM_THREADS=2", "GOMP_SPINCOUNT=0", "KMP_AFFINITY=compact",
                                 "MDCORE_TEST_FAULT=crash:nstlist=10", "HOME=/root", "OMPX=1", "PATH=/bin"};
    const auto kept = tuner::measurement_environment(env_of(env).data());
    EXPECT_EQ(kept, (std::map<std::string, std::string>{{"GOMP_SPINCOUNT", "0"},
                                                        {"KMP_AFFINITY", "compact"},
                                                        {"MDCORE_TEST_FAULT", "crash:nstlist=10"},
                                                        {"OMP_NUM_THREADS", "2"}}));
}

TEST_F(SweepResume, MdcoreIsIdentifiedByItsBuildIdOrItsBytes) {
    const tuner::MeasurementIdentity real = tuner::identify_measurement(MDCORE_BINARY, {}, nullptr);
    EXPECT_EQ(real.mdcore.rfind("gnu-build-id:", 0), 0u) << real.mdcore;
    EXPECT_NE(real.mdcore_version_json.find("engine_version"), std::string::npos);
    // A copy elsewhere is the same binary: same key.
    fs::copy_file(MDCORE_BINARY, path("mdcore-copy"));
    fs::permissions(path("mdcore-copy"), fs::perms::owner_all);
    EXPECT_EQ(build_id(path("mdcore-copy"), {}, {}), build_id(MDCORE_BINARY, {}, {}));
    // A wrapper that does not answer --version --json is known by its bytes.
    const std::string wrapper = path("mdcore-wrapper");
    std::ofstream(wrapper) << "#!/bin/sh\n[ \"$1\" = --version ] && exit 2\nexec " << MDCORE_BINARY << " \"$@\"\n";
    fs::permissions(wrapper, fs::perms::owner_all);
    const tuner::MeasurementIdentity wrapped = tuner::identify_measurement(wrapper, {}, nullptr);
    EXPECT_EQ(wrapped.mdcore.rfind("file-fnv1a:", 0), 0u) << wrapped.mdcore;
    const std::string before = build_id(wrapper, {}, {});
    EXPECT_NE(before, build_id(MDCORE_BINARY, {}, {}));
    std::ofstream(wrapper, std::ios::app) << "# edited\n";
    EXPECT_NE(build_id(wrapper, {}, {}), before);
    // Missing: a usage error, unless a launcher may find it where it runs.
    EXPECT_THROW(tuner::identify_measurement(path("no-such-mdcore"), {}, nullptr), tuner::MdcoreNotFound);
    EXPECT_EQ(tuner::identify_measurement(path("no-such-mdcore"), {"srun"}, nullptr).mdcore, "unresolved:" + path("no-such-mdcore"));
}

// The commit comes from the binary that runs, not from the tuner: from
// `--version --json` into the identity, from the report's build block into the trial.
TEST_F(SweepResume, TheCommitIsTheBinarysOwn) {
    const tuner::MeasurementIdentity real = tuner::identify_measurement(MDCORE_BINARY, {}, nullptr);
    EXPECT_EQ(real.git_commit, mdcore::build_git_commit());  // built from this tree
    const std::string other = path("mdcore-other-commit");
    std::ofstream(other) << "#!/bin/sh\n"
                            "if [ \"$1\" = --version ]; then\n"
                            "  echo '{\"engine_version\":\"9.9\",\"git_commit\":\"feedface1234\",\"build_id\":\"ab12\"}'\n"
                            "  exit 0\n"
                            "fi\n"
                         << MDCORE_BINARY << " \"$@\" | sed 's/\"git_commit\": *\"[^\"]*\"/\"git_commit\": \"feedface1234\"/'\n";
    fs::permissions(other, fs::perms::owner_all);
    const tuner::MeasurementIdentity identity = tuner::identify_measurement(other, {}, nullptr);
    EXPECT_EQ(identity.git_commit, "feedface1234");
    EXPECT_EQ(identity.mdcore, "gnu-build-id:ab12");
    EXPECT_NE(tuner::measurement_build_id(identity), tuner::measurement_build_id(real));

    const tuner::SearchSpace s = space();
    const TrialResult measured = tuner::make_subprocess_runner(other)->measure({s.systems[0], Config{}, s.measure});
    ASSERT_EQ(measured.status, TrialStatus::Ok) << measured.stderr_tail;
    ASSERT_TRUE(measured.report);
    EXPECT_EQ(measured.report->build.git_commit, "feedface1234");
    db::Store store(path("t.db"));
    db::StoredTrial t;
    t.hardware_id = "hw-test";
    t.system = s.systems[0];
    t.build_id = tuner::measurement_build_id(identity);
    t.measure = s.measure;
    t.result = measured;
    store.insert_trial(t);
    const auto found = store.find_trial(t.key());
    ASSERT_TRUE(found && found->result.report);
    EXPECT_EQ(found->result.report->build.git_commit, "feedface1234");
}

TEST_F(SweepResume, LauncherEnvironmentAndBinaryEachMakeANewTrial) {
    const std::string mdcore = MDCORE_BINARY;
    fs::copy_file(mdcore, path("mdcore-copy"));
    fs::permissions(path("mdcore-copy"), fs::perms::owner_all);
    const std::string wrapper = path("mdcore-wrapper");
    std::ofstream(wrapper) << "#!/bin/sh\nexec " << mdcore << " run \"$@\"\n";  // no --version: known by bytes
    fs::permissions(wrapper, fs::perms::owner_all);
    const std::string base = build_id(mdcore, {}, {"OMP_NUM_THREADS=2", "HOME=/a"});
    EXPECT_EQ(build_id(mdcore, {}, {"OMP_NUM_THREADS=2", "HOME=/b"}), base);    // unrelated variable
    EXPECT_EQ(build_id(path("mdcore-copy"), {}, {"OMP_NUM_THREADS=2"}), base);  // same binary elsewhere
    const std::vector<std::string> changed{
        build_id(mdcore, {"mpirun", "-np", "2"}, {"OMP_NUM_THREADS=2"}),
        build_id(mdcore, {"mpirun", "-np", "4"}, {"OMP_NUM_THREADS=2"}),
        build_id(mdcore, {}, {"OMP_NUM_THREADS=1"}),
        build_id(mdcore, {}, {"OMP_NUM_THREADS=2", "MDCORE_TEST_FAULT=crash:nstlist=10"}),
        build_id(mdcore, {}, {"OMP_NUM_THREADS=2", "GOMP_SPINCOUNT=0"}),
        build_id(wrapper, {}, {"OMP_NUM_THREADS=2"}),
    };
    for (const std::string& id : changed) EXPECT_NE(id, base);
    EXPECT_EQ(std::set<std::string>(changed.begin(), changed.end()).size(), changed.size());

    // In a sweep: a new key measures anew, the old one is reused.
    const tuner::SearchSpace s = space();
    const auto recorded = recordings(s, {ok(1.0), ok(1.1), ok(1.2), ok(1.3)});
    db::Store store(path("t.db"));
    EXPECT_EQ(sweep(store, recorded, context(base)).measured, 5u);
    EXPECT_EQ(sweep(store, recorded, context(changed[0])).measured, 5u);
    const tuner::SweepSummary same = sweep(store, recorded, context(base));
    EXPECT_EQ(same.measured, 0u);
    EXPECT_EQ(same.reused, 5u);
    EXPECT_EQ(store.trials().size(), 10u);
}

}  // namespace
}  // namespace mdtune
