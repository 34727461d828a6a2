// tune as a library call (no mdtune or mdcore binary): the model's top predictions
// and the default config measured by a replay runner, the best and the
// predicted-versus-measured rows it returns, and a model fitted when none is stored.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "../models/synthetic_db_test.h"
#include "mdtune/models/fit_from_store.h"
#include "mdtune/models/model_lookup.h"
#include "mdtune/core/system_files.h"
#include "mdtune/db/model_store.h"
#include "mdtune/models/predict_query.h"
#include "mdtune/tuner/tune.h"

namespace mdtune {
namespace {

class Tune : public test::SyntheticDbTest {
protected:
    void SetUp() override {
        SyntheticDbTest::SetUp();
        fill();
    }
    // The machine as the database describes it, and a sweep context keyed like a sweep's.
    models::HardwareFeatures hardware() const { return models::resolve_hardware(db::Store(db(), db::Store::Mode::ReadOnly), "hw-test"); }
    tuner::SweepContext context() const {
        tuner::SweepContext ctx;
        ctx.hardware_id = "hw-test";
        ctx.build_id = "build-tune-test";
        ctx.caps = hardware().caps();
        return ctx;
    }
    static tuner::Observation recorded(const SystemDescriptor& s, const Config& c, double ms) {
        tuner::Observation o{{s, c, {100, 20, 1, 60.0}}, {}};
        o.result.status = TrialStatus::Ok;
        o.result.repeats = 1;
        o.result.ms_median = o.result.ms_min = o.result.ms_max = ms;
        o.result.ns_per_day = 100.0 / ms;
        o.result.drift_tolerance = 0.005;
        o.result.drift = 0.001;
        return o;
    }
};

TEST_F(Tune, MeasuresTheTopPredictionsAndTheDefaultAndReturnsTheBest) {
    const long model_id = models::fit_and_store({db(), models::ModelKind::Cost, {}}).model_id;
    const SystemDescriptor system{mdcore::SystemKind::Water, 6000, 1};
    const models::Ranking predicted = models::predict_configs({db(), system, "hw-test", std::nullopt}).ranking;
    ASSERT_GE(predicted.ranked.size(), 2u);
    const Config first = predicted.ranked[0].config, second = predicted.ranked[1].config;
    // Measured: the second prediction is the fastest, the default the slowest.
    const auto runner = tuner::make_replay_runner(
        {recorded(system, Config{}, 3.0), recorded(system, first, 2.0), recorded(system, second, 1.5)});

    tuner::TuneRequest request;
    request.system = system;
    request.top = 2;
    request.steps = 100;
    request.repeats = 1;
    std::size_t planned = 0, progress = 0;
    tuner::TuneEvents events;
    events.planned = [&](const tuner::TunePlan& plan) {
        ++planned;
        EXPECT_EQ(progress, 0u);  // known before the first run
        EXPECT_EQ(plan.candidates, (std::vector<Config>{first, second}));
    };
    events.progress = [&](const tuner::SweepProgress&) { ++progress; };
    db::Store store(db());
    const tuner::TuneResult r = tuner::tune_system(request, store, *runner, context(), hardware(), events);

    EXPECT_EQ(planned, 1u);
    EXPECT_EQ(progress, 3u);
    EXPECT_EQ(r.plan.model_id, model_id);
    EXPECT_FALSE(r.plan.model_fitted_now);
    EXPECT_EQ(r.plan.measure.steps, 100);
    EXPECT_EQ(r.plan.measure.warmup, 20);  // a fifth of the steps
    EXPECT_EQ(r.summary.measured, 3u);
    const tuner::SystemOutcome& o = r.summary.systems.at(0);
    ASSERT_TRUE(o.best && o.baseline);
    EXPECT_EQ(o.best->proposal.config, second);
    EXPECT_DOUBLE_EQ(o.best->result.ms_median, 1.5);
    EXPECT_DOUBLE_EQ(o.baseline->result.ms_median, 3.0);
    ASSERT_EQ(r.verified.size(), 3u);  // the default and both candidates, each with its prediction
    for (const tuner::VerifiedConfig& v : r.verified) {
        EXPECT_EQ(v.measured.status, TrialStatus::Ok);
        if (v.config == first) EXPECT_DOUBLE_EQ(v.predicted.ms, predicted.ranked[0].prediction.ms);
        if (v.config == second) EXPECT_DOUBLE_EQ(v.predicted.ms, predicted.ranked[1].prediction.ms);
    }
    EXPECT_GT(r.best_effective.rlist, 0);
}

// A prediction that resolves to the default's settings (its own values written out)
// is not measured beside the default: the next one takes its place.
TEST_F(Tune, NoCandidateRunsTheDefaultsOrAnotherCandidatesSettings) {
    models::fit_and_store({db(), models::ModelKind::Cost, {}});
    const SystemDescriptor system{mdcore::SystemKind::Water, 6000, 1};
    const models::Ranking predicted = models::predict_configs({db(), system, "hw-test", std::nullopt}).ranking;
    ASSERT_TRUE(predicted.default_config);
    const std::string defaults = tuner::resolved_settings(predicted.default_config->effective);
    std::size_t same_as_default = 0;
    for (const models::RankedConfig& c : predicted.ranked) same_as_default += tuner::resolved_settings(c.effective) == defaults;
    ASSERT_GT(same_as_default, 0u) << "the grid should hold the default's settings written out";

    tuner::TuneRequest request;
    request.system = system;
    request.top = predicted.ranked.size();  // every distinct prediction
    request.steps = 100;
    request.repeats = 1;
    std::vector<Config> candidates;
    tuner::TuneEvents events;
    events.planned = [&](const tuner::TunePlan& plan) { candidates = plan.candidates; };
    const auto runner = tuner::make_replay_runner({});  // nothing recorded: every run fails, the plan is what counts
    db::Store store(db());
    try {
        tuner::tune_system(request, store, *runner, context(), hardware(), events);
    } catch (const std::exception&) {
    }
    std::set<std::string> seen{defaults};
    for (const Config& c : candidates) {
        const auto it = std::find_if(predicted.ranked.begin(), predicted.ranked.end(),
                                     [&](const models::RankedConfig& r) { return r.config == c; });
        ASSERT_NE(it, predicted.ranked.end());
        EXPECT_TRUE(seen.insert(tuner::resolved_settings(it->effective)).second) << c.canonical();
    }
    EXPECT_EQ(candidates.size(), predicted.ranked.size() - same_as_default) << "every other prediction is kept";
}

// A protein with its .mdp: the sweep a tune records names the .mdp, and every trial
// is keyed by the box with it (its trials run mdcore run --mdp).
TEST_F(Tune, AProteinIsTunedWithItsMdp) {
    if (!std::filesystem::exists("/usr/share/gromacs/top/charmm27.ff"))
        GTEST_SKIP() << "/usr/share/gromacs/top/charmm27.ff is not installed (GROMACS' data)";
    models::fit_and_store({db(), models::ModelKind::Cost, {}});
    const std::string data = std::string(MDT_TEST_DATA_DIR) + "/topologies/charmm27/";
    const std::string mdp = write("md.mdp", "dt = 0.002\nconstraints = h-bonds\nfourierspacing = 0.15\n");
    const SystemDescriptor system = describe_system_files(data + "conf.gro", data + "topol.top", mdp);
    const models::Ranking predicted = models::predict_configs({db(), system, "hw-test", std::nullopt}).ranking;
    ASSERT_TRUE(predicted.default_config);
    EXPECT_DOUBLE_EQ(predicted.default_config->effective.pme_spacing, 0.15);  // the .mdp's fourierspacing
    std::vector<tuner::Observation> measured{recorded(system, Config{}, 3.0)};
    for (const models::RankedConfig& c : predicted.ranked) measured.push_back(recorded(system, c.config, 2.0));
    const auto runner = tuner::make_replay_runner(measured);
    tuner::TuneRequest request;
    request.system = system;
    request.top = 1;
    request.steps = 100;
    request.repeats = 1;
    db::Store store(db());
    const tuner::TuneResult r = tuner::tune_system(request, store, *runner, context(), hardware());
    EXPECT_EQ(r.summary.measured, 2u);
    ASSERT_TRUE(r.summary.systems.at(0).best);
    EXPECT_EQ(r.summary.systems.at(0).best->proposal.system.mdcore_args().back(), mdp);
    const auto sweeps = store.sweeps();
    ASSERT_FALSE(sweeps.empty());
    EXPECT_NE(sweeps.back().space_text.find("mdp = \"" + mdp + "\""), std::string::npos) << sweeps.back().space_text;
    db::TrialFilter mine;
    mine.sweep_id = r.summary.sweep_id;
    for (const db::StoredTrial& t : store.trials(mine)) {
        EXPECT_EQ(t.system.canonical(), system.canonical());
        EXPECT_EQ(t.system.mdp, mdp);
    }
}

TEST_F(Tune, FitsAndStoresAModelWhenNoneIsStoredAndRespectsTheBudget) {
    const SystemDescriptor system{mdcore::SystemKind::Lj, 2000, 1};
    const auto runner = tuner::make_replay_runner({});  // every run fails: "not recorded"
    tuner::TuneRequest request;
    request.system = system;
    request.top = 5;
    request.budget = 3;  // the default and two candidates
    request.steps = 100;
    request.repeats = 1;
    request.kind = models::ModelKind::Cost;
    db::Store store(db());
    const tuner::TuneResult r = tuner::tune_system(request, store, *runner, context(), hardware());
    EXPECT_TRUE(r.plan.model_fitted_now);
    EXPECT_GT(r.plan.training_trials, 10u);
    EXPECT_EQ(r.plan.candidates.size(), 2u);
    EXPECT_EQ(db::ModelStore(store).list().size(), 1u);
    EXPECT_EQ(r.summary.measured, 3u);
    EXPECT_FALSE(r.summary.systems.at(0).best);  // nothing ran: no best to report
}

}  // namespace
}  // namespace mdtune
