// [engine] in a space: which engine, its program, and what it refuses before
// anything runs (a tunable the engine does not have, a system it cannot run).
#include <gtest/gtest.h>

#include "mdtune/tuner/space.h"

namespace mdtune::tuner {
namespace {

const std::string kBox = std::string(MDT_TEST_DATA_DIR) + "/gromacs/water-3nm-md/";

std::string files_system() {
    return "[system]\ngro = \"" + kBox + "conf.gro\"\ntop = \"" + kBox + "topol.top\"\nmdp = \"" + kBox + "md.mdp\"\n";
}

std::string error_of(const std::string& toml) {
    try {
        parse_space(toml, "space.toml");
    } catch (const SpaceError& e) {
        return e.what();
    }
    return "";
}

TEST(EngineSpace, DefaultIsMdcore) {
    const SearchSpace s = parse_space("[system]\nkind = \"lj\"\nnatoms = 1000\n[space]\ncluster = [\"4x4\"]\n", "s");
    EXPECT_EQ(s.engine.kind, EngineKind::Mdcore);
    EXPECT_TRUE(s.engine.program.empty());
}

TEST(EngineSpace, GromacsWithItsTunables) {
    const SearchSpace s = parse_space("[engine]\nname = \"gromacs\"\nprogram = \"gmx_mpi\"\ngrompp_maxwarn = 1\n" +
                                          files_system() + "[space]\nranks = [1, 2]\nnstlist = [20, 40]\npme_scale = [1.0, 1.1]\n",
                                      "s");
    EXPECT_EQ(s.engine.kind, EngineKind::Gromacs);
    EXPECT_EQ(s.engine.program, "gmx_mpi");
    EXPECT_EQ(s.engine.grompp_maxwarn, 1);
    EXPECT_EQ(s.config_count(), 8u);
}

TEST(EngineSpace, RefusalsNameTheKeyAndLine) {
    const std::string gromacs = "[engine]\nname = \"gromacs\"\n";
    std::string e = error_of(gromacs + files_system() + "[space]\nthreads = [1]\ncluster = [\"4x8\"]\n");
    EXPECT_NE(e.find("[space] 'cluster': engine gromacs has no such tunable (it has threads, ranks"), std::string::npos) << e;
    EXPECT_NE(e.find("line 9"), std::string::npos) << e;
    e = error_of(gromacs + "[system]\nkind = \"water\"\nnatoms = 3000\n");
    EXPECT_NE(e.find("engine gromacs runs a GROMACS input: give gro, top and mdp"), std::string::npos) << e;
    e = error_of("[engine]\nname = \"lammps\"\n" + files_system());
    EXPECT_NE(e.find("[engine] name: unknown engine 'lammps' (mdcore, gromacs)"), std::string::npos) << e;
    e = error_of("[engine]\nname = \"gromacs\"\nthreads = 2\n" + files_system());
    EXPECT_NE(e.find("[engine] unknown key 'threads'"), std::string::npos) << e;
    e = error_of("[engine]\ngrompp_maxwarn = 2\n" + files_system());
    EXPECT_NE(e.find("grompp_maxwarn applies to engine gromacs"), std::string::npos) << e;
    e = error_of("[engine]\nname = \"gromacs\"\ngrompp_maxwarn = -1\n" + files_system());
    EXPECT_NE(e.find("grompp_maxwarn: -1 must be 0 to 100"), std::string::npos) << e;
}

TEST(EngineSpace, EngineRulesJoinTheMachineRules) {
    SearchSpace s = parse_space("[engine]\nname = \"gromacs\"\n" + files_system() + "[space]\nnstlist = [20, 40]\n", "s");
    HardwareCaps caps;
    caps.cores = 2;
    Config c;
    c.set(Param::Nstlist, 20L);
    EXPECT_EQ(s.infeasible_reason(s.systems[0], c, caps), "");
    s.engine_rules = [](const SystemDescriptor&, const Config& config) {
        return config.value<long>(Param::Nstlist) == 20L ? std::string("refused by the engine") : std::string();
    };
    EXPECT_EQ(s.infeasible_reason(s.systems[0], c, caps), "refused by the engine");
    // mdcore's own limits do not bind GROMACS (grompp judges a cut-off beyond half the
    // 3 nm box); the machine's do.
    Config long_cutoff;
    long_cutoff.set(Param::PmeScale, 1.6);
    EXPECT_EQ(s.infeasible_reason(s.systems[0], long_cutoff, caps), "");
    SearchSpace mdcore_space = s;
    mdcore_space.engine = EngineSettings{};
    mdcore_space.engine_rules = nullptr;
    EXPECT_NE(mdcore_space.infeasible_reason(s.systems[0], long_cutoff, caps).find("half the shortest box edge"),
              std::string::npos);
    Config too_many;
    too_many.set(Param::Threads, 3L);
    EXPECT_NE(s.infeasible_reason(s.systems[0], too_many, caps).find("exceeds the 2 hardware threads"), std::string::npos);
}

}  // namespace
}  // namespace mdtune::tuner
