// How the tuner starts a trial: mdcore alone for one rank, mpirun -np R bound to
// the rank's cores (or unbound when oversubscribed, with root's flag when root),
// srun inside Slurm, a user's --launcher verbatim.
#include <gtest/gtest.h>

#include "mdtune/tuner/launch.h"

namespace mdtune::tuner {
namespace {

using Words = std::vector<std::string>;

Config ranks(long r, long threads = 0) {
    Config c;
    c.set(Param::Ranks, r);
    if (threads) c.set(Param::Threads, threads);
    return c;
}

TEST(Launch, OneRankRunsMdcoreDirectly) {
    LaunchPolicy p;
    p.cores = 4;
    EXPECT_EQ(launch_prefix(p, Config{}), Words{});
    EXPECT_EQ(launch_prefix(p, ranks(1)), Words{});
}

TEST(Launch, MoreRanksRunUnderMpirunBoundToTheirCores) {
    LaunchPolicy p;
    p.cores = 8;
    EXPECT_EQ(launch_prefix(p, ranks(2)), (Words{"mpirun", "-np", "2", "--map-by", "slot:PE=4", "--bind-to", "core"}));
    EXPECT_EQ(launch_prefix(p, ranks(4, 1)), (Words{"mpirun", "-np", "4", "--map-by", "slot:PE=1", "--bind-to", "core"}));
    p.root = true;
    p.oversubscribe = true;
    EXPECT_EQ(launch_prefix(p, ranks(16, 1)),
              (Words{"mpirun", "-np", "16", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none"}));
}

TEST(Launch, InsideSlurmEveryTrialIsAJobStep) {
    LaunchPolicy p;
    p.cores = 16;
    p.nodes = 2;
    p.in_slurm = true;
    EXPECT_EQ(launch_prefix(p, Config{}), (Words{"srun", "--nodes=1", "--ntasks=1", "--cpus-per-task=16"}));
    EXPECT_EQ(launch_prefix(p, ranks(4, 2)), (Words{"srun", "--nodes=2", "--ntasks=4", "--cpus-per-task=2"}));
}

TEST(Launch, AGivenLauncherIsUsedVerbatim) {
    LaunchPolicy p;
    p.fixed = {"mpirun", "-np", "2", "-x", "A=b c"};
    EXPECT_EQ(launch_prefix(p, ranks(2)), p.fixed);
    EXPECT_EQ(launch_prefix(p, Config{}), p.fixed);
}

}  // namespace
}  // namespace mdtune::tuner
