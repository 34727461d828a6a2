// Dynamics of proteins in water with h-bond constraints (LINCS) and SETTLE at
// dt 2 fs: energy conservation from the equilibrated DHFR, and v-rescale holding
// a peptide at 300 K with the degrees of freedom counted as GROMACS counts them.
#include <gtest/gtest.h>

#include "protein_reference_check.h"

namespace mdcore {
namespace {

System read_with_hbonds(const std::string& dir) {
    TopologyOptions options;
    options.constraints = ConstraintMode::HBonds;
    return read_gromacs_system(dir + "conf.gro", dir + "topol.top", options);
}

class ProteinDynamics : public ::testing::Test {
protected:
    void SetUp() override {
        if (!testing::gromacs_force_fields_installed())
            GTEST_SKIP() << "GROMACS' force fields (Debian gromacs-data, /usr/share/gromacs/top) are not installed";
    }
};

// The benchmark's production settings without the thermostat (md.mdp: rc 1.0,
// PME spacing 0.12, h-bonds with LINCS order 4 and one iteration), 2 ps.
TEST_F(ProteinDynamics, DhfrNveConservesEnergyWithLincs) {
    System sys = read_with_hbonds(testing::protein_data_dir("dhfr-jac"));
    RunConfig cfg;
    cfg.threads = 2;
    RunControl control;
    control.steps = 1000;
    control.nstcalcenergy = 20;
    const RunReport rep = run(sys, cfg, control);
    EXPECT_EQ(rep.status, "ok") << rep.error;
    EXPECT_LT(std::abs(rep.drift_per_atom_per_ps), sys.drift_tolerance) << rep.drift_per_atom_per_ps;
    // LINCS order 4, one iteration: GROMACS' own accuracy at 2 fs is about 1e-5 relative.
    EXPECT_LT(rep.max_constraint_deviation, 1e-3);
    EXPECT_EQ(rep.config.constraints, 7023 + 1221);
}

// V-rescale at 300 K on the CHARMM peptide: the mean of independent temperature
// samples (each 0.3 ps, three coupling times, apart) is 300 K within 3 K when the constrained degrees of
// freedom are counted (they would bias it by 4 % if they were not).
TEST_F(ProteinDynamics, PeptideNvtHoldsTemperature) {
    System sys = read_with_hbonds(testing::protein_data_dir("topologies/charmm27"));
    EXPECT_EQ(sys.degrees_of_freedom(), 3 * 2644 - 3 - 3 * 852 - static_cast<int>(sys.bonded.constraints.size()));
    RunConfig cfg;
    cfg.threads = 2;
    RunControl control;
    control.steps = 150;
    control.thermostat = Thermostat::VRescale;
    control.tau_t = 0.1;
    run(sys, cfg, control);  // settle into the thermostat
    double sum = 0.0;
    const int samples = 24;
    for (int i = 0; i < samples; ++i) {
        control.seed = 100 + i;
        const RunReport rep = run(sys, cfg, control);
        ASSERT_EQ(rep.status, "ok") << rep.error;
        sum += rep.end.temperature;
    }
    EXPECT_NEAR(sum / samples, 300.0, 3.0);
}

}  // namespace
}  // namespace mdcore
