// mdtune fit / predict / compare as users run them, on a database of synthetic
// trials (no MD): clear errors on empty databases and bad flags, the CV table,
// predictions that respect the machine, the procurement table and plot.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "model_test_util.h"
#include "mdtune/db/model_store.h"
#include "../common/file_text.h"
#include "../common/run_command.h"
#include "../common/temp_dir_test.h"

namespace mdtune {
namespace {

namespace fs = std::filesystem;

using Result = mdtest::CommandResult;

Result run(const std::string& args) { return mdtest::run_command(std::string(MDTUNE_BINARY) + " " + args); }

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

class ModelCli : public mdtest::TempDirTest {
protected:
    std::string db() const { return path("trials.db"); }
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
};

TEST_F(ModelCli, FitOnAMissingOrEmptyDatabaseFailsClearly) {
    // A missing file is bad input named as show and db export name it: exit 2.
    for (const std::string& cmd : {"fit --db " + db(), "predict --db " + db() + " --system water --natoms 3000",
                                   "show --db " + db()}) {
        const Result missing = run(cmd);
        EXPECT_EQ(missing.exit_code, 2) << cmd << ": " << missing.output;
        EXPECT_TRUE(contains(missing.output, "mdtune: database error: " + db() + ": no such database file"))
            << missing.output;
        EXPECT_EQ(std::count(missing.output.begin(), missing.output.end(), '\n'), 1) << missing.output;
    }
    Result r;
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

    r = run("predict --db " + db() + " --system water --natoms 6000 --hardware hw-test --top-k 3");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "run it   mdcore run --system water --nwater 2000")) << r.output;
    EXPECT_TRUE(contains(r.output, "gmx mdrun -ntmpi 1 -ntomp")) << r.output;
    EXPECT_TRUE(contains(r.output, "fourierspacing")) << r.output;

    r = run("predict --db " + db() + " --system water --natoms 6000 --hardware hw-test --top-k 4 --json");
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

    const std::string svg = path("plot.svg");
    r = run("compare --db " + db() + " --hardware hw-test --systems water:3000,water:12000 --price hw-test=5000 "
            "--watts hw-test=250 --plot " + svg);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "measured")) << r.output;   // 3,000 atoms were run
    EXPECT_TRUE(contains(r.output, "predicted")) << r.output;  // 12,000 were not
    const std::string text = mdtest::file_text(svg);
    EXPECT_TRUE(contains(text, "<polyline")) << text.substr(0, 200);
    EXPECT_EQ(run("compare --db " + db() + " --hardware hw-test --price nowhere=5").exit_code, 2);
}

// --space: only the space's configs are ranked; nstlist 80 was never measured (the
// synthetic trials ran 10-40), so it is marked and ranked after the covered one.
TEST_F(ModelCli, PredictWithinAUsersSpace) {
    fill();
    ASSERT_EQ(run("fit --db " + db() + " --model knn").exit_code, 0);
    const std::string space = path("mine.toml");
    std::ofstream(space) << "[system]\nkind = \"water\"\nnatoms = [3000]\n[space]\ncluster = [\"4x8\"]\n"
                            "nstlist = [80, 10]\nthreads = [2]\n";
    Result r = run("predict --db " + db() + " --system water --natoms 6000 --hardware hw-test --json --space " + space);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto j = nlohmann::json::parse(r.output);
    ASSERT_EQ(j.at("ranked").size(), 2u) << r.output;
    EXPECT_EQ(j["ranked"][0]["config"], "cluster=4x8;nstlist=10;threads=2");
    EXPECT_TRUE(j["ranked"][0]["uncovered"].empty());
    EXPECT_EQ(j["ranked"][1]["config"], "cluster=4x8;nstlist=80;threads=2");
    EXPECT_TRUE(j["ranked"][1]["extrapolated"].get<bool>());
    EXPECT_EQ(j["ranked"][1]["uncovered"][0], "nstlist = 80 (trained 10 - 40)");
    r = run("predict --db " + db() + " --system water --natoms 6000 --space " + path("missing.toml"));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(contains(r.output, "--space")) << r.output;
    std::ofstream(space) << "[system]\nkind = \"water\"\nnatoms = [3000]\n[space]\nnstlist = [10]\nwarp = [1]\n";
    r = run("predict --db " + db() + " --system water --natoms 6000 --space " + space);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(contains(r.output, "warp")) << r.output;
}

// --gro/--top: the user's own box, described from the files.
TEST_F(ModelCli, PredictForAUsersOwnBox) {
    fill();
    ASSERT_EQ(run("fit --db " + db() + " --model cost").exit_code, 0);
    const std::string data = std::string(MDT_TEST_DATA_DIR) + "/gromacs/water-3nm/";
    const std::string files = " --gro " + data + "conf.gro --top " + data + "topol.top";
    Result r = run("predict --db " + db() + " --hardware hw-test --json --top-k 2" + files);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto j = nlohmann::json::parse(r.output);
    EXPECT_EQ(j.at("system").get<std::string>().rfind("gro:natoms=2652:files=", 0), 0u) << j.at("system");
    EXPECT_EQ(j.at("natoms"), 2652);
    ASSERT_EQ(j.at("ranked").size(), 2u);
    EXPECT_TRUE(contains(j["ranked"][0]["mdcore"].get<std::string>(), "--gro " + data + "conf.gro --top ")) << r.output;
    EXPECT_TRUE(j["ranked"][0]["extrapolated"].get<bool>());  // a system kind the model never saw
    // --topol, the former name of --top, still reads the topology and says so once.
    r = run("predict --db " + db() + " --hardware hw-test --top-k 2 --gro " + data + "conf.gro --topol " + data +
            "topol.top");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "mdtune: note: --topol is now --top (the topology, as in mdcore run)")) << r.output;
    r = run("predict --db " + db() + files + " --topol " + data + "topol.top");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(contains(r.output, "--topol is the former name of --top: give one of them")) << r.output;
    std::ofstream(path("bad.top")) << "[ defaults ]\n1 2 no 1.0 1.0\n[ bonds ]\n";
    r = run("predict --db " + db() + " --gro " + data + "conf.gro --top " + path("bad.top"));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(contains(r.output, "bad.top")) << r.output;
    EXPECT_EQ(run("predict --db " + db() + " --system water --natoms 3000" + files).exit_code, 2);
    EXPECT_EQ(run("predict --db " + db() + " --gro " + data + "conf.gro").exit_code, 2);
    // A device is no .gro: refused at once, not read until memory runs out.
    r = run("predict --db " + db() + " --gro /dev/zero --top " + data + "topol.top");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(contains(r.output, "--gro: /dev/zero: cannot read the file: it is not a regular file")) << r.output;
}

// --mdp with --gro/--topol: a protein described as mdcore run --mdp runs it.
TEST_F(ModelCli, PredictForAProteinWithItsMdp) {
    if (!fs::exists("/usr/share/gromacs/top/charmm27.ff"))
        GTEST_SKIP() << "/usr/share/gromacs/top/charmm27.ff is not installed (GROMACS' data)";
    fill();
    ASSERT_EQ(run("fit --db " + db() + " --model cost").exit_code, 0);
    const std::string data = std::string(MDT_TEST_DATA_DIR) + "/topologies/charmm27/";
    const std::string files = " --gro " + data + "conf.gro --top " + data + "topol.top";
    const std::string mdp = path("md.mdp");
    std::ofstream(mdp) << "integrator = md\ndt = 0.002\nrcoulomb = 1.1\nrvdw = 1.1\nfourierspacing = 0.15\n"
                          "constraints = h-bonds\n";
    Result r = run("predict --db " + db() + " --hardware hw-test --json --top-k 2" + files + " --mdp " + mdp);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    auto j = nlohmann::json::parse(r.output);
    EXPECT_EQ(j.at("system").get<std::string>().rfind("gro:natoms=2644:files=", 0), 0u) << j.at("system");
    const std::string with_mdp = j.at("system");
    const auto& best = j.at("ranked").at(0);
    EXPECT_TRUE(contains(best.at("mdcore").get<std::string>(), "--top " + data + "topol.top --mdp " + mdp)) << r.output;
    EXPECT_EQ(best["gromacs"]["mdp"]["rvdw"], "1.1");  // the .mdp's cut-off
    EXPECT_TRUE(contains(best["gromacs"]["notes"].dump(), "LINCS constraints")) << r.output;
    // Another system than the same files without it.
    r = run("predict --db " + db() + " --hardware hw-test --json --top-k 2" + files);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(nlohmann::json::parse(r.output).at("system"), with_mdp);

    // A refused key: one line naming FILE:LINE, exit 2.
    std::ofstream(path("bad.mdp")) << "dt = 0.002\nwarp-drive = yes\n";
    r = run("predict --db " + db() + " --hardware hw-test" + files + " --mdp " + path("bad.mdp"));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(contains(r.output, path("bad.mdp") + ":2:")) << r.output;
    EXPECT_TRUE(contains(r.output, "warp-drive")) << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
    r = run("predict --db " + db() + " --system water --natoms 3000 --mdp " + mdp);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(contains(r.output, "--mdp needs --gro and --top")) << r.output;
}

TEST_F(ModelCli, HoldoutSizesAreScoredNotFitted) {
    fill();
    const Result r = run("fit --db " + db() + " --model cost --holdout-natoms 6000");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "held-out sizes and kinds (never in fitting)")) << r.output;
    EXPECT_TRUE(contains(r.output, "water:natoms=6000")) << r.output;
    const db::Store store(db(), db::Store::Mode::ReadOnly);
    const auto row = db::ModelStore(store).latest();
    ASSERT_TRUE(row);
    const auto ids = nlohmann::json::parse(row->training_trial_ids_json).get<std::vector<long>>();
    for (const db::StoredTrial& t : store.trials())
        if (t.system.natoms == 6000) EXPECT_EQ(std::count(ids.begin(), ids.end(), t.id), 0);
}

TEST_F(ModelCli, HoldoutKindsAreScoredNotFittedAndUnknownKindsAreRefused) {
    fill();
    Result r = run("fit --db " + db() + " --model cost --holdout-kinds lj");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "held-out sizes and kinds (never in fitting)")) << r.output;
    EXPECT_TRUE(contains(r.output, "lj:natoms=")) << r.output;
    {
        const db::Store store(db(), db::Store::Mode::ReadOnly);
        const auto row = db::ModelStore(store).latest();
        ASSERT_TRUE(row);
        const auto ids = nlohmann::json::parse(row->training_trial_ids_json).get<std::vector<long>>();
        for (const db::StoredTrial& t : store.trials())
            if (t.system.kind == mdcore::SystemKind::Lj) EXPECT_EQ(std::count(ids.begin(), ids.end(), t.id), 0);
    }
    r = run("fit --db " + db() + " --holdout-kinds watr");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(contains(r.output, "--holdout-kinds: 'watr' is not a system kind")) << r.output;
    r = run("fit --db " + db() + " --holdout-kinds water-ions");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(contains(r.output, "no ok trials of kind 'water-ions'")) << r.output;
}

}  // namespace
}  // namespace mdtune
