// fit, predict and compare as library calls (no mdtune binary): what each returns
// on a database of synthetic trials, and the bad input each refuses.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <vector>

#include "synthetic_db_test.h"
#include "mdtune/models/compare_table.h"
#include "mdtune/models/fit_from_store.h"
#include "mdtune/models/model_lookup.h"
#include "mdtune/db/model_store.h"
#include "mdtune/models/predict_query.h"

namespace mdtune {
namespace {

namespace fs = std::filesystem;

class ModelQueries : public test::SyntheticDbTest {
protected:
    models::FitResult fit_cost() { return models::fit_and_store({db(), models::ModelKind::Cost, {}}); }
};

// predict's header line quotes the groupings auto decides on; a tunable
// grouping's extrapolation (ridge: MAPE in the thousands of percent) stays out
// of it unless it is the only one.
TEST(CvHeadline, QuotesTheDecidingGroupingsNotTheTunableOne) {
    auto result = [](const char* kind, const char* grouping, double mape, std::vector<double> regrets) {
        nlohmann::json r = nlohmann::json::array();
        for (double x : regrets) r.push_back({{"regret", x}});
        return nlohmann::json{{"kind", kind}, {"grouping", grouping},
                              {"overall", {{"mape", mape}, {"n", 10}, {"regrets", r}}}};
    };
    db::StoredModel row;
    row.kind = "ridge";
    row.cv_json = nlohmann::json{{"results",
                                  {result("ridge", "size", 0.087, {0.0, 0.02, 0.149}),
                                   result("ridge", "tunable", 8679.03, {0.018, 1.374}),
                                   result("knn", "size", 0.5, {0.9})}}}
                      .dump();
    EXPECT_EQ(models::cv_headline(row), "CV holding out size: median regret 2.0 %, worst 14.9 %, MAPE 8.7 %");
    row.cv_json = nlohmann::json{{"results", {result("ridge", "tunable", 0.2, {0.01, 0.03})}}}.dump();
    EXPECT_EQ(models::cv_headline(row), "CV holding out tunable: median regret 2.0 %, worst 3.0 %, MAPE 20.0 %");
    row.cv_json = nlohmann::json{{"results", nlohmann::json::array()}}.dump();
    EXPECT_EQ(models::cv_headline(row), "not cross-validated");
    row.cv_json = "{";
    EXPECT_EQ(models::cv_headline(row), "no CV scores");
}

TEST_F(ModelQueries, FitStoresTheModelAndScoresHeldOutSizesWithoutFittingThem) {
    fill();
    std::size_t loaded_calls = 0, loaded_train = 0;
    const models::FitResult r = models::fit_and_store({db(), models::ModelKind::Cost, {6000}}, [&](const models::FitResult& loaded) {
        ++loaded_calls;
        loaded_train = loaded.train.size();
        EXPECT_TRUE(loaded.selection.cv.empty());  // called before cross-validation
    });
    EXPECT_EQ(loaded_calls, 1u);
    EXPECT_EQ(loaded_train, r.train.size());
    ASSERT_FALSE(r.test.empty());
    for (const models::Sample& s : r.test) EXPECT_EQ(s.system.natoms, 6000);
    for (const models::Sample& s : r.train) EXPECT_NE(s.system.natoms, 6000);
    EXPECT_EQ(r.machines, 1u);
    EXPECT_EQ(r.systems, 5u);  // six synthetic systems, one held out
    EXPECT_EQ(r.selection.chosen, models::ModelKind::Cost);
    ASSERT_TRUE(r.model);
    ASSERT_TRUE(r.holdout);
    EXPECT_EQ(r.holdout->n, r.test.size());
    ASSERT_EQ(r.holdout_by_kind.size(), models::kModelKinds.size());
    EXPECT_LT(r.holdout->mape, 0.05);  // exact synthetic timings: the cost model recovers them

    const db::Store store(db(), db::Store::Mode::ReadOnly);
    const auto row = db::ModelStore(store).get(r.model_id);
    ASSERT_TRUE(row);
    EXPECT_EQ(row->kind, "cost");
    const auto ids = nlohmann::json::parse(row->training_trial_ids_json).get<std::vector<long>>();
    EXPECT_EQ(ids.size(), r.train.size());
    for (const models::Sample& s : r.test) EXPECT_EQ(std::count(ids.begin(), ids.end(), s.trial_id), 0);
}

TEST_F(ModelQueries, FitRefusesAMissingDatabaseAndUnknownHeldOutSizes) {
    EXPECT_THROW(fit_cost(), std::runtime_error);
    EXPECT_FALSE(fs::exists(db()));  // reading never creates a file
    fill();
    try {
        models::fit_and_store({db(), std::nullopt, {7}});
        FAIL() << "a held-out size without trials must be refused";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("--holdout-natoms: no ok trials of 7 atoms"), std::string::npos);
    }
}

TEST_F(ModelQueries, PredictRanksFeasibleConfigsFastestFirst) {
    fill();
    models::PredictRequest request{db(), {mdcore::SystemKind::Water, 6000, 1}, "hw-test", std::nullopt};
    EXPECT_THROW(models::predict_configs(request), std::runtime_error);  // no model yet
    const long id = fit_cost().model_id;
    const models::PredictResult p = models::predict_configs(request);
    EXPECT_EQ(p.hardware.id, "hw-test");
    EXPECT_EQ(p.model.id, id);
    ASSERT_GE(p.ranking.ranked.size(), 4u);
    // Fastest first among covered configs, then among those with settings never
    // measured (nstlist 80, pme_scale 1.3: the synthetic trials stop at 40 and 1.2).
    std::size_t uncovered = 0;
    for (std::size_t k = 1; k < p.ranking.ranked.size(); ++k) {
        const models::Prediction &a = p.ranking.ranked[k - 1].prediction, &b = p.ranking.ranked[k].prediction;
        EXPECT_TRUE(a.covered() || !b.covered());
        if (a.covered() == b.covered()) EXPECT_LE(a.ms, b.ms);
        uncovered += !b.covered();
    }
    EXPECT_GT(uncovered, 0u);
    for (const models::RankedConfig& c : p.ranking.ranked) EXPECT_LE(std::get<long>(*c.config.get(Param::Threads)), 4);
    ASSERT_TRUE(p.ranking.default_config);

    const auto j = models::predict_json(request, p, 3);
    ASSERT_EQ(j.at("ranked").size(), 3u);
    EXPECT_EQ(j.at("ranked")[0].at("config"), p.ranking.ranked[0].config.canonical());
    EXPECT_EQ(j.at("candidates"), p.ranking.ranked.size());
    EXPECT_EQ(j.at("model").at("id"), id);
    // The mark follows the intervals: overlapping means indistinguishable from the default.
    const models::Prediction& best = p.ranking.ranked[0].prediction;
    const bool overlap = best.hi >= p.ranking.default_config->prediction.lo;
    EXPECT_EQ(j.at("indistinguishable_from_default"), overlap);
    models::Ranking apart = p.ranking;
    apart.default_config->prediction.lo = best.hi + 1.0;
    EXPECT_FALSE(models::best_indistinguishable_from_default(apart));
    apart.default_config->prediction.lo = best.hi;
    EXPECT_TRUE(models::best_indistinguishable_from_default(apart));
    // A default predicted faster than every candidate is the advice, not rank 1.
    EXPECT_EQ(j.at("keep_defaults"), p.ranking.default_config->prediction.ms <= best.ms);
    models::Ranking slower = p.ranking;
    slower.default_config->prediction.ms = best.ms * 0.9;
    EXPECT_TRUE(models::default_is_fastest(slower));
    slower.default_config->prediction.ms = best.ms * 1.1;
    EXPECT_FALSE(models::default_is_fastest(slower));
    slower.default_config.reset();
    EXPECT_FALSE(models::default_is_fastest(slower));

    request.hardware = "hw-nowhere";
    EXPECT_THROW(models::predict_configs(request), InputError);
    request.hardware = "hw-test";
    request.kind = models::ModelKind::Knn;  // only a cost model is stored
    EXPECT_THROW(models::predict_configs(request), std::runtime_error);
}

TEST_F(ModelQueries, CompareTakesMeasuredPointsFromTrialsAndPredictsTheRest) {
    fill();
    fit_cost();
    models::CompareRequest request;
    request.db = db();
    request.hardware = {"hw-test"};
    request.systems = {{mdcore::SystemKind::Water, 12000, 1}, {mdcore::SystemKind::Water, 3000, 1}};
    request.price = {{"hw-test", 5000}};
    request.watts = {{"hw-test", 250}};
    const models::CompareResult r = models::compare_hardware(request);
    ASSERT_EQ(r.cells.size(), 2u);
    ASSERT_TRUE(r.model);
    EXPECT_FALSE(r.model_missing);
    const models::CompareCell& measured = r.cells[0];  // sorted by size: 3,000 first
    const models::CompareCell& predicted = r.cells[1];
    EXPECT_EQ(measured.system.natoms, 3000);
    EXPECT_TRUE(measured.measured);
    double best = 0;  // equal steps everywhere: the fastest ok trial
    for (const db::StoredTrial& t : db::Store(db(), db::Store::Mode::ReadOnly).trials())
        if (t.system.natoms == 3000 && t.system.kind == mdcore::SystemKind::Water) best = std::max(best, t.result.ns_per_day);
    EXPECT_DOUBLE_EQ(measured.ns_per_day, best);
    ASSERT_TRUE(measured.per_kilo_price && measured.per_kilowatt);
    EXPECT_DOUBLE_EQ(*measured.per_kilo_price, best / 5000 * 1000);
    EXPECT_DOUBLE_EQ(*measured.per_kilowatt, best / 0.25);
    EXPECT_FALSE(predicted.measured);
    EXPECT_GT(predicted.ns_per_day, 0);
    EXPECT_LE(predicted.lo, predicted.ns_per_day);
    EXPECT_GE(predicted.hi, predicted.ns_per_day);
    EXPECT_NE(models::compare_plot_svg(r).find("<polyline"), std::string::npos);

    request.price = {{"nowhere", 5}};
    EXPECT_THROW(models::compare_hardware(request), InputError);
}

// A user's box (a sweep of --gro/--top files) measured on the machines is a row of
// its own, told apart from generated boxes of its size by its file digest; without
// its files there is nothing to predict from, so unmeasured cells stay empty.
TEST_F(ModelQueries, CompareShowsAUsersBoxMeasuredOnTheMachines) {
    fill();
    db::StoredTrial box;
    {
        db::Store store(db());
        box = store.trials().front();
        box.id = 0;
        box.system = *parse_file_system_id("gro:natoms=24153:files=12f64f67d3226309");
        box.result.ns_per_day = 599.0;
        store.insert_trial(box);
    }
    models::CompareRequest request;
    request.db = db();
    request.hardware = {"hw-test"};
    const models::CompareResult r = models::compare_hardware(request);
    const auto cell = std::find_if(r.cells.begin(), r.cells.end(), [](const models::CompareCell& c) {
        return c.system.from_files();
    });
    ASSERT_NE(cell, r.cells.end());
    EXPECT_TRUE(cell->measured);
    EXPECT_EQ(cell->system.natoms, 24153);
    EXPECT_DOUBLE_EQ(cell->ns_per_day, 599.0);
    // Generated boxes keep their rows; none of them took the box's value.
    for (const models::CompareCell& c : r.cells)
        if (!c.system.from_files()) EXPECT_NE(c.ns_per_day, 599.0);
}

TEST(ModelLookup, SystemsAreCheckedAndNamedAsTyped) {
    EXPECT_EQ(models::checked_system("water", 3000, "3000").natoms, 3000);
    try {
        models::checked_system("water", 3001, "03001");
        FAIL();
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("--natoms: 03001 is not a multiple of 3"), std::string::npos) << e.what();
    }
    EXPECT_THROW(models::checked_system("soup", 3000, "3000"), InputError);
}

}  // namespace
}  // namespace mdtune
