// The peer comparison scripts (and dd_scaling.sh and gpu_modes.sh, built on the same helpers)
// take their settings from the environment only:
// --help prints the header comment and runs nothing; any argument is refused
// with exit 2 instead of being silently ignored (a long benchmark run started
// with settings the user believed were applied).
#include <gtest/gtest.h>

#include <string>

#include "../common/run_command.h"

namespace {

const std::string kBenchmarks = PEER_SCRIPTS_DIR;

class PeerScripts : public ::testing::TestWithParam<std::string> {};

TEST_P(PeerScripts, HelpPrintsTheHeaderCommentAndRunsNothing) {
    const std::string script = GetParam();
    const auto r = mdtest::run_command("bash " + kBenchmarks + "/" + script + " --help");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    if (script.rfind("peer_", 0) == 0) EXPECT_EQ(r.output.rfind("Peer comparison on ", 0), 0u) << r.output;
    EXPECT_NE(r.output.find("Usage: benchmarks/" + script + " [--help]"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("Exit status: 0 ok;"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("set -euo"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("\n#"), std::string::npos) << r.output;  // comment markers stripped
}

TEST_P(PeerScripts, AnUnknownArgumentIsRefusedWithExit2) {
    const std::string script = GetParam();
    const std::string name = script.substr(0, script.size() - 3);
    const auto r = mdtest::run_command("bash " + kBenchmarks + "/" + script + " --repeats 3");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_EQ(r.output, name + ": unknown argument '--repeats' (settings are environment variables; see " + script +
                            " --help)\n");
}

INSTANTIATE_TEST_SUITE_P(All, PeerScripts,
                         ::testing::Values("peer_lammps_lj.sh", "peer_lammps_water.sh", "peer_gromacs_water.sh",
                                           "gpu_modes.sh", "dd_scaling.sh"));

}  // namespace
