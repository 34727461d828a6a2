// How a config becomes grompp settings and mdrun flags, and GROMACS' static rules.
#include <gtest/gtest.h>

#include "mdtune/gromacs/gromacs_config.h"
#include "mdtune/gromacs/mdp_edit.h"

namespace mdtune::gromacs {
namespace {

const char* kMdp =
    "integrator = md\n"
    "rcoulomb    = 1.1 ; the cut-off\n"
    "rvdw = 1.0\n"
    "fourierspacing = 0.125\n"
    "fourier_nx = 48\n"
    "nstcalcenergy = 50\n";

std::string setting(const MdpSettings& s, const std::string& key) {
    for (const auto& [k, v] : s)
        if (k == key) return v;
    return "<unset>";
}

TEST(MdpEdit, ReadsValuesAsGromppDoes) {
    EXPECT_EQ(mdp_value(kMdp, "rcoulomb"), "1.1");
    EXPECT_EQ(mdp_value(kMdp, "fourierspacing"), "0.125");
    EXPECT_EQ(mdp_value(kMdp, "fourier-spacing"), std::nullopt);  // a different key
    EXPECT_EQ(mdp_value(kMdp, "Fourier-nx"), "48");               // '-' and '_' are one character
    EXPECT_EQ(mdp_value(kMdp, "nstlist"), std::nullopt);
}

TEST(MdpEdit, AppliedSettingsReplaceTheirLines) {
    const std::string out = apply_mdp_settings(kMdp, {{"rcoulomb", "1.2"}, {"nstlog", "50"}});
    EXPECT_EQ(mdp_value(out, "rcoulomb"), "1.2");
    EXPECT_EQ(mdp_value(out, "nstlog"), "50");
    EXPECT_EQ(mdp_value(out, "rvdw"), "1.0");
    EXPECT_NE(out.find("; set by mdtune: rcoulomb    = 1.1"), std::string::npos);
    // Every key set once: what grompp needs.
    std::size_t count = 0;
    for (std::size_t at = 0; (at = out.find("\nrcoulomb", at)) != std::string::npos; ++at) ++count;
    EXPECT_EQ(count, 1u);
    EXPECT_EQ(apply_mdp_settings(kMdp, {}), std::string(kMdp));
}

TEST(GromacsConfig, PmeScaleScalesCutoffAndSpacingTogether) {
    Config c;
    c.set(Param::PmeScale, 1.2);
    const MdpSettings s = grompp_settings(c, kMdp);
    EXPECT_EQ(setting(s, "rcoulomb"), "1.32");
    EXPECT_EQ(setting(s, "fourierspacing"), "0.15");
    EXPECT_EQ(setting(s, "fourier-nx"), "0");  // the spacing rules, not the .mdp's fixed grid
    EXPECT_TRUE(grompp_settings(Config{}, kMdp).empty());
    Config one;
    one.set(Param::PmeScale, 1.0);
    EXPECT_TRUE(grompp_settings(one, kMdp).empty());  // the .mdp as it is: one prepared input with the default
}

TEST(GromacsConfig, GridOrderAndSpacing) {
    Config c;
    c.set(Param::PmeGrid, std::string("32x32x40"));
    c.set(Param::PmeOrder, 5L);
    const MdpSettings s = grompp_settings(c, kMdp);
    EXPECT_EQ(setting(s, "fourier-nx"), "32");
    EXPECT_EQ(setting(s, "fourier-nz"), "40");
    EXPECT_EQ(setting(s, "pme-order"), "5");
    Config spacing;
    spacing.set(Param::PmeSpacing, 0.14);
    EXPECT_EQ(setting(grompp_settings(spacing, kMdp), "fourierspacing"), "0.14");
}

TEST(GromacsConfig, MdrunFlags) {
    Config c;
    c.set(Param::Ranks, 4L);
    c.set(Param::Threads, 2L);
    c.set(Param::Npme, 1L);
    c.set(Param::Dd, std::string("3x1x1"));
    c.set(Param::Nstlist, 80L);
    c.set(Param::NbOffload, std::string("gpu"));
    const std::vector<std::string> tmpi = mdrun_flags(c, true);
    EXPECT_EQ(tmpi, (std::vector<std::string>{"-ntmpi", "4", "-ntomp", "2", "-npme", "1", "-dd", "3", "1", "1",
                                              "-nstlist", "80", "-nb", "gpu"}));
    const std::vector<std::string> mpi = mdrun_flags(c, false);  // mpirun starts the ranks
    EXPECT_EQ(mpi.front(), "-ntomp");
    EXPECT_TRUE(mdrun_flags(Config{}, true).empty());
}

TEST(GromacsConfig, OnlyTheSharedTunables) {
    EXPECT_TRUE(has_tunable(Param::Threads));
    EXPECT_TRUE(has_tunable(Param::PmeScale));
    EXPECT_FALSE(has_tunable(Param::Cluster));
    EXPECT_FALSE(has_tunable(Param::Simd));
    EXPECT_FALSE(has_tunable(Param::Rlist));
    EXPECT_NE(tunable_names().find("nstlist"), std::string::npos);
}

TEST(GromacsConfig, StaticRules) {
    GmxBuild cpu;
    cpu.version = "2022.5";
    cpu.gpu_support = "disabled";
    Config gpu;
    gpu.set(Param::NbOffload, std::string("gpu"));
    EXPECT_NE(infeasible_reason(gpu, cpu, kMdp).find("GPU support disabled"), std::string::npos);
    GmxBuild cuda = cpu;
    cuda.gpu_support = "CUDA";
    EXPECT_EQ(infeasible_reason(gpu, cuda, kMdp), "");
    Config pme_alone;
    pme_alone.set(Param::PmeOffload, std::string("gpu"));
    pme_alone.set(Param::NbOffload, std::string("cpu"));
    EXPECT_NE(infeasible_reason(pme_alone, cuda, kMdp).find("-nb gpu"), std::string::npos);
    Config shrink;
    shrink.set(Param::PmeScale, 0.8);  // rcoulomb 0.88 below rvdw 1.0
    EXPECT_NE(infeasible_reason(shrink, cpu, kMdp).find("below rvdw"), std::string::npos);
    Config grow;
    grow.set(Param::PmeScale, 0.95);  // 1.045 >= 1.0
    EXPECT_EQ(infeasible_reason(grow, cpu, kMdp), "");
    Config pme_ranks;
    pme_ranks.set(Param::Ranks, 2L);
    pme_ranks.set(Param::Npme, 2L);
    EXPECT_NE(infeasible_reason(pme_ranks, cpu, kMdp).find("no particle-particle rank"), std::string::npos);
    Config cluster;
    cluster.set(Param::Cluster, std::string("4x8"));
    EXPECT_NE(infeasible_reason(cluster, cpu, kMdp).find("no tunable cluster"), std::string::npos);
}

}  // namespace
}  // namespace mdtune::gromacs
