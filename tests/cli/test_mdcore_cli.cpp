// The mdcore executable: bad input exits with code 2 and names the problem; good
// input produces a schema-1 JSON report.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "../common/run_command.h"

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
                      BadInput{"--temperature", "--temperature"}));    // missing value

TEST(Cli, UnknownCommandExitsTwo) {
    const Result r = run_mdcore("fly");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.output.find("fly"), std::string::npos);
}

TEST(Cli, JsonReportHasSchemaFields) {
    const Result r = run_mdcore("run --system lj --natoms 300 --steps 20 --warmup 5 --threads 1 --json -");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto j = nlohmann::json::parse(r.output);
    EXPECT_EQ(j["schema_version"], 1);
    for (const char* key : {"engine_version", "build", "system", "config", "steps", "warmup", "ns_per_day",
                            "ms_per_step", "timings", "pairlist", "energies", "drift_per_atom_per_ps", "status"})
        EXPECT_TRUE(j.contains(key)) << key;
    EXPECT_EQ(j["system"]["natoms"], 300);
    EXPECT_GE(j["config"]["rlist"].get<double>(), j["config"]["rc"].get<double>());
    for (const char* t : {"search", "prune", "nonbonded", "update", "other"}) EXPECT_TRUE(j["timings"].contains(t)) << t;
    EXPECT_GT(j["pairlist"]["efficiency"].get<double>(), 0.0);
    EXPECT_LE(j["pairlist"]["efficiency"].get<double>(), 1.0);
    EXPECT_EQ(j["status"], "ok");
}

TEST(Cli, StepsZeroEvaluatesOnly) {
    const Result r = run_mdcore("run --system argon --natoms 256 --steps 0 --json -");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto j = nlohmann::json::parse(r.output);
    EXPECT_LT(j["energies"]["start"]["lj"].get<double>(), 0.0);
    EXPECT_EQ(j["energies"]["start"]["lj"], j["energies"]["end"]["lj"]);
}

}  // namespace
