// Predict within what was measured (a model that extrapolates must say so): a config whose settings no
// training trial covered is extrapolated and never ranked above a covered one,
// and cross-validation holds out tunable values so model selection sees the case.
#include <gtest/gtest.h>

#include <algorithm>

#include "model_test_util.h"
#include "mdtune/models/knn.h"
#include "mdtune/models/predictor.h"
#include "mdtune/models/selection.h"
#include "mdtune/models/validation.h"

namespace mdtune {
namespace {

// The water sweep of the issue: every trial at threads = 2 and nstlist <= 40.
test::SyntheticSpec two_threads_short_lists() {
    test::SyntheticSpec spec;
    spec.systems = {{mdcore::SystemKind::Water, 1500, 1}, {mdcore::SystemKind::Water, 3000, 1},
                    {mdcore::SystemKind::Water, 6000, 1}};
    spec.threads = {2};
    spec.nstlists = {10, 20, 40};
    return spec;
}

bool has_setting(const Config& c, Param p, long v) { return c.value<long>(p) == v; }

TEST(Coverage, KnnRanksAnUnseenThreadCountAndListLifetimeBelowEveryCoveredConfig) {
    const auto hw = test::test_hardware("hw-test", 2);
    const auto samples = test::synthetic_samples(hw, two_threads_short_lists());
    models::KnnModel knn;
    knn.fit(samples);
    models::CandidateGrid grid;
    grid.threads = {1, 2};
    grid.nstlists = {10, 20, 40, 80};
    const SystemDescriptor water{mdcore::SystemKind::Water, 6000, 1};
    const models::Ranking r = models::rank_configs(knn, water, hw, grid);
    ASSERT_FALSE(r.ranked.empty());

    std::size_t covered = 0, uncovered = 0;
    bool seen_uncovered = false;
    for (const models::RankedConfig& c : r.ranked) {
        const bool unseen = has_setting(c.config, Param::Threads, 1) || has_setting(c.config, Param::Nstlist, 80) ||
                            c.config.value<double>(Param::PmeScale) > 1.2;
        EXPECT_EQ(c.prediction.covered(), !unseen) << c.config.canonical();
        EXPECT_EQ(c.prediction.extrapolated, unseen) << c.config.canonical();
        if (unseen) {
            seen_uncovered = true;
            ++uncovered;
            ASSERT_FALSE(c.prediction.uncovered.empty());
        } else {
            EXPECT_FALSE(seen_uncovered) << c.config.canonical() << " ranked after an uncovered config";
            ++covered;
        }
    }
    EXPECT_GT(covered, 0u);
    EXPECT_GT(uncovered, 0u);
    // The exact case of the issue is a candidate and is marked, naming the settings.
    const auto it = std::find_if(r.ranked.begin(), r.ranked.end(), [](const models::RankedConfig& c) {
        return c.config.canonical() == "cluster=8x4;nstlist=80;pme_scale=1;threads=1";
    });
    ASSERT_NE(it, r.ranked.end());
    EXPECT_TRUE(it->prediction.extrapolated);
    const std::string reasons = it->prediction.uncovered.at(0) + " | " + it->prediction.uncovered.at(1);
    EXPECT_NE(reasons.find("nstlist = 80 (trained 10 - 40)"), std::string::npos) << reasons;
    EXPECT_NE(reasons.find("threads = 1 (trained 2 - 2)"), std::string::npos) << reasons;
    EXPECT_TRUE(r.ranked.front().prediction.covered());
}

// A user's box outside the trained densities is outside for every candidate:
// that widens every interval but must not undo the order by the candidate's own
// settings (the case again, on a box unlike the training boxes).
TEST(Coverage, ASystemOutsideTheTrainedDensitiesStillRanksCoveredSettingsFirst) {
    const auto hw = test::test_hardware("hw-test", 2);
    const auto samples = test::synthetic_samples(hw, two_threads_short_lists());
    models::KnnModel knn;
    knn.fit(samples);
    models::Features known = samples.front().features;
    known.density *= 1.5;
    known.system_kind = "gro";  // a user's files: a kind no trial had, so its rc was never trained
    models::Features unseen = known;
    unseen.threads = 1;
    const models::Prediction a = knn.predict(known), b = knn.predict(unseen);
    EXPECT_TRUE(a.extrapolated);
    ASSERT_EQ(a.uncovered.size(), 2u);
    EXPECT_NE(a.uncovered[0].find("rc:gro"), std::string::npos) << a.uncovered[0];
    EXPECT_NE(a.uncovered[1].find("density"), std::string::npos) << a.uncovered[1];
    EXPECT_TRUE(a.covered());
    EXPECT_FALSE(b.covered());
    models::Prediction fast_unseen = b;
    fast_unseen.ms = a.ms / 10;  // faster, but on settings never measured
    EXPECT_TRUE(models::ranks_before(a, fast_unseen));
    EXPECT_FALSE(models::ranks_before(fast_unseen, a));
}

TEST(Coverage, SurvivesTheStoredModelJson) {
    const auto hw = test::test_hardware("hw-test", 2);
    const auto samples = test::synthetic_samples(hw, two_threads_short_lists());
    models::KnnModel knn;
    knn.fit(samples);
    const auto back = models::Model::from_json(nlohmann::json::parse(knn.to_json().dump()));
    models::Features f = samples.front().features;
    EXPECT_TRUE(back->predict(f).covered());
    f.threads = 1;
    EXPECT_FALSE(back->predict(f).covered());
    // A model stored before coverage was recorded flags nothing.
    nlohmann::json old = knn.to_json();
    old["domain"].erase("settings");
    EXPECT_TRUE(models::Model::from_json(old)->predict(f).covered());
}

TEST(Coverage, CrossValidationHoldsOutEachValueOfATunable) {
    const auto hw = test::test_hardware("hw-test", 4);
    test::SyntheticSpec spec = two_threads_short_lists();
    spec.threads = {1, 2};
    const auto samples = test::synthetic_samples(hw, spec);
    const auto folds = models::leave_one_value_out(samples);
    std::set<std::string> groups;
    for (const models::Fold& f : folds) {
        groups.insert(f.group);
        for (std::size_t i : f.test)
            for (std::size_t j : f.train) ASSERT_NE(i, j);
        const std::string setting = f.group.substr(0, f.group.find('='));
        for (std::size_t i : f.train)  // no training sample has the held-out value
            if (setting == "threads") EXPECT_NE("threads=" + std::to_string(long(samples[i].features.threads)), f.group);
    }
    for (const char* g : {"threads=1", "threads=2", "nstlist=10", "nstlist=40", "cluster=4x4", "cluster=8x4",
                           "pme_scale=1", "pme_scale=1.2"})
        EXPECT_TRUE(groups.count(g)) << g;
    // Model selection runs this grouping; its regret is over all of a system's configs.
    const models::Selection sel = models::select_model(samples, models::ModelKind::Knn);
    const auto cv = std::find_if(sel.cv.begin(), sel.cv.end(),
                                 [](const models::CvResult& c) { return c.grouping == models::Grouping::ByTunable; });
    ASSERT_NE(cv, sel.cv.end());
    for (const models::GroupResult& g : cv->groups) {
        ASSERT_TRUE(g.skipped.empty()) << g.group;
        for (const models::SystemRegret& r : g.scores.regrets) EXPECT_EQ(r.configs, 3u * 3u * 2u * 2u) << g.group;
    }
}

}  // namespace
}  // namespace mdtune
