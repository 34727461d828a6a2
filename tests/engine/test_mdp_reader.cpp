// The .mdp reader: grompp's key rules, every mapping, refusals naming key, value
// and FILE:LINE, the ignored-keys warning, the bounded reader, and the real
// production files of the DHFR and ADH benchmark sets (tests/data/mdp).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "../common/error_message.h"
#include "../common/temp_dir_test.h"
#include "io/mdp_reader.h"
#include "mdcore/gromacs_input.h"
#include "mdcore/run_report.h"

#ifndef MDT_TEST_DATA_DIR
#error "MDT_TEST_DATA_DIR is set by tests/CMakeLists.txt"
#endif

namespace mdcore {
namespace {

const std::string kMdpDir = std::string(MDT_TEST_DATA_DIR) + "/mdp";

MdpSettings parse(const std::string& text) { return parse_mdp_text(text, "t.mdp"); }

std::string error_of(const std::string& text) {
    return mdtest::message_of<InputError>([&] { parse(text); });
}

// The message names the file and line first, then every fragment.
void expect_refused(const std::string& text, int line, const std::vector<std::string>& fragments) {
    const std::string message = error_of(text);
    ASSERT_FALSE(message.empty()) << "accepted:\n" << text;
    const std::string where = "t.mdp:" + std::to_string(line) + ": ";
    EXPECT_EQ(message.rfind(where, 0), 0u) << message;
    for (const std::string& f : fragments) EXPECT_NE(message.find(f), std::string::npos) << message << "\nlacks: " << f;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

TEST(MdpReader, DhfrProductionFileMapsEverySetting) {
    const MdpSettings m = read_mdp(kMdpDir + "/dhfr-jac/md.mdp");
    ASSERT_TRUE(m.dt && m.steps && m.rc && m.pme_spacing && m.pme_order && m.ewald_rtol && m.drift_tolerance);
    EXPECT_EQ(m.dt->value, 0.002);
    EXPECT_EQ(m.dt->line, 3);
    EXPECT_EQ(m.steps->value, 10000);
    EXPECT_EQ(m.rc->value, 1.0);
    EXPECT_EQ(m.rc->line, 8);  // rcoulomb
    EXPECT_EQ(m.pme_spacing->value, 0.12);
    EXPECT_FALSE(m.pme_grid);
    EXPECT_EQ(m.pme_order->value, 4);
    EXPECT_EQ(m.ewald_rtol->value, 1e-5);
    EXPECT_EQ(m.drift_tolerance->value, 0.005);
    ASSERT_TRUE(m.thermostat && m.tau_t && m.temperature && m.seed && m.nsttcouple);
    EXPECT_EQ(m.thermostat->value, Thermostat::VRescale);
    EXPECT_EQ(m.tau_t->value, 0.1);
    EXPECT_EQ(m.temperature->value, 300.0);
    EXPECT_EQ(m.nsttcouple->value, 10);
    EXPECT_EQ(m.seed->value, 1u);
    ASSERT_TRUE(m.comm_mode && m.nstcomm && m.constraints && m.lincs_order && m.lincs_iter && m.nstcalcenergy);
    EXPECT_EQ(m.comm_mode->value, "Linear");
    EXPECT_EQ(m.nstcomm->value, 100);
    EXPECT_EQ(m.constraints->value, ConstraintMode::HBonds);
    EXPECT_EQ(m.lincs_order->value, 4);
    EXPECT_EQ(m.lincs_iter->value, 1);
    EXPECT_FALSE(m.lincs_warnangle);
    EXPECT_EQ(m.nstcalcenergy->value, 100);
    ASSERT_TRUE(m.continuation);
    EXPECT_TRUE(m.continuation->value);
    EXPECT_FALSE(m.nstlist);
    EXPECT_TRUE(m.defines.empty());
    EXPECT_TRUE(m.include_dirs.empty());
    EXPECT_EQ(m.ignored, (std::vector<std::string>{"nstxout", "nstvout", "nstfout", "nstxout-compressed", "nstenergy", "nstlog"}));
    EXPECT_EQ(m.source(m.dt->line), "mdp:" + kMdpDir + "/dhfr-jac/md.mdp:3");
}

TEST(MdpReader, DhfrSinglePointFileMapsItsGrid) {
    const MdpSettings m = read_mdp(kMdpDir + "/dhfr-jac/rerun.mdp");
    ASSERT_TRUE(m.steps && m.dt && m.pme_grid && m.constraints && m.nstcalcenergy && m.rc);
    EXPECT_EQ(m.steps->value, 0);
    EXPECT_EQ(m.dt->value, 0.001);
    EXPECT_EQ(m.pme_grid->value, (std::array<int, 3>{52, 52, 52}));
    EXPECT_EQ(m.pme_grid->line, 15);  // fourier-nz, the last of the three
    EXPECT_FALSE(m.pme_spacing);
    EXPECT_EQ(m.constraints->value, ConstraintMode::None);
    EXPECT_EQ(m.nstcalcenergy->value, 1);
    EXPECT_FALSE(m.thermostat);  // tcoupl absent: GROMACS' default, no
    EXPECT_EQ(m.ignored, (std::vector<std::string>{"nstenergy", "nstfout"}));
}

// ADH's md.mdp (the 2018 .tpr's settings) says pcoupl = no and continuation = no: accepted.
TEST(MdpReader, AdhProductionFileMaps) {
    const MdpSettings m = read_mdp(kMdpDir + "/adh-dodec/md.mdp");
    ASSERT_TRUE(m.rc && m.pme_spacing && m.seed && m.nstlist && m.continuation);
    EXPECT_EQ(m.rc->value, 0.9);
    EXPECT_EQ(m.pme_spacing->value, 0.1125);
    EXPECT_EQ(m.seed->value, 2071919337u);
    EXPECT_EQ(m.nstlist->value, 10);
    EXPECT_FALSE(m.continuation->value);
    const MdpSettings rerun = read_mdp(kMdpDir + "/adh-dodec/rerun.mdp");
    ASSERT_TRUE(rerun.pme_grid);
    EXPECT_EQ(rerun.pme_grid->value, (std::array<int, 3>{100, 100, 100}));
}

// The same file with the pressure coupling GROMACS recommends since 2021: refused, naming it.
TEST(MdpReader, AdhWithCRescaleIsRefusedForPressureCoupling) {
    std::ifstream in(kMdpDir + "/adh-dodec/md.mdp");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string from = "pcoupl                  = no";
    const std::size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos);
    text.replace(at, from.size(), "pcoupl                  = C-rescale");
    const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
    expect_refused(text, line, {"pcoupl = C-rescale", "pressure coupling is not supported yet"});
}

TEST(MdpReader, KeysIgnoreCaseAndDashOrUnderscore) {
    const MdpSettings m = parse("REF_T = 310\ntc_grps = System\nTau-T = 0.5\ntcoupl = v_rescale\nVerlet_Buffer-Tolerance = 0.01\n");
    ASSERT_TRUE(m.temperature && m.tau_t && m.thermostat && m.drift_tolerance);
    EXPECT_EQ(m.temperature->value, 310.0);
    EXPECT_EQ(m.tau_t->value, 0.5);
    EXPECT_EQ(m.thermostat->value, Thermostat::VRescale);  // values too: "v_rescale" = "V-rescale"
    EXPECT_EQ(m.drift_tolerance->value, 0.01);
    ASSERT_TRUE(parse("Constraints = H-Bonds\n").constraints);
    EXPECT_EQ(parse("constraints = ALL_BONDS\n").constraints->value, ConstraintMode::AllBonds);
    // The renamed keys are one key with their new names.
    expect_refused("vdwtype = Cut-off\nvdw-type = Cut-off\n", 2, {"vdw-type is given twice", "line 1 (vdwtype)", "line 2"});
}

TEST(MdpReader, DuplicateKeyNamesBothLines) {
    expect_refused("dt = 0.002\n; a comment\nnsteps = 10\nDT = 0.001\n", 4, {"DT is given twice", "line 1 (dt)", "line 4"});
    expect_refused("nstxout_compressed = 1\nnstxout-compressed = 2\n", 2, {"given twice"});
}

TEST(MdpReader, LineWithoutEqualsIsAnError) {
    expect_refused("dt = 0.002\nnsteps 100\n", 2, {"'nsteps 100' is not 'key = value'"});
    expect_refused("= 5\n", 1, {"no key before '='"});
}

TEST(MdpReader, CommentsBlankLinesAndEmptyValues) {
    const MdpSettings m = parse("; header\n\n   \ndt = 0.001 ; fs\ndefine =\nnsteps=   ; default\r\nrcoulomb=1.2\r\nrvdw=1.2\n");
    ASSERT_TRUE(m.dt && m.rc);
    EXPECT_EQ(m.dt->value, 0.001);
    EXPECT_FALSE(m.steps);  // empty: GROMACS' default
    EXPECT_TRUE(m.defines.empty());
    EXPECT_EQ(m.rc->value, 1.2);
    EXPECT_TRUE(parse("").ignored.empty());
    EXPECT_EQ(parse("\xEF\xBB\xBF" "dt = 0.003\n").dt->value, 0.003);
}

TEST(MdpReader, IgnoredKeysWarningIsOneLine) {
    const MdpSettings m = parse("nstlog = 100\nnstenergy = 10\nEnergygrps = Protein SOL\ngen_temp = 300\ncompressed-x-grps =\n");
    EXPECT_EQ(mdp_ignored_keys_warning(m),
              "mdp: ignoring keys that do not change the physics: nstlog, nstenergy, Energygrps, gen_temp");
    EXPECT_EQ(mdp_ignored_keys_warning(parse("dt = 0.002\n")), "");
}

TEST(MdpReader, DispersionCorrectionModes) {
    EXPECT_EQ(parse("DispCorr = EnerPres\n").dispcorr->value, DispCorr::EnerPres);
    EXPECT_EQ(parse("dispcorr = ener\n").dispcorr->value, DispCorr::Ener);
    EXPECT_EQ(parse("DispCorr = All-Ener-Pres\n").dispcorr->value, DispCorr::AllEnerPres);
    EXPECT_EQ(parse("DispCorr = AllEner\n").dispcorr->value, DispCorr::AllEner);
    EXPECT_EQ(parse("DispCorr = no\n").dispcorr->value, DispCorr::No);
    EXPECT_FALSE(parse("dt = 0.002\n").dispcorr);
}

TEST(MdpReader, UnknownKeyIsRefused) {
    expect_refused("dt = 0.002\nnstlistt = 10\n", 2, {"nstlistt = 10", "unknown .mdp key"});
}

TEST(MdpReader, Mappings) {
    const MdpSettings m = parse(
        "integrator = md\ntinit = 0\ninit-step = 0\ncutoff-scheme = Verlet\npbc = xyz\ncoulombtype = pme\n"
        "coulomb-modifier = Potential-shift-Verlet\nvdw-modifier = potential-shift\nrcoulomb = 1.1\nrvdw = 1.1\n"
        "DispCorr = no\nfourierspacing = 0.1\npme-order = 6\newald-rtol = 1e-6\newald-geometry = 3d\n"
        "epsilon-surface = 0\nepsilon-r = 2.5\nnstlist = 20\ncomm-mode = None\ncomm-grps = System\nlincs-warnangle = 45\n"
        "lincs-order = 6\nlincs-iter = 2\ngen-vel = no\nunconstrained-start = yes\nld-seed = -1\nnstcalcenergy = 10\n"
        "define = -DPOSRES -DFLEXIBLE -DFOO=1\ninclude = -I/opt/ff -I../top\nfree-energy = no\npull = no\nnwall = 0\n"
        "annealing = no\nelectric-field-x = 0 0 0 0\ndeform = 0 0 0 0 0 0\nqmmm-cp2k-active = false\ntcoupl = no\n"
        "pcoupl = no\nconstraint-algorithm = LINCS\nmass-repartition-factor = 1\n");
    EXPECT_EQ(m.rc->value, 1.1);
    EXPECT_EQ(m.pme_spacing->value, 0.1);
    EXPECT_EQ(m.pme_order->value, 6);
    EXPECT_EQ(m.ewald_rtol->value, 1e-6);
    EXPECT_EQ(m.epsilon_r->value, 2.5);
    EXPECT_EQ(m.nstlist->value, 20);
    EXPECT_EQ(m.comm_mode->value, "None");
    EXPECT_EQ(m.lincs_warnangle->value, 45.0);
    EXPECT_EQ(m.lincs_order->value, 6);
    EXPECT_EQ(m.lincs_iter->value, 2);
    EXPECT_TRUE(m.continuation->value);  // the old name of continuation
    EXPECT_FALSE(m.seed);                // -1: random in GROMACS
    ASSERT_TRUE(m.ld_seed_random_line);
    EXPECT_EQ(*m.ld_seed_random_line, 26);
    EXPECT_EQ(m.nstcalcenergy->value, 10);
    EXPECT_EQ(m.defines, (std::vector<std::pair<std::string, std::string>>{{"POSRES", ""}, {"FLEXIBLE", ""}, {"FOO", "1"}}));
    EXPECT_EQ(m.define_line, 28);
    EXPECT_EQ(m.include_dirs, (std::vector<std::string>{"/opt/ff", "../top"}));
    EXPECT_EQ(m.include_line, 29);
    EXPECT_EQ(m.thermostat->value, Thermostat::None);
    EXPECT_TRUE(m.ignored.empty());
    // One grid size in each direction overrides the spacing.
    const MdpSettings g = parse("fourierspacing = 0.16\nfourier-nx = 40\nfourier_ny = 48\nfourier-nz = 44\n");
    ASSERT_TRUE(g.pme_grid);
    EXPECT_EQ(g.pme_grid->value, (std::array<int, 3>{40, 48, 44}));
    EXPECT_FALSE(g.pme_spacing);
    // ref-t without coupling still sets the temperature (mdcore's Verlet-buffer estimate uses it).
    const MdpSettings nve = parse("tcoupl = no\ntc-grps = System\ntau-t = -1\nref-t = 298\n");
    EXPECT_EQ(nve.temperature->value, 298.0);
    EXPECT_FALSE(nve.tau_t);
    // A single group need not be called System: grompp requires it to hold every atom.
    EXPECT_EQ(parse("tcoupl = V-rescale\ntc-grps = Water\ntau-t = 1\nref-t = 300\n").tau_t->value, 1.0);
}

struct Refusal {
    const char* text;
    int line;
    std::vector<std::string> fragments;
};

TEST(MdpReader, RefusalsNameKeyValueAndLine) {
    const std::vector<Refusal> cases = {
        {"dt = 0.002\nintegrator = sd\n", 2, {"integrator = sd", "leap-frog"}},
        {"integrator = md-vv\n", 1, {"integrator = md-vv"}},
        {"nsteps = -1\n", 1, {"nsteps = -1", "without end"}},
        {"nsteps = 1e3\n", 1, {"nsteps = 1e3", "not an integer"}},
        {"dt = 0.1\n", 1, {"dt = 0.1", "at most 0.01"}},
        {"dt = abc\n", 1, {"dt = abc", "not a number"}},
        {"tinit = 5\n", 1, {"tinit = 5", "time 0"}},
        {"cutoff-scheme = group\n", 1, {"cutoff-scheme = group", "Verlet"}},
        {"pbc = xy\n", 1, {"pbc = xy"}},
        {"periodic-molecules = yes\n", 1, {"periodic-molecules = yes"}},
        {"coulombtype = Cut-off\n", 1, {"coulombtype = Cut-off", "PME or Reaction-Field"}},
        {"coulomb-modifier = None\n", 1, {"coulomb-modifier = None", "unshifted"}},
        {"coulomb-modifier = Force-switch\n", 1, {"coulomb-modifier = Force-switch", "switched Coulomb"}},
        {"vdw-modifier = Exact-cutoff\n", 1, {"vdw-modifier = Exact-cutoff", "Force-switch"}},
        {"epsilon-rf = 0.5\n", 1, {"epsilon-rf = 0.5", "infinity"}},
        {"vdw_type = PME\n", 1, {"vdw_type = PME", "LJ-PME"}},
        {"rcoulomb = 1.0\nrvdw = 1.2\n", 2, {"rvdw = 1.2 (line 2)", "rcoulomb = 1.0 (line 1)", "one cut-off"}},
        {"rvdw = 0.9\n", 1, {"rvdw = 0.9 (line 1)", "rcoulomb = 1 (GROMACS' default)"}},
        {"DispCorr = EnerPresure\n", 1, {"DispCorr = EnerPresure", "not a DispCorr value"}},
        {"fourier-nx = 32\n", 1, {"fourier-nx = 32", "together"}},
        {"fourierspacing = 0\n", 1, {"fourierspacing = 0", "above 0"}},
        {"pme-order = 8\n", 1, {"pme-order = 8", "orders 4, 5 and 6"}},
        {"ewald-geometry = 3dc\n", 1, {"ewald-geometry = 3dc"}},
        {"epsilon-surface = 80\n", 1, {"epsilon-surface = 80"}},
        {"epsilon-r = 0\n", 1, {"epsilon-r = 0", "infinite"}},
        {"verlet-buffer-tolerance = -1\n", 1, {"verlet-buffer-tolerance = -1", "--rlist"}},
        {"tcoupl = Berendsen\n", 1, {"tcoupl = Berendsen", "only V-rescale"}},
        {"tcoupl = nose-hoover\n", 1, {"tcoupl = nose-hoover", "only V-rescale"}},
        {"tcoupl = V-rescale\ntc-grps = Protein Non-Protein\ntau-t = 0.1 0.1\nref-t = 300 300\n", 2,
         {"tc-grps = Protein Non-Protein", "several temperature-coupling groups"}},
        {"tcoupl = V-rescale\ntc-grps = System\ntau-t = 0.1 0.1\nref-t = 300\n", 3, {"tau-t = 0.1 0.1", "one value per"}},
        {"tcoupl = V-rescale\n", 1, {"tcoupl = V-rescale needs tc-grps, tau-t and ref-t"}},
        {"tcoupl = V-rescale\ntc-grps = System\ntau-t = 0\nref-t = 300\n", 3, {"tau-t = 0", "above 0"}},
        {"tc-grps = System\nref-t = 0\n", 2, {"ref-t = 0", "above 0"}},
        {"ld-seed = -2\n", 1, {"ld-seed = -2"}},
        {"pcoupl = Parrinello-Rahman\n", 1, {"pcoupl = Parrinello-Rahman", "pressure coupling is not supported yet"}},
        {"Pcoupl = Berendsen\n", 1, {"Pcoupl = Berendsen", "pressure coupling is not supported yet"}},
        {"pcoupl = C-rescale\n", 1, {"pcoupl = C-rescale", "pressure coupling is not supported yet"}},
        {"comm-mode = Angular\n", 1, {"comm-mode = Angular"}},
        {"comm-grps = Protein SOL\n", 1, {"comm-grps = Protein SOL", "several"}},
        {"constraints = h-angles\n", 1, {"constraints = h-angles", "angle constraints"}},
        {"constraints = all-angles\n", 1, {"constraints = all-angles", "angle constraints"}},
        {"constraint-algorithm = SHAKE\n", 1, {"constraint-algorithm = SHAKE", "SHAKE"}},
        {"lincs-order = 0\n", 1, {"lincs-order = 0"}},
        {"gen-vel = yes\ngen-temp = 300\n", 1, {"gen-vel = yes", "does not generate velocities"}},
        {"continuation = maybe\n", 1, {"continuation = maybe", "yes or no"}},
        {"define = -DPOSRES POSRES2\n", 1, {"define = -DPOSRES POSRES2", "'POSRES2' is not -DNAME"}},
        {"define = -D\n", 1, {"'-D' is not -DNAME"}},
        {"define = -D1X\n", 1, {"'-D1X' is not -DNAME"}},
        {"include = /usr/share/gromacs/top\n", 1, {"is not -IDIR"}},
        {"nstcalcenergy = 0\n", 1, {"nstcalcenergy = 0"}},
        {"free-energy = yes\n", 1, {"free-energy = yes", "free-energy calculations"}},
        {"pull = yes\n", 1, {"pull = yes", "pull code"}},
        {"awh = yes\n", 1, {"awh = yes", "AWH"}},
        {"nwall = 2\n", 1, {"nwall = 2", "walls"}},
        {"electric-field-x = 1 0.5 0 0\n", 1, {"electric-field-x = 1 0.5 0 0", "electric fields"}},
        {"annealing = single\n", 1, {"annealing = single", "annealing"}},
        {"qmmm-cp2k-active = true\n", 1, {"qmmm-cp2k-active = true", "QM/MM"}},
        {"freezegrps = Protein\n", 1, {"freezegrps = Protein", "frozen"}},
        {"acc-grps = SOL\n", 1, {"acc-grps = SOL"}},
        {"cos-acceleration = 0.1\n", 1, {"cos-acceleration = 0.1"}},
        {"deform = 0 0 0.01 0 0 0\n", 1, {"deform = 0 0 0.01 0 0 0", "deformation"}},
        {"morse = yes\n", 1, {"morse = yes"}},
        {"mts = yes\n", 1, {"mts = yes", "multiple time-stepping"}},
        {"implicit-solvent = GBSA\n", 1, {"implicit-solvent = GBSA"}},
        {"disre = simple\n", 1, {"disre = simple", "distance restraints"}},
        {"mass-repartition-factor = 3\n", 1, {"mass-repartition-factor = 3"}},
        {"simulated-tempering = yes\n", 1, {"simulated-tempering = yes"}},
        {"rotation = yes\n", 1, {"rotation = yes"}},
        {"swapcoords = X\n", 1, {"swapcoords = X"}},
        {"density-guided-simulation-active = true\n", 1, {"density-guided-simulation-active = true"}},
        {"energygrp-excl = SOL SOL\n", 1, {"energygrp-excl = SOL SOL"}},
    };
    for (const Refusal& c : cases) {
        SCOPED_TRACE(c.text);
        expect_refused(c.text, c.line, c.fragments);
    }
}

// CHARMM's and GROMOS' recommended nonbonded settings map onto the kernels' forms.
TEST(MdpReader, SwitchedLjAndReactionField) {
    const MdpSettings charmm = parse("vdw-modifier = Force-switch\nrvdw-switch = 1.0\nrvdw = 1.2\nrcoulomb = 1.2\n");
    ASSERT_TRUE(charmm.vdw_modifier && charmm.rvdw_switch);
    EXPECT_EQ(charmm.vdw_modifier->value, VdwModifier::ForceSwitch);
    EXPECT_EQ(charmm.rvdw_switch->value, 1.0);
    EXPECT_EQ(parse("vdw_modifier = potential-switch\n").vdw_modifier->value, VdwModifier::PotentialSwitch);
    const MdpSettings gromos = parse("coulombtype = Reaction-Field\nepsilon-rf = 62\n");
    ASSERT_TRUE(gromos.coulomb_type && gromos.epsilon_rf);
    EXPECT_EQ(gromos.coulomb_type->value, CoulombType::ReactionField);
    EXPECT_EQ(gromos.epsilon_rf->value, 62.0);
}

TEST(MdpReader, LongValuesAreCutInMessages) {
    const std::string message = error_of("integrator = " + std::string(5000, 'x') + "\n");
    EXPECT_LT(message.size(), 300u) << message;
    EXPECT_NE(message.find("..."), std::string::npos);
}

TEST(MdpReader, BinaryKeysAndValuesArePrintableInMessages) {
    for (const std::string text : {std::string("integrator = md\x01\xfe\x80\n"), std::string("nst\x1b[2Jlist = 5\n"),
                                   std::string("\x7f\xff\x01\n")}) {
        const std::string message = error_of(text);
        ASSERT_FALSE(message.empty()) << text;
        for (const char c : message)
            EXPECT_TRUE(static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f) << message;
    }
}

class MdpFiles : public mdtest::TempDirTest {};

TEST_F(MdpFiles, NonRegularFilesAndLimitsAreRefused) {
    using mdtest::message_of;
    EXPECT_TRUE(mdtest::names_problem(message_of<InputError>([&] { read_mdp(path("none.mdp")); }),
                                      "cannot read the .mdp file", path("none.mdp") + ": "));
    EXPECT_TRUE(mdtest::names_problem(message_of<InputError>([&] { read_mdp(dir_.string()); }), "not a regular file",
                                      dir_.string() + ": "));
    // One byte over 16 MiB.
    const std::string big = path("big.mdp");
    {
        std::ofstream out(big, std::ios::binary);
        const std::string block(1 << 20, ';');
        for (int i = 0; i < 16; ++i) out << block;
        out << '\n';
    }
    EXPECT_TRUE(mdtest::names_problem(message_of<InputError>([&] { read_mdp(big); }), "16 MiB", big + ": "));
    EXPECT_TRUE(mdtest::names_problem(message_of<InputError>([&] { parse(std::string(kMdpMaxFileBytes + 1, '\n')); }),
                                      "16 MiB", "t.mdp: "));
    // A line over 64 KiB, even as a comment.
    const std::string long_line = write("long.mdp", "dt = 0.002\n;" + std::string(kMdpMaxLineBytes, 'x') + "\n");
    EXPECT_TRUE(mdtest::names_problem(message_of<InputError>([&] { read_mdp(long_line); }), "65536 bytes",
                                      long_line + ":2: "));
    expect_refused(std::string("dt = 0.002\nnsteps = 1\0\n", 23), 2, {"NUL"});
    // A fine file through the file path.
    const std::string ok = write("ok.mdp", "nsteps = 5\n");
    EXPECT_EQ(read_mdp(ok).steps->value, 5);
}

// read_gromacs_run_input: what mdcore run --gro --top --mdp reads before its flags,
// for the library's users (the tuner): the .mdp's physics on the System, its
// controls, and its PME settings for a config that does not set its own.
TEST(MdpReader, RunInputIsWhatMdcoreRunReadsBeforeItsFlags) {
    const std::string box = std::string(MDT_TEST_DATA_DIR) + "/gromacs/water-3nm/";
    const GromacsRunInput plain = read_gromacs_run_input(box + "conf.gro", box + "topol.top");
    EXPECT_DOUBLE_EQ(plain.system.rc, 1.0);
    EXPECT_FALSE(plain.pme.spacing || plain.pme.order || plain.pme.grid);
    const GromacsRunInput in = read_gromacs_run_input(box + "conf.gro", box + "topol.top", box + "rerun.mdp");
    EXPECT_EQ(in.system.natoms(), plain.system.natoms());
    EXPECT_DOUBLE_EQ(in.system.dt, 0.002);
    EXPECT_EQ(in.control.steps, 0);          // nsteps
    EXPECT_EQ(in.control.nstcalcenergy, 1);
    ASSERT_TRUE(in.pme.grid);
    EXPECT_EQ(*in.pme.grid, (std::array<int, 3>{32, 32, 32}));
    EXPECT_EQ(in.pme.order, 4);

    const auto none = [](Tunable) { return false; };
    RunConfig config;
    EXPECT_EQ(in.pme.apply(config, none), (std::vector<Tunable>{Tunable::PmeOrder, Tunable::PmeGrid}));
    EXPECT_EQ(config.pme_grid, (std::array<int, 3>{32, 32, 32}));
    // A run's own grid or spacing wins: the .mdp's grid would override a given spacing.
    for (Tunable own : {Tunable::PmeGrid, Tunable::PmeSpacing}) {
        RunConfig c;
        EXPECT_EQ(in.pme.apply(c, [&](Tunable t) { return t == own; }), std::vector<Tunable>{Tunable::PmeOrder});
        EXPECT_FALSE(c.pme_grid);
    }
}

// The report's setting_sources: written only when set, read back whole, strings only.
TEST(MdpReader, SettingSourcesRoundTripThroughTheReport) {
    RunReport r;
    EXPECT_EQ(run_report_to_json(r).find("setting_sources"), std::string::npos);
    r.setting_sources = {{"dt", "mdp:md.mdp:3"}, {"steps", "flag --steps"}, {"nstlist", "default (mdp:md.mdp:8 ...)"}};
    const std::string json = run_report_to_json(r);
    EXPECT_NE(json.find("\"setting_sources\""), std::string::npos);
    EXPECT_EQ(run_report_from_json(json).setting_sources, r.setting_sources);
    std::string bad = json;
    bad.replace(bad.find("\"mdp:md.mdp:3\""), 14, "3");
    try {
        run_report_from_json(bad);
        ADD_FAILURE() << "a number as a source was read";
    } catch (const RunReportError& e) {
        EXPECT_EQ(e.field(), "setting_sources.dt");
    }
}

}  // namespace
}  // namespace mdcore
