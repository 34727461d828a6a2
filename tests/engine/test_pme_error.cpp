// The a-priori Ewald/PME force error estimates (pme/pme_error.h) against the errors
// measured with the direct Ewald oracle, and the accuracy rule resolve_config applies
// with them (pme/pme_accuracy.h).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "mdcore/engine.h"
#include "mdcore/generators.h"
#include "mdcore/units.h"
#include "pme/pme.h"
#include "pme/pme_accuracy.h"
#include "pme/pme_error.h"

namespace mdcore {
namespace {

// n neutral random charges in [-1, 1] e, uniform in an Lx x Ly x Lz box.
System random_charges(int n, Vec3 lengths, std::uint64_t seed) {
    System s;
    s.kind = "pme-error-test";
    s.box.lengths = lengths;
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0), chg(-1.0, 1.0);
    double sum = 0;
    for (int i = 0; i < n; ++i) {
        s.positions.push_back({unit(rng) * lengths[0], unit(rng) * lengths[1], unit(rng) * lengths[2]});
        s.charge.push_back(chg(rng));
        sum += s.charge.back();
    }
    for (double& q : s.charge) q -= sum / n;
    s.velocities.assign(n, Vec3{0, 0, 0});
    s.type.assign(n, 0);
    s.mass.assign(n, 1.0);
    return s;
}

// RMS over atoms of |F_a - F_b| (vector norm), forces as 3n arrays.
double rms_difference(const std::vector<double>& a, const std::vector<double>& b) {
    double d2 = 0;
    for (std::size_t k = 0; k < a.size(); ++k) d2 += (a[k] - b[k]) * (a[k] - b[k]);
    return std::sqrt(d2 / (a.size() / 3));
}

std::vector<double> flatten(const std::vector<Vec3>& f) {
    std::vector<double> out;
    for (const Vec3& v : f) out.insert(out.end(), {v[0], v[1], v[2]});
    return out;
}

std::vector<double> pme_forces(const System& s, PmeGrid grid, int order, double beta) {
    const std::size_t n = s.natoms();
    std::vector<double> x(n), y(n), z(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = s.positions[i][0], y[i] = s.positions[i][1], z[i] = s.positions[i][2];
    std::vector<float> fx(n, 0.f), fy(n, 0.f), fz(n, 0.f);
    Pme pme(s.box, grid, order, beta, s.epsilon_r, 1);
    pme.compute(n, x.data(), y.data(), z.data(), s.charge.data(), fx.data(), fy.data(), fz.data());
    std::vector<double> f;
    for (std::size_t i = 0; i < n; ++i) f.insert(f.end(), {fx[i], fy[i], fz[i]});
    return f;
}

// The mesh estimate against the measured RMS error of PME's reciprocal forces
// (oracle: all wave vectors up to where exp(-pi^2 m^2/beta^2) < 1e-16) over orders,
// spacings, splitting parameters and a rectangular box: within a factor 2 either way.
TEST(PmeError, MeshEstimateMatchesDirectEwald) {
    struct Case {
        Vec3 box;
        int order;
        double spacing, rc;
    };
    const Case cases[] = {
        {{2.5, 2.5, 2.5}, 4, 0.12, 1.0}, {{2.5, 2.5, 2.5}, 4, 0.2, 1.0},  {{2.5, 2.5, 2.5}, 4, 0.08, 1.0},
        {{2.5, 2.5, 2.5}, 5, 0.12, 1.0}, {{2.5, 2.5, 2.5}, 6, 0.25, 1.0}, {{2.5, 2.5, 2.5}, 4, 0.12, 0.8},
        {{2.0, 2.7, 3.1}, 4, 0.15, 0.9},
    };
    for (const Case& c : cases) {
        const System s = random_charges(150, c.box, 7);
        const double beta = ewald_beta(c.rc, 1e-5);
        const double m_max = 6.0 * beta / 3.12;  // nm^-1, exp(-pi^2 m^2/beta^2) < 1e-16 beyond
        const int kmax = static_cast<int>(std::ceil(m_max * std::max({c.box[0], c.box[1], c.box[2]}))) + 1;
        const EwaldDirectResult all = ewald_direct(s, beta, c.rc, kmax);
        const EwaldDirectResult none = ewald_direct(s, beta, c.rc, 0);
        std::vector<double> recip = flatten(all.forces);
        const std::vector<double> rest = flatten(none.forces);
        for (std::size_t k = 0; k < recip.size(); ++k) recip[k] -= rest[k];

        const PmeGrid grid = pme_grid_for_spacing(s.box, c.spacing, c.order);
        const double measured = rms_difference(pme_forces(s, grid, c.order, beta), recip);
        const double estimate = pme_recip_force_error(s.box, grid, c.order, beta, charge_moments(s.charge, 1.0));
        std::printf("  box %.1fx%.1fx%.1f grid %dx%dx%d order %d beta %.3f: measured %.3e estimate %.3e (x%.2f)\n",
                    c.box[0], c.box[1], c.box[2], grid.nx, grid.ny, grid.nz, c.order, beta, measured, estimate,
                    estimate / measured);
        EXPECT_GT(estimate, 0.5 * measured);
        EXPECT_LT(estimate, 2.0 * measured);
    }
}

// Kolafa-Perram against the real-space forces the cut-off leaves out (the oracle with
// rc against the oracle with every minimum-image pair).
TEST(PmeError, RealSpaceEstimateMatchesDirectEwald) {
    for (const double rc : {0.8, 1.0, 1.2}) {
        const System s = random_charges(200, {3.0, 3.0, 3.0}, 19);
        const double beta = ewald_beta(rc, 1e-5);
        const double measured = rms_difference(flatten(ewald_direct(s, beta, rc, 0).forces),
                                               flatten(ewald_direct(s, beta, 3.0, 0).forces));
        const double estimate = ewald_real_force_error(s.box, rc, beta, charge_moments(s.charge, 1.0));
        std::printf("  rc %.1f: measured %.3e estimate %.3e (x%.2f)\n", rc, measured, estimate, estimate / measured);
        EXPECT_GT(estimate, 0.5 * measured);
        EXPECT_LT(estimate, 2.0 * measured);
    }
}

TEST(PmeError, FallsWithFinerGridAndHigherOrder) {
    const System s = random_charges(50, {3.0, 3.0, 3.0}, 3);
    const ChargeMoments q = charge_moments(s.charge, 1.0);
    const double beta = ewald_beta(1.0, 1e-5);
    double prev = 1e300;
    for (int n : {12, 16, 24, 32}) {
        const double e = pme_recip_force_error(s.box, {n, n, n}, 4, beta, q);
        EXPECT_LT(e, prev) << n;
        prev = e;
    }
    EXPECT_LT(pme_recip_force_error(s.box, {24, 24, 24}, 6, beta, q), pme_recip_force_error(s.box, {24, 24, 24}, 4, beta, q));
    // Scales with kCoulomb / epsilon_r; no charges, no error.
    EXPECT_NEAR(pme_recip_force_error(s.box, {24, 24, 24}, 4, beta, charge_moments(s.charge, 2.0)),
                0.5 * pme_recip_force_error(s.box, {24, 24, 24}, 4, beta, q), 1e-12 * prev);
    EXPECT_EQ(ewald_force_error(s.box, {1.0, beta, {24, 24, 24}, 4}, charge_moments({0.0, 0.0}, 1.0)), 0.0);
}

TEST(PmeError, NominalGridIgnoresFftSizes) {
    Box box;
    box.lengths = {6.26, 2.3, 0.5};
    const PmeGrid g = pme_nominal_grid(box, 0.12, 4);
    EXPECT_EQ(g.nx, 53);  // 52.2 -> 53 (pme_grid_size would take 54)
    EXPECT_EQ(g.ny, 20);  // 19.2 -> 20
    EXPECT_EQ(g.nz, 8);   // 2*order floor
}

// SPC/E water in a 6.26 nm box, as the GROMACS-prepared 24,153-atom benchmark
// (positions do not enter the estimate, so the generator's box stands in for it).
System water_box_626() {
    WaterSpec spec;
    spec.nwater = 8051;
    spec.relax_steps = 0;
    const double mass = 8051 * 18.01528 / units::kAvogadro;  // g
    spec.density = mass / std::pow(6.26e-7, 3);               // g/cm^3
    return make_water_system(spec);
}

// GROMACS' fourierspacing 0.125 nm: a 52^3 grid on the 6.26 nm box (0.1204 nm). The
// old rule (beta x spacing <= its value at 0.12 nm) refused it.
TEST(PmeAccuracy, GromacsGridOnTheWaterBoxIsAccepted) {
    const System water = water_box_626();
    ASSERT_NEAR(water.box.lengths[0], 6.26, 1e-3);
    RunConfig config;
    config.pme_grid = std::array<int, 3>{52, 52, 52};
    const EffectiveConfig eff = resolve_config(water, config, RunControl{});
    EXPECT_EQ(eff.pme_grid[0], 52);
    EXPECT_GT(eff.pme_force_error, 0.0);
    // The default grid (54^3, finer) has a smaller estimate, and 52^3 is within the tolerance of it.
    const EffectiveConfig def = resolve_config(water, RunConfig{}, RunControl{});
    EXPECT_EQ(def.pme_grid[0], 54);
    EXPECT_LT(def.pme_force_error, eff.pme_force_error);
    EXPECT_LT(eff.pme_force_error, kPmeErrorTolerance * def.pme_force_error);
    std::printf("  52^3: %.3f kJ/mol/nm, 54^3: %.3f kJ/mol/nm\n", eff.pme_force_error, def.pme_force_error);
}

TEST(PmeAccuracy, CoarseGridIsRefusedNamingGridEstimateAndLimit) {
    const System water = water_box_626();
    RunConfig config;
    config.pme_grid = std::array<int, 3>{16, 16, 16};
    try {
        resolve_config(water, config, RunControl{});
        FAIL() << "a 16^3 grid on a 6.26 nm box was accepted";
    } catch (const std::invalid_argument& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("PME grid 16x16x16"), std::string::npos) << what;
        EXPECT_NE(what.find("estimated RMS force error"), std::string::npos) << what;
        EXPECT_NE(what.find("above the limit"), std::string::npos) << what;
        EXPECT_NE(what.find("spacing 0.12 nm, order 4"), std::string::npos) << what;
    }
    // A higher order buys back some of a coarser grid: 40^3 (0.157 nm) fails at order 4
    // and passes at order 6.
    config.pme_grid = std::array<int, 3>{40, 40, 40};
    EXPECT_THROW(resolve_config(water, config, RunControl{}), std::invalid_argument);
    config.pme_order = 6;
    EXPECT_NO_THROW(resolve_config(water, config, RunControl{}));
}

// --pme-scale keeps its meaning: rc and the spacing scale together, beta follows rc,
// and the automatic grid of a scaled run passes the rule.
TEST(PmeAccuracy, ScaledRunsPass) {
    const System water = water_box_626();
    for (const double scale : {1.0, 1.1, 1.25, 1.5}) {
        RunConfig config;
        config.pme_scale = scale;
        const EffectiveConfig eff = resolve_config(water, config, RunControl{});
        EXPECT_NEAR(eff.rc, scale * water.rc, 1e-12);
        EXPECT_NEAR(eff.pme_spacing, scale * 0.12, 1e-12);
        EXPECT_GT(eff.pme_force_error, 0.0) << scale;
    }
}

}  // namespace
}  // namespace mdcore
