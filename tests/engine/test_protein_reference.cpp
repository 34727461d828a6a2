// Proteins in water against GROMACS: DHFR (amber99sb-ildn + TIP3P, 23,558 atoms)
// read from pdb2gmx's topology, interaction counts as `gmx dump` lists them, and
// the step-0 energy of every term and the forces against GROMACS 2022.5 in double
// precision (tests/data/dhfr-jac/README of the benchmark: rc 1.0 nm, potential
// shift, PME order 4 on a 52^3 grid, ewald-rtol 1e-5, no constraints).
#include <gtest/gtest.h>

#include <map>

#include "protein_reference_check.h"

namespace mdcore {
namespace {

class DhfrTopology : public ::testing::Test {
protected:
    void SetUp() override {
        if (!testing::gromacs_force_fields_installed())
            GTEST_SKIP() << "GROMACS' force fields (Debian gromacs-data, /usr/share/gromacs/top) are not installed";
    }
    System read(ConstraintMode constraints = ConstraintMode::None) {
        const std::string dir = testing::protein_data_dir("dhfr-jac");
        TopologyOptions options;
        options.constraints = constraints;
        return read_gromacs_system(dir + "conf.gro", dir + "topol.top", options);
    }
};

// Counts per molecule type from `gmx dump` of grompp's .tpr (rerun.mdp), times
// the molecule counts: one protein and 7,023 waters.
TEST_F(DhfrTopology, InteractionCountsEqualGmxDump) {
    const System sys = read();
    EXPECT_EQ(sys.natoms(), 23558u);
    EXPECT_EQ(sys.bonded.bonds.size(), 2523u);
    EXPECT_EQ(sys.bonded.angles.size(), 4561u);
    EXPECT_EQ(sys.bonded.proper_dihedrals.size(), 7026u);
    EXPECT_EQ(sys.bonded.periodic_impropers.size(), 512u);
    EXPECT_EQ(sys.bonded.pairs.size(), 6556u);
    EXPECT_EQ(sys.settles.size(), 7023u);
    EXPECT_TRUE(sys.bonded.constraints.empty());
    EXPECT_TRUE(sys.bonded.cmap.empty() && sys.bonded.rb_dihedrals.empty() && sys.bonded.impropers.empty());
}

// h-bonds: the 1,221 bonds with a hydrogen become LINCS constraints (the
// benchmark's README) and leave the Bond term; the degrees of freedom lose them.
TEST_F(DhfrTopology, HBondsBecomeConstraints) {
    const System sys = read(ConstraintMode::HBonds);
    EXPECT_EQ(sys.bonded.constraints.size(), 1221u);
    EXPECT_EQ(sys.bonded.bonds.size(), 2523u - 1221u);
    EXPECT_EQ(sys.degrees_of_freedom(), 3 * 23558 - 3 - 3 * 7023 - 1221);
    const System all = read(ConstraintMode::AllBonds);
    EXPECT_EQ(all.bonded.constraints.size(), 2523u);
    EXPECT_TRUE(all.bonded.bonds.empty());
}

// Exclusions to nrexcl = 3 bonds: every 1-4 pair is excluded from the nonbonded sum.
TEST_F(DhfrTopology, PairsAreExcluded) {
    const System sys = read();
    for (const Pair14& p : sys.bonded.pairs) {
        const auto& ex = sys.exclusions[p.atoms[0]];
        ASSERT_TRUE(std::binary_search(ex.begin(), ex.end(), p.atoms[1])) << p.atoms[0] << " " << p.atoms[1];
    }
}

class DhfrReference : public ::testing::TestWithParam<std::pair<ClusterShape, SimdLevel>> {
protected:
    void SetUp() override {
        if (!testing::gromacs_force_fields_installed())
            GTEST_SKIP() << "GROMACS' force fields (Debian gromacs-data, /usr/share/gromacs/top) are not installed";
    }
};

TEST_P(DhfrReference, EveryTermAndTheForcesMatchGromacs) {
    RunConfig cfg;
    cfg.cluster = GetParam().first;
    cfg.simd = GetParam().second;
    testing::expect_matches_protein_reference({"dhfr-jac", {52, 52, 52}}, cfg);
}

std::vector<std::pair<ClusterShape, SimdLevel>> cases() {
    std::vector<std::pair<ClusterShape, SimdLevel>> c;
    for (SimdLevel l : available_simd_levels())
        for (ClusterShape s : {ClusterShape::k4x4, ClusterShape::k4x8, ClusterShape::k8x4})
            c.push_back({s, l});
    return c;
}

INSTANTIATE_TEST_SUITE_P(AllKernels, DhfrReference, ::testing::ValuesIn(cases()), [](const auto& info) {
    return "c" + std::string(to_string(info.param.first)) + "_" + std::string(to_string(info.param.second));
});

}  // namespace
}  // namespace mdcore

namespace mdcore {
namespace {

// One small peptide in water per force-field family GROMACS ships besides AMBER
// (tests/data/topologies/*/README.md): CHARMM (U-B, type-9 and type-2 dihedrals,
// CMAP, [ pairtypes ]), OPLS-AA (comb-rule 3, Ryckaert-Bellemans, bonded-type
// column) and GROMOS 54a7 (united atoms, G96 bonds and angles, [ nonbond_params ]).
struct Family {
    const char* name;
    std::array<int, 3> pme_grid;
};

class ForceFieldFamily : public ::testing::TestWithParam<Family> {
protected:
    void SetUp() override {
        if (!testing::gromacs_force_fields_installed())
            GTEST_SKIP() << "GROMACS' force fields (Debian gromacs-data, /usr/share/gromacs/top) are not installed";
    }
};

// Our count of the interaction type that `gmx dump` names (interactions.json).
std::size_t our_count(const System& sys, const std::string& gmx_name) {
    const BondedInteractions& b = sys.bonded;
    const std::map<std::string, std::size_t> counts = {
        {"Bond", b.bonds.size()},
        {"G96Bond", b.g96_bonds.size()},
        {"Angle", b.angles.size()},
        {"G96Angle", b.g96_angles.size()},
        {"U-B", b.urey_bradley.size()},
        {"Proper Dih.", b.proper_dihedrals.size()},
        {"Ryckaert-Bell.", b.rb_dihedrals.size()},
        {"Improper Dih.", b.impropers.size()},
        {"Per. Imp. Dih.", b.periodic_impropers.size()},
        {"CMAP Dih.", b.cmap.size()},
        {"LJ-14", b.pairs.size()},
        {"Settle", sys.settles.size()},
        {"Constraint", b.constraints.size()},
    };
    const auto it = counts.find(gmx_name);
    return it == counts.end() ? std::size_t(-1) : it->second;
}

TEST_P(ForceFieldFamily, InteractionCountsEqualGmxDump) {
    const std::string dir = testing::protein_data_dir(std::string("topologies/") + GetParam().name);
    const System sys = read_gromacs_system(dir + "conf.gro", dir + "topol.top");
    nlohmann::json json;
    std::ifstream(dir + "interactions.json") >> json;
    EXPECT_EQ(static_cast<long>(sys.natoms()), json["natoms"].get<long>());
    std::map<std::string, std::size_t> expected;
    for (const auto& mol : json["moltypes"])
        for (const auto& [key, n] : mol["counts"].items())
            expected[key.substr(0, key.find(" ["))] += n.get<std::size_t>() * mol["molecules"].get<std::size_t>();
    for (const auto& [name, n] : expected) EXPECT_EQ(our_count(sys, name), n) << name;
}

TEST_P(ForceFieldFamily, EveryTermAndTheForcesMatchGromacs) {
    testing::expect_matches_protein_reference(
        {std::string("topologies/") + GetParam().name, GetParam().pme_grid}, RunConfig{});
}

INSTANTIATE_TEST_SUITE_P(Families, ForceFieldFamily,
                         ::testing::Values(Family{"charmm27", {25, 25, 25}}, Family{"oplsaa", {25, 25, 25}},
                                           Family{"gromos54a7", {32, 32, 32}}),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace mdcore

namespace mdcore {
namespace {

// Each family's own recommended nonbonded settings, read from its .mdp as mdcore
// run --mdp reads it: CHARMM's LJ force-switch from 1.0 to 1.2 nm with PME at
// rc 1.2, GROMOS' reaction field (epsilon-rf 62) at rc 1.4; and the dispersion
// correction with each LJ modifier (OPLS-AA's usual EnerPres with the shift,
// EnerPres with CHARMM's force switch, AllEnerPres with a potential switch from
// 0.8 to 1.0 nm), its energy and its pressure term against GROMACS'.
struct StandardSettings {
    const char* family;
    const char* mdp;
    const char* energies;
};

class FamilyStandardSettings : public ::testing::TestWithParam<StandardSettings> {
protected:
    void SetUp() override {
        if (!testing::gromacs_force_fields_installed())
            GTEST_SKIP() << "GROMACS' force fields (Debian gromacs-data, /usr/share/gromacs/top) are not installed";
    }
};

TEST_P(FamilyStandardSettings, EveryTermAndTheForcesMatchGromacs) {
    const std::string dir = testing::protein_data_dir(std::string("topologies/") + GetParam().family);
    GromacsRunInput input = read_gromacs_run_input(dir + "conf.gro", dir + "topol.top", dir + GetParam().mdp);
    RunConfig cfg;
    cfg.threads = 2;
    input.pme.apply(cfg, [](Tunable) { return false; });
    // GROMACS' forces of these settings are not stored: energies only.
    testing::expect_system_matches_reference(input.system, cfg, dir, GetParam().energies, "");
}

INSTANTIATE_TEST_SUITE_P(Families, FamilyStandardSettings,
                         ::testing::Values(StandardSettings{"charmm27", "rerun_fswitch.mdp", "energies_fswitch.json"},
                                           StandardSettings{"gromos54a7", "rerun_rf.mdp", "energies_rf.json"},
                                           StandardSettings{"oplsaa", "rerun_pme_dispcorr.mdp", "energies_pme_dispcorr.json"},
                                           StandardSettings{"charmm27", "rerun_fswitch_dispcorr.mdp",
                                                            "energies_fswitch_dispcorr.json"},
                                           StandardSettings{"gromos54a7", "rerun_pswitch_dispcorr.mdp",
                                                            "energies_pswitch_dispcorr.json"}),
                         [](const auto& info) {
                             std::string mdp = info.param.mdp;  // rerun_<settings>.mdp
                             mdp = mdp.substr(6, mdp.size() - 10);
                             return std::string(info.param.family) + "_" + mdp;
                         });

}  // namespace
}  // namespace mdcore
