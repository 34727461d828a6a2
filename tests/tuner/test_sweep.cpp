// The sweep driver with in-process and replay runners: results are recorded,
// resumed sweeps reuse recorded trials, invalid configs are never best.
#include <gtest/gtest.h>

#include <filesystem>

#include "../common/temp_dir_test.h"
#include "mdtune/tuner/runner.h"
#include "mdtune/tuner/sweep.h"

namespace mdtune {
namespace {

class Sweep : public mdtest::TempDirTest {};  // the databases live in a directory removed afterwards

tuner::SearchSpace tiny_space() {
    return tuner::parse_space(R"(
[system]
kind = "lj"
natoms = [256]
[space]
cluster = ["4x4", "8x4"]
nstlist = [10, 20]
threads = [1]
[measure]
steps = 40
warmup = 10
repeats = 1
timeout_s = 60
)",
                       "tiny.toml");
}

tuner::SweepContext context() {
    tuner::SweepContext ctx;
    ctx.hardware_id = "hw-test";
    ctx.build_id = current_build_id();
    ctx.caps.cores = 2;
    ctx.caps.simd_levels = {"none", "avx2", "avx512"};
    return ctx;
}

TEST_F(Sweep, InProcessSweepRecordsEveryTrialAndResumes) {
    const std::filesystem::path path = this->path("inproc.db");
    const tuner::SearchSpace space = tiny_space();
    db::Store store(path.string());
    auto runner = tuner::make_in_process_runner();
    {
        auto strategy = tuner::make_exhaustive(space, context().caps);
        const tuner::SweepSummary s = tuner::run_sweep(space, store, *runner, *strategy, context(), "first", nullptr, {});
        EXPECT_EQ(s.measured, 5u);  // baseline + 4 configs
        EXPECT_EQ(s.reused, 0u);
        ASSERT_EQ(s.systems.size(), 1u);
        ASSERT_TRUE(s.systems[0].best.has_value());
        ASSERT_TRUE(s.systems[0].baseline.has_value());
    }
    EXPECT_EQ(store.trials().size(), 5u);
    // Rerun: everything is recorded under the same keys, nothing runs again.
    auto strategy = tuner::make_exhaustive(space, context().caps);
    const tuner::SweepSummary again = tuner::run_sweep(space, store, *runner, *strategy, context(), "again", nullptr, {});
    EXPECT_EQ(again.measured, 0u);
    EXPECT_EQ(again.reused, 5u);
    EXPECT_EQ(store.trials().size(), 5u);
}

TEST_F(Sweep, ReplayRunnerReproducesRecordedMediansAndInvalidIsNeverBest) {
    const tuner::SearchSpace space = tiny_space();
    std::vector<tuner::Observation> recorded;
    double ms = 1.0;
    for (const Config& c : space.configs()) {
        tuner::Observation o{{space.systems[0], c, space.measure}, {}};
        o.result.status = TrialStatus::Ok;
        o.result.ms_median = o.result.ms_min = o.result.ms_max = ms;
        o.result.ns_per_day = 100.0 / ms;
        o.result.drift_tolerance = 0.005;
        o.result.drift = 0.001;
        ms += 0.5;
        recorded.push_back(o);
    }
    // The fastest recorded config breaks the drift tolerance: it must be Invalid.
    recorded[0].result.drift = 0.02;
    tuner::Observation baseline{{space.systems[0], Config{}, space.measure}, recorded[1].result};
    baseline.result.ms_median = baseline.result.ms_min = baseline.result.ms_max = 5.0;
    recorded.push_back(baseline);
    auto runner = tuner::make_replay_runner(recorded);
    const std::filesystem::path path = this->path("replay.db");
    db::Store store(path.string());
    auto strategy = tuner::make_exhaustive(space, context().caps);
    const tuner::SweepSummary s = tuner::run_sweep(space, store, *runner, *strategy, context(), "replay", nullptr, {});
    ASSERT_TRUE(s.systems[0].best.has_value());
    EXPECT_EQ(s.systems[0].best->proposal.config, recorded[1].proposal.config);
    EXPECT_DOUBLE_EQ(s.systems[0].best->result.ms_median, 1.5);
    bool saw_invalid = false;
    for (const auto& t : store.trials())
        if (t.config == recorded[0].proposal.config) saw_invalid = t.result.status == TrialStatus::Invalid;
    EXPECT_TRUE(saw_invalid);
}

TEST_F(Sweep, MeasureKeepsMedianAndSpreadOfRepeats) {
    tuner::SearchSpace space = tiny_space();
    space.measure.repeats = 3;
    auto runner = tuner::make_in_process_runner();
    const TrialResult r = runner->measure({space.systems[0], Config{}, space.measure});
    ASSERT_EQ(r.status, TrialStatus::Ok) << r.stderr_tail;
    EXPECT_EQ(r.repeats, 3);
    EXPECT_LE(r.ms_min, r.ms_median);
    EXPECT_LE(r.ms_median, r.ms_max);
    EXPECT_GT(r.ns_per_day, 0.0);
    EXPECT_TRUE(r.timings.count("nonbonded"));
    ASSERT_TRUE(r.report);
    EXPECT_EQ(r.report->build.git_commit, mdcore::build_git_commit());  // the engine that ran, read into the trial
}

}  // namespace
}  // namespace mdtune
