// The long-range dispersion correction: closed forms for the potential shift,
// the numerical integrals of the switched forms against closed forms of their
// own, the mean c6 over non-excluded pairs, and what a run reports. The
// GROMACS numbers of each modifier are checked in test_protein_reference.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "mdcore/engine.h"
#include "mdcore/run_report.h"
#include "mdcore/units.h"
#include "nonbonded/dispersion_correction.h"
#include "test_systems.h"

namespace mdcore {
namespace {

constexpr double kPi = std::numbers::pi;

TEST(DispersionCorrection, PotentialShiftIntegralsAreTheClosedForms) {
    const double rc = 1.1;
    const auto d = DispersionCorrection::integrals(6, VdwModifier::PotentialShift, 0.0, rc);
    EXPECT_NEAR(d.shift, -std::pow(rc, -6), 1e-15);
    EXPECT_NEAR(d.energy, -8.0 * kPi / (3.0 * std::pow(rc, 3)), 1e-12);
    EXPECT_NEAR(d.virial, 8.0 * kPi / std::pow(rc, 3), 1e-12);
    const auto r = DispersionCorrection::integrals(12, VdwModifier::PotentialShift, 0.0, rc);
    EXPECT_NEAR(r.shift, std::pow(rc, -12), 1e-15);
    EXPECT_NEAR(r.energy, 16.0 * kPi / (9.0 * std::pow(rc, 9)), 1e-12);
    EXPECT_NEAR(r.virial, -16.0 * kPi / (3.0 * std::pow(rc, 9)), 1e-12);
}

// Potential switch of -r^-6 on [r1, rc]: the energy integral is
// 4 pi [int_r1^inf -r^-4 dr + int_r1^rc r^-4 S(r) dr], and with t = (r - r1)/w
// the second part has a closed form by expanding S; computed here by a fine
// midpoint sum independent of the engine's rule, with the switch written out.
TEST(DispersionCorrection, SwitchedIntegralsAgreeWithAnIndependentSum) {
    const double r1 = 0.8, rc = 1.0, w = rc - r1;
    auto s = [&](double r) {
        const double t = (r - r1) / w;
        return 1.0 - 10.0 * t * t * t + 15.0 * t * t * t * t - 6.0 * t * t * t * t * t;
    };
    const int n = 200000;
    double inside = 0.0;
    for (int i = 0; i < n; ++i) {
        const double r = r1 + (i + 0.5) * w / n;
        inside += r * r * (-std::pow(r, -6)) * (1.0 - s(r)) * (w / n);
    }
    const double expected = 4.0 * kPi * (inside - 1.0 / (3.0 * std::pow(rc, 3)));
    const auto d = DispersionCorrection::integrals(6, VdwModifier::PotentialSwitch, r1, rc);
    EXPECT_EQ(d.shift, 0.0);  // the potential switch leaves the short range untouched
    EXPECT_NEAR(d.energy, expected, 1e-8 * std::abs(expected));
    // The force switch keeps the force below r1 and so shifts the potential by a constant there.
    const auto f = DispersionCorrection::integrals(6, VdwModifier::ForceSwitch, r1, rc);
    EXPECT_LT(f.shift, 0.0);
    EXPECT_GT(f.shift, -std::pow(r1, -6));
}

TEST(DispersionCorrection, OneTypeFluidMatchesTheTextbookTail) {
    System sys = testing::lj_system(500);
    sys.dispcorr = DispCorr::EnerPres;
    const double rc = sys.rc, c6 = sys.lj.c6_at(0, 0), n = static_cast<double>(sys.natoms());
    const double v = sys.box.volume(), rho = n / v;
    const DispersionCorrection dc(sys, rc);
    EXPECT_DOUBLE_EQ(dc.mean_c6(), c6);
    const DispersionCorrectionValues at = dc.at_volume(v);
    // -2/3 pi N rho c6 / rc^3 beyond rc, and -c6/rc^6 for each pair shifted inside it.
    const double tail = -2.0 / 3.0 * kPi * n * rho * c6 / std::pow(rc, 3);
    const double shift = -0.5 * n * c6 * (4.0 / 3.0 * kPi * rho * std::pow(rc, 3) - 1.0) / std::pow(rc, 6);
    EXPECT_NEAR(at.energy, tail + shift, 1e-9 * std::abs(tail + shift));
    const double pressure = -4.0 / 3.0 * kPi * rho * rho * c6 / std::pow(rc, 3) * units::kBarPerKjMolNm3;
    EXPECT_NEAR(at.pressure, pressure, 1e-9 * std::abs(pressure));
    // Ener corrects the energy only; no correction at all without DispCorr.
    sys.dispcorr = DispCorr::Ener;
    EXPECT_EQ(DispersionCorrection(sys, rc).at_volume(v).pressure, 0.0);
    EXPECT_DOUBLE_EQ(DispersionCorrection(sys, rc).at_volume(v).energy, at.energy);
    sys.dispcorr = DispCorr::No;
    EXPECT_EQ(DispersionCorrection(sys, rc).at_volume(v).energy, 0.0);
}

TEST(DispersionCorrection, ExcludedPairsLeaveTheMean) {
    // Two types; every B atom excluded from one A atom. The mean runs over the
    // remaining pairs only, as GROMACS averages.
    System sys = testing::two_type_lb_system(300);
    sys.dispcorr = DispCorr::AllEner;
    sys.exclusions.assign(sys.natoms(), {});
    long excluded = 0;
    for (std::size_t i = 0; i < sys.natoms(); i += 3) {  // type 1 atoms, each excluded from its neighbour
        sys.exclusions[i].push_back(static_cast<int>(i + 1));
        sys.exclusions[i + 1].push_back(static_cast<int>(i));
        ++excluded;
    }
    double pairs = 0, sum6 = 0, sum12 = 0;
    for (std::size_t i = 0; i < sys.natoms(); ++i)
        for (std::size_t j = i + 1; j < sys.natoms(); ++j) {
            if (j == i + 1 && i % 3 == 0) continue;
            pairs += 1;
            sum6 += sys.lj.c6_at(sys.type[i], sys.type[j]);
            sum12 += sys.lj.c12_at(sys.type[i], sys.type[j]);
        }
    const DispersionCorrection dc(sys, sys.rc);
    EXPECT_GT(excluded, 0);
    EXPECT_NEAR(dc.mean_c6(), sum6 / pairs, 1e-12 * sum6 / pairs);
    EXPECT_NEAR(dc.mean_c12(), sum12 / pairs, 1e-12 * sum12 / pairs);
}

TEST(DispersionCorrection, RunReportsItInThePotential) {
    System sys = testing::lj_system(500);
    sys.dispcorr = DispCorr::EnerPres;
    RunConfig cfg;
    cfg.threads = 1;
    const ForceResult with = compute_forces(sys, cfg);
    sys.dispcorr = DispCorr::No;
    const ForceResult without = compute_forces(sys, cfg);
    EXPECT_LT(with.dispersion_correction, 0.0);
    EXPECT_LT(with.pressure_dc, 0.0);
    EXPECT_EQ(without.dispersion_correction, 0.0);
    EXPECT_NEAR(with.potential - without.potential, with.dispersion_correction, 1e-9 * std::abs(with.potential));
    EXPECT_EQ(with.config.dispcorr, DispCorr::EnerPres);
}

TEST(DispersionCorrection, SwitchWithoutSwitchRadiusIsRefused) {
    System sys = testing::lj_system(500);
    sys.dispcorr = DispCorr::EnerPres;
    sys.vdw_modifier = VdwModifier::ForceSwitch;
    sys.rvdw_switch = 0.0;
    RunConfig cfg;
    cfg.threads = 1;
    try {
        compute_forces(sys, cfg);
        FAIL() << "accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("rvdw-switch"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace mdcore
