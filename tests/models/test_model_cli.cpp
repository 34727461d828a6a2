// mdtune fit / predict / compare as users run them, on a database of synthetic
// trials (no MD): clear errors on empty databases and bad flags, the CV table,
// predictions that respect the machine, the procurement table and plot.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "model_test_util.h"
#include "mdtune/db/model_store.h"
#include "../common/run_command.h"

namespace mdtune {
namespace {

namespace fs = std::filesystem;

using Result = mdtest::CommandResult;

Result run(const std::string& args) { return mdtest::run_command(std::string(MDTUNE_BINARY) + " " + args); }

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

class ModelCli : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("mdtune_model_cli_" + std::to_string(getpid()) + "_" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override {
        if (!std::getenv("MDT_KEEP_TEST_DIR")) fs::remove_all(dir_);
    }
    std::string db() const { return (dir_ / "trials.db").string(); }
    void fill(double noise = 0.03) {
        db::Store store(db());
        const auto hw = test::test_hardware();
        store.put_hardware(hw.id, test::hardware_json(hw));
        test::SyntheticSpec spec;
        spec.noise = noise;
        for (db::StoredTrial t : test::synthetic_trials(hw, spec)) {
            t.id = 0;
            store.insert_trial(t);
        }
    }
    fs::path dir_;
};

TEST_F(ModelCli, FitOnAMissingOrEmptyDatabaseFailsClearly) {
    Result r = run("fit --db " + db());
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(contains(r.output, "no such database")) << r.output;
    EXPECT_FALSE(fs::exists(db()));  // reading never creates a file
    { db::Store store(db()); }
    r = run("fit --db " + db());
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(contains(r.output, "need at least 10 ok trials to fit a model, found 0")) << r.output;
    r = run("predict --db " + db() + " --system water --natoms 3000");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(contains(r.output, "no model in")) << r.output;
}

TEST_F(ModelCli, BadFlagsAreUsageErrors) {
    { db::Store store(db()); }
    EXPECT_EQ(run("fit --db " + db() + " --model forest").exit_code, 2);
    EXPECT_EQ(run("predict --db " + db() + " --system soup --natoms 3000").exit_code, 2);
    EXPECT_EQ(run("predict --db " + db() + " --system water --natoms 3001").exit_code, 2);
    EXPECT_EQ(run("predict --db " + db() + " --system water").exit_code, 2);
    EXPECT_EQ(run("predict --db " + db() + " --system water --natoms 3000 --hardware hw-nowhere").exit_code, 2);
    EXPECT_EQ(run("compare --db " + db()).exit_code, 2);
}

TEST_F(ModelCli, FitPredictAndCompare) {
    fill();
    Result r = run("fit --db " + db());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "cross-validation, leave one size")) << r.output;
    for (const char* kind : {"ridge", "cost", "knn"}) EXPECT_TRUE(contains(r.output, kind)) << r.output;
    EXPECT_TRUE(contains(r.output, "stored as model #1")) << r.output;
    {
        const db::Store store(db(), db::Store::Mode::ReadOnly);
        ASSERT_TRUE(db::ModelStore(store).latest());
    }

    r = run("predict --db " + db() + " --system water --natoms 6000 --hardware hw-test --top 3");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "run it   mdcore run --system water --nwater 2000")) << r.output;
    EXPECT_TRUE(contains(r.output, "gmx mdrun -ntmpi 1 -ntomp")) << r.output;
    EXPECT_TRUE(contains(r.output, "fourierspacing")) << r.output;

    r = run("predict --db " + db() + " --system water --natoms 6000 --hardware hw-test --top 4 --json");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto j = nlohmann::json::parse(r.output);
    ASSERT_EQ(j.at("ranked").size(), 4u);
    double last = 0;
    for (const auto& c : j.at("ranked")) {
        const Config cfg = Config::from_canonical(c.at("config").get<std::string>());
        EXPECT_LE(std::get<long>(*cfg.get(Param::Threads)), 4);  // hw-test has 4 hardware threads
        EXPECT_GE(c.at("ms_per_step").get<double>(), last);
        last = c.at("ms_per_step").get<double>();
        EXPECT_LE(c.at("ms_per_step_interval")[0].get<double>(), last);
        EXPECT_GE(c.at("ms_per_step_interval")[1].get<double>(), last);
    }

    const std::string svg = (dir_ / "plot.svg").string();
    r = run("compare --db " + db() + " --hardware hw-test --systems water:3000,water:12000 --price hw-test=5000 "
            "--watts hw-test=250 --plot " + svg);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "measured")) << r.output;   // 3,000 atoms were run
    EXPECT_TRUE(contains(r.output, "predicted")) << r.output;  // 12,000 were not
    std::ifstream in(svg);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_TRUE(contains(text.str(), "<polyline")) << text.str().substr(0, 200);
    EXPECT_EQ(run("compare --db " + db() + " --hardware hw-test --price nowhere=5").exit_code, 2);
}

TEST_F(ModelCli, HoldoutSizesAreScoredNotFitted) {
    fill();
    const Result r = run("fit --db " + db() + " --model cost --holdout-natoms 6000");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "held-out sizes (never in fitting)")) << r.output;
    EXPECT_TRUE(contains(r.output, "water:natoms=6000")) << r.output;
    const db::Store store(db(), db::Store::Mode::ReadOnly);
    const auto row = db::ModelStore(store).latest();
    ASSERT_TRUE(row);
    const auto ids = nlohmann::json::parse(row->training_trial_ids_json).get<std::vector<long>>();
    for (const db::StoredTrial& t : store.trials())
        if (t.system.natoms == 6000) EXPECT_EQ(std::count(ids.begin(), ids.end(), t.id), 0);
}

}  // namespace
}  // namespace mdtune
