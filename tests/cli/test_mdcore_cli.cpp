// The mdcore executable: bad input exits with code 2 and names the problem; good
// input produces a schema-1 JSON report.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "../common/run_command.h"
#include "../common/temp_dir_test.h"

namespace {

using Result = mdtest::CommandResult;

Result run_mdcore(const std::string& args) { return mdtest::run_command(std::string(MDCORE_BINARY) + " " + args); }

struct BadInput {
    const char* args;
    const char* must_mention;
};

class BadInputs : public ::testing::TestWithParam<BadInput> {};

TEST_P(BadInputs, ExitTwoWithMessage) {
    const BadInput& b = GetParam();
    const Result r = run_mdcore(std::string("run --system lj --natoms 500 --steps 1 ") + b.args);
    EXPECT_EQ(r.exit_code, 2) << b.args << "\n" << r.output;
    EXPECT_NE(r.output.find(b.must_mention), std::string::npos) << b.args << "\n" << r.output;
}

INSTANTIATE_TEST_SUITE_P(
    Cli, BadInputs,
    ::testing::Values(BadInput{"--rc 2.0", "rc"},                      // above half the box
                      BadInput{"--cluster 3x3", "--cluster"},          // unknown shape
                      BadInput{"--steps -5", "--steps"},               // negative steps
                      BadInput{"--natoms 0", "--natoms"},              // zero atoms
                      BadInput{"--nstlist 0", "--nstlist"},            //
                      BadInput{"--dt abc", "--dt"},                    // not a number
                      BadInput{"--threads 0", "--threads"},            //
                      BadInput{"--rlist 0.5", "--rlist"},              // below rc
                      BadInput{"--warmup 10", "--warmup"},             // exceeds steps
                      BadInput{"--bogus 1", "--bogus"},                // unknown flag
                      BadInput{"--simd avx1024", "--simd"},            //
                      BadInput{"--thermostat berendsen", "--thermostat"},
                      BadInput{"--system water2", "--system"},
                      BadInput{"--drift-tolerance -1", "--drift-tolerance"},
                      BadInput{"--density 0", "--density"},
                      BadInput{"--temperature", "--temperature"},      // missing value
                      BadInput{"--nb tpu", "--nb"},
                      BadInput{"--pme gpu", "--pme gpu needs --nb gpu"},
                      BadInput{"--update gpu", "--update gpu needs --nb gpu"},
                      BadInput{"--nb gpu --cluster 4x4", "--cluster 4x4 does not apply with --nb gpu"},
                      BadInput{"--gpu-id -1", "--gpu-id"},
                      BadInput{"--pin sometimes", "--pin: unknown mode 'sometimes'"},
                      BadInput{"--thread-balance maybe", "--thread-balance: unknown value 'maybe'"},
                      BadInput{"--pin-offset -1", "--pin-offset"},
                      BadInput{"--pin on --threads 1 --pin-offset 100000", "--pin on: 1 thread from CPU 100000"}));

// Pinned or not, the report says so and how long each thread waited at barriers.
TEST(Cli, TheReportSaysHowTheThreadsWerePinnedAndHowLongEachWaited) {
    const Result r = run_mdcore("run --system water --nwater 300 --steps 30 --warmup 5 --threads 2 --pin on --json -");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto threads = nlohmann::json::parse(r.output).at("threads");
    EXPECT_EQ(threads.at("pin"), "on");
    EXPECT_TRUE(threads.at("pinned").get<bool>()) << threads.dump();  // CI machines have 2 CPUs or more
    EXPECT_EQ(threads.at("cpus").size(), 2u);
    EXPECT_NE(threads.at("cpus")[0], threads.at("cpus")[1]);
    ASSERT_EQ(threads.at("wait").size(), 2u);
    for (const auto& w : threads.at("wait")) EXPECT_GE(w.get<double>(), 0.0);
    const Result off = run_mdcore("run --system water --nwater 300 --steps 30 --warmup 5 --threads 2 --pin off");
    ASSERT_EQ(off.exit_code, 0) << off.output;
    EXPECT_NE(off.output.find("threads  2, not pinned (--pin off); barrier wait per thread"), std::string::npos)
        << off.output;
}

// --nb gpu where no GPU can run it (this machine, CI): one line naming why, exit 2.
// Where a GPU is present the run goes ahead (exit 0) and the report names it.
TEST(Cli, GpuModeWithoutAGpuIsOneLineAndExitTwo) {
    const Result r = run_mdcore("run --system lj --natoms 500 --steps 2 --nb gpu --json -");
    if (r.output.find("no usable GPU") == std::string::npos) {
        ASSERT_EQ(r.exit_code, 0) << r.output;
        EXPECT_EQ(nlohmann::json::parse(r.output).at("config").at("nb_offload"), "gpu");
        return;
    }
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_EQ(r.output.rfind("mdcore: error: --nb gpu: no usable GPU: ", 0), 0u) << r.output;
    EXPECT_EQ(r.output.find('\n'), r.output.size() - 1) << "more than one line:\n" << r.output;
    // The CPU modes need no driver.
    const Result cpu = run_mdcore("run --system lj --natoms 500 --steps 2 --nb cpu --pme cpu --update cpu --json -");
    ASSERT_EQ(cpu.exit_code, 0) << cpu.output;
    const auto config = nlohmann::json::parse(cpu.output).at("config");
    EXPECT_EQ(config.at("nb_offload"), "cpu");
    EXPECT_EQ(config.at("update_offload"), "cpu");
    EXPECT_FALSE(nlohmann::json::parse(cpu.output).contains("gpu"));
}

// An error is one line naming the problem and where help is, not the whole usage.
TEST(Cli, ErrorIsOneLineWithTheHelpHint) {
    for (const char* args : {"--cluster 3x3", "--bogus 1", "--nstlist 1 --nstlist 2", "--temperature"}) {
        const Result r = run_mdcore(std::string("run --system lj --natoms 500 --steps 1 ") + args);
        EXPECT_EQ(r.exit_code, 2) << args;
        EXPECT_EQ(r.output.rfind("mdcore: error: ", 0), 0u) << r.output;
        EXPECT_EQ(r.output.find('\n'), r.output.size() - 1) << "more than one line:\n" << r.output;
        EXPECT_NE(r.output.find("see `mdcore run --help`"), std::string::npos) << r.output;
    }
    EXPECT_NE(run_mdcore("run --system lj --nstlist 1 --nstlist 2").output.find("--nstlist given twice"), std::string::npos);
}

// Values in messages appear as typed; limits without trailing zeros.
TEST(Cli, NumbersInMessagesAsTyped) {
    const Result r = run_mdcore("run --system lj --natoms 500 --rlist -0");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.output.find("--rlist: -0 must be positive"), std::string::npos) << r.output;
    const Result d = run_mdcore("run --system lj --natoms 500 --density 0.0");
    EXPECT_NE(d.output.find("--density: 0.0 must be above 0 and at most 1000 "), std::string::npos) << d.output;
    EXPECT_EQ(d.output.find("000000"), std::string::npos) << d.output;
    const Result o = run_mdcore("run --system lj --natoms 500 --pme-order 7");
    EXPECT_NE(o.output.find("--pme-order: 7 is not 4, 5 or 6"), std::string::npos) << o.output;
}

// Output paths are judged before the run: exit 2 naming the flag, nothing run.
TEST(Cli, UnwritableOutputsRefusedBeforeTheRun) {
    for (const char* flag : {"--json", "--out-gro", "--dump-forces"}) {
        const Result r = run_mdcore(std::string("run --system lj --natoms 500 --steps 50 ") + flag +
                                    " /nonexistent-mdt-dir/out.txt");
        EXPECT_EQ(r.exit_code, 2) << flag << "\n" << r.output;
        EXPECT_EQ(r.output.rfind(std::string("mdcore: error: ") + flag + ": cannot write", 0), 0u) << r.output;
        EXPECT_EQ(r.output.find("ns/day"), std::string::npos) << "the run happened:\n" << r.output;
    }
    const Result dir = run_mdcore("run --system lj --natoms 500 --steps 1 --out-gro /tmp");
    EXPECT_EQ(dir.exit_code, 2);
    EXPECT_NE(dir.output.find("--out-gro: '/tmp' is a directory"), std::string::npos) << dir.output;
}

// --help on the program and on run; the run's help lists every tunable of the table.
TEST(Cli, HelpOnProgramAndRun) {
    const Result top = run_mdcore("--help");
    EXPECT_EQ(top.exit_code, 0);
    EXPECT_NE(top.output.find("run"), std::string::npos);
    EXPECT_NE(top.output.find("--version"), std::string::npos);
    const Result run = run_mdcore("run --help");
    EXPECT_EQ(run.exit_code, 0) << run.output;
    for (const char* flag : {"--cluster 4x4|4x8|8x4|1x1", "--nstlist N", "--nstprune N", "--rlist NM", "--threads N",
                             "--simd auto|none|avx2|avx512", "--pme-spacing NM", "--pme-grid NXxNYxNZ",
                             "--pme-order 4|5|6", "--pme-scale S", "--system", "--json FILE|-", "--out-gro FILE"})
        EXPECT_NE(run.output.find(flag), std::string::npos) << flag;
    EXPECT_EQ(run_mdcore("").exit_code, 2);
}

TEST(Cli, UnknownCommandExitsTwo) {
    const Result r = run_mdcore("fly");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.output.find("fly"), std::string::npos);
}

TEST(Cli, JsonReportHasSchemaFields) {
    const Result r = run_mdcore("run --system lj --natoms 300 --steps 20 --warmup 5 --threads 1 --json -");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto j = nlohmann::json::parse(r.output);
    EXPECT_EQ(j["schema_version"], 2);
    for (const char* key : {"engine_version", "build", "system", "config", "steps", "warmup", "ns_per_day",
                            "ms_per_step", "timings", "pairlist", "energies", "drift_per_atom_per_ps", "status",
                            "parallel"})
        EXPECT_TRUE(j.contains(key)) << key;
    EXPECT_EQ(j["system"]["natoms"], 300);
    // Without mpirun: one rank, no decomposition.
    EXPECT_EQ(j["config"]["ranks"], 1);
    EXPECT_EQ(j["config"]["dd"], nlohmann::json::array({1, 1, 1}));
    EXPECT_EQ(j["parallel"]["load_imbalance"], 1.0);
    EXPECT_GE(j["config"]["rlist"].get<double>(), j["config"]["rc"].get<double>());
    for (const char* t : {"search", "prune", "nonbonded", "update", "other"}) EXPECT_TRUE(j["timings"].contains(t)) << t;
    EXPECT_GT(j["pairlist"]["efficiency"].get<double>(), 0.0);
    EXPECT_LE(j["pairlist"]["efficiency"].get<double>(), 1.0);
    EXPECT_EQ(j["status"], "ok");
}

// A tuner trial is short: enough energy samples after the warm-up for the drift fit,
// and the start-up transient of a GROMACS-prepared box left out of it (60 steps of
// water-3nm: -0.114 +- 0.017 per atom when fitted from step 0 on three samples).
TEST(Cli, ShortRunsFitTheDriftAfterTheWarmup) {
    const std::string box = std::string(MDT_TEST_DATA_DIR) + "/gromacs/water-3nm/";
    const Result r = run_mdcore("run --gro " + box + "conf.gro --top " + box +
                                "topol.top --steps 60 --warmup 10 --threads 1 --json -");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto j = nlohmann::json::parse(r.output);
    EXPECT_GE(j["energy_samples"].get<long>(), 11);  // every 5 steps: 0, 5, ..., 55 and the last
    EXPECT_LT(std::abs(j["drift_per_atom_per_ps"].get<double>()), j["config"]["drift_tolerance"].get<double>());
    // Given explicitly, the interval is the user's.
    const Result given = run_mdcore("run --gro " + box + "conf.gro --top " + box +
                                    "topol.top --steps 60 --warmup 10 --threads 1 --nstcalcenergy 50 --json -");
    ASSERT_EQ(given.exit_code, 0) << given.output;
    EXPECT_EQ(nlohmann::json::parse(given.output)["energy_samples"], 3);
}

TEST(Cli, StepsZeroEvaluatesOnly) {
    const Result r = run_mdcore("run --system argon --natoms 256 --steps 0 --json -");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto j = nlohmann::json::parse(r.output);
    EXPECT_LT(j["energies"]["start"]["lj"].get<double>(), 0.0);
    EXPECT_EQ(j["energies"]["start"]["lj"], j["energies"]["end"]["lj"]);
}

// --mdp: the .mdp's settings where no flag gives them, the report saying where each
// came from, one warning line for the keys that change nothing, refusals exit 2.
class MdpCli : public mdtest::TempDirTest {
protected:
    const std::string box_ = std::string(MDT_TEST_DATA_DIR) + "/gromacs/water-3nm/";
    std::string files() const { return "run --gro " + box_ + "conf.gro --top " + box_ + "topol.top --threads 1 "; }
    nlohmann::json report(const std::string& name) const {
        std::ifstream in(path(name));
        std::stringstream text;
        text << in.rdbuf();
        return nlohmann::json::parse(text.str());
    }
};

TEST_F(MdpCli, SettingsComeFromTheMdpAndTheReportSaysWhere) {
    const std::string mdp = box_ + "rerun.mdp";  // GROMACS' single point: nsteps 0, a 32^3 grid
    const Result r = run_mdcore(files() + "--mdp " + mdp + " --json " + path("r.json"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("mdp: ignoring keys that do not change the physics: nstenergy, nstfout\n"), std::string::npos)
        << r.output;
    const auto j = report("r.json");
    EXPECT_EQ(j["steps"], 0);
    EXPECT_EQ(j["config"]["pme_grid"], nlohmann::json::array({32, 32, 32}));
    const auto& sources = j.at("setting_sources");
    EXPECT_EQ(sources["steps"], "mdp:" + mdp + ":2");
    EXPECT_EQ(sources["dt"], "mdp:" + mdp + ":3");
    EXPECT_EQ(sources["rc"], "mdp:" + mdp + ":6");
    EXPECT_EQ(sources["pme_grid"], "mdp:" + mdp + ":14");
    EXPECT_EQ(sources["constraints"], "mdp:" + mdp + ":20");
    EXPECT_EQ(sources["temperature"], "default");
    EXPECT_EQ(sources["cluster"], "default");
    EXPECT_EQ(sources["threads"], "flag --threads");
}

TEST_F(MdpCli, FlagsWinOverTheMdp) {
    const std::string mdp = box_ + "rerun.mdp";
    const Result r = run_mdcore(files() + "--mdp " + mdp + " --steps 4 --pme-grid 28x28x28 --json " + path("r.json"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto j = report("r.json");
    EXPECT_EQ(j["steps"], 4);
    EXPECT_EQ(j["config"]["pme_grid"], nlohmann::json::array({28, 28, 28}));
    EXPECT_EQ(j["setting_sources"]["steps"], "flag --steps");
    EXPECT_EQ(j["setting_sources"]["pme_grid"], "flag --pme-grid");
    EXPECT_EQ(j["setting_sources"]["dt"], "mdp:" + mdp + ":3");
}

// nstlist is recorded, not applied: GROMACS takes it as a minimum, mdcore picks its own.
TEST_F(MdpCli, NstlistAndCouplingIntervalsAreRecordedNotApplied) {
    const std::string mdp = write("nvt.mdp",
                                  "integrator = md\ndt = 0.002\nnsteps = 20\nnstlist = 10\ntcoupl = V-rescale\n"
                                  "tc-grps = System\ntau-t = 0.5\nref-t = 310\nnsttcouple = 10\nld-seed = 7\nnstcalcenergy = 100\n");
    const Result r = run_mdcore(files() + "--mdp " + mdp + " --json " + path("r.json"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output.find("mdp: ignoring"), std::string::npos) << r.output;
    const auto j = report("r.json");
    EXPECT_EQ(j["config"]["thermostat"], "v-rescale");
    EXPECT_EQ(j["config"]["temperature"], 310.0);
    const auto& sources = j.at("setting_sources");
    EXPECT_EQ(sources["thermostat"], "mdp:" + mdp + ":5");
    EXPECT_EQ(sources["tau_t"], "mdp:" + mdp + ":7");
    EXPECT_EQ(sources["seed"], "mdp:" + mdp + ":10");
    EXPECT_EQ(sources["nstlist"].get<std::string>().rfind("default (mdp:" + mdp + ":4 nstlist = 10 not applied", 0), 0u)
        << sources["nstlist"];
    EXPECT_EQ(sources["nsttcouple"].get<std::string>().rfind("default (mdp:" + mdp + ":9", 0), 0u);
    // 20 steps: the .mdp's interval is lowered for 10 energy samples, and the source says so.
    EXPECT_EQ(sources["nstcalcenergy"],
              "mdp:" + mdp + ":11 (100, lowered to 2 for 10 energy samples in this short run)");
}

TEST_F(MdpCli, RefusedSettingsExitTwoNamingKeyValueAndLine) {
    const std::string mdp = write("npt.mdp", "dt = 0.002\n; NPT\npcoupl = C-rescale\n");
    const Result r = run_mdcore(files() + "--mdp " + mdp);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_EQ(r.output.rfind("mdcore: error: " + mdp + ":3: pcoupl = C-rescale: pressure coupling is not supported yet", 0), 0u)
        << r.output;
    EXPECT_EQ(r.output.find('\n'), r.output.size() - 1) << r.output;
    const Result unknown = run_mdcore(files() + "--mdp " + write("u.mdp", "nstlistt = 10\n"));
    EXPECT_EQ(unknown.exit_code, 2);
    EXPECT_NE(unknown.output.find("u.mdp:1: nstlistt = 10: unknown .mdp key"), std::string::npos) << unknown.output;
    const Result dir = run_mdcore(files() + "--mdp " + path(""));
    EXPECT_EQ(dir.exit_code, 2);
    EXPECT_NE(dir.output.find("not a regular file"), std::string::npos) << dir.output;
    const Result generated = run_mdcore("run --system lj --natoms 500 --steps 1 --mdp " + mdp);
    EXPECT_EQ(generated.exit_code, 2);
    EXPECT_NE(generated.output.find("--mdp applies to a --gro/--top system"), std::string::npos) << generated.output;
    const Result include = run_mdcore("run --system lj --natoms 500 --steps 1 --include /tmp");
    EXPECT_EQ(include.exit_code, 2);
    EXPECT_NE(include.output.find("--include applies to a --gro/--top system"), std::string::npos) << include.output;
}

TEST_F(MdpCli, IncludeFoldersComeBeforeTheMdps) {
    const std::string mdp = write("inc.mdp", "nsteps = 0\ninclude = -I/usr\ndefine = -DPOSRES\n");
    const Result r = run_mdcore(files() + "--mdp " + mdp + " --include " + path("") + " --include /tmp --json " + path("r.json"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto j = report("r.json");
    EXPECT_EQ(j["setting_sources"]["include_dirs"], "flag --include, mdp:" + mdp + ":2");
    EXPECT_EQ(j["setting_sources"]["defines"], "mdp:" + mdp + ":3");
}

}  // namespace
