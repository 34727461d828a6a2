// Bonded interactions: closed-form energies, forces against finite differences of
// the reference's own energy, translation invariance, minimum image, degenerate
// geometry, and the threaded production path against the reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#include "bonded/bonded_force.h"
#include "bonded/bonded_reference.h"
#include "mdcore/units.h"

namespace mdcore {
namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kDeg = kPi / 180.0;

const Box kNoBox{};  // no periodicity

double norm(const Vec3& a) { return std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }
Vec3 add(const Vec3& a, const Vec3& b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }

BondedEnergies reference(const BondedInteractions& t, const std::vector<Vec3>& x, const Box& box,
                         std::vector<Vec3>& f) {
    f.assign(x.size(), Vec3{0.0, 0.0, 0.0});
    return compute_bonded_reference(t, x, box, f);
}
double energy(const BondedInteractions& t, const std::vector<Vec3>& x, const Box& box) {
    std::vector<Vec3> f;
    return reference(t, x, box, f).total();
}

// Forces against a central difference of the energy (step 1e-6 nm), error
// relative to the largest force component; and forces summing to zero.
void check_forces(const BondedInteractions& t, const std::vector<Vec3>& x0, const Box& box = kNoBox,
                  bool translation_invariant = true) {
    std::vector<Vec3> f;
    reference(t, x0, box, f);
    double fmax = 0.0;
    for (const auto& v : f) fmax = std::max({fmax, std::fabs(v[0]), std::fabs(v[1]), std::fabs(v[2])});
    ASSERT_GT(fmax, 1e-3) << "the geometry should not be at a stationary point";
    const double h = 1e-6;
    for (std::size_t a = 0; a < x0.size(); ++a)
        for (int d = 0; d < 3; ++d) {
            std::vector<Vec3> x = x0;
            x[a][d] = x0[a][d] + h;
            const double ep = energy(t, x, box);
            x[a][d] = x0[a][d] - h;
            const double em = energy(t, x, box);
            const double fd = -(ep - em) / (2.0 * h);
            EXPECT_LT(std::fabs(f[a][d] - fd) / fmax, 1e-6) << "atom " << a << " dim " << d << ": " << f[a][d]
                                                             << " vs " << fd;
        }
    if (translation_invariant) {
        Vec3 sum{0.0, 0.0, 0.0};
        for (const auto& v : f) sum = add(sum, v);
        for (int d = 0; d < 3; ++d) EXPECT_LT(std::fabs(sum[d]), 1e-12 * fmax) << "dim " << d;
    }
}

bool all_finite(const std::vector<Vec3>& f) {
    for (const auto& v : f)
        for (double c : v)
            if (!std::isfinite(c)) return false;
    return true;
}

// j at the origin, k on z, i in the xz plane, l rotated by phi about j->k (right hand).
std::vector<Vec3> dihedral_geometry(double phi) {
    return {{0.15, 0.0, -0.03}, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.153}, {0.14 * std::cos(phi), 0.14 * std::sin(phi), 0.2}};
}

// An angle i-j-k of theta with arms 0.1 and 0.12 nm, slightly off the axes.
std::vector<Vec3> angle_geometry(double theta) {
    return {{0.1, 0.01, 0.02}, {0.0, 0.01, 0.02}, {0.12 * std::cos(theta), 0.01 + 0.12 * std::sin(theta), 0.02}};
}

CmapGrid smooth_grid(int n, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    const double a = u(rng), b = u(rng), c = u(rng), d = u(rng);
    CmapGrid g;
    g.n = n;
    g.values.resize(n * n);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            const double phi = -kPi + 2.0 * kPi * i / n, psi = -kPi + 2.0 * kPi * j / n;
            g.values[i * n + j] = 3.0 * a * std::cos(phi) + 2.0 * b * std::sin(2.0 * psi) +
                                  c * std::cos(phi - psi) + d * std::sin(phi + 2.0 * psi) + 0.3 * u(rng);
        }
    return g;
}

// ---------------------------------------------------------------- closed-form energies

TEST(BondedEnergy, HarmonicBond) {
    BondedInteractions t;
    t.bonds.push_back({{0, 1}, 0.1, 3.0e5});
    const std::vector<Vec3> x{{0.0, 0.0, 0.0}, {0.09, 0.05, -0.02}};
    const double r = std::sqrt(0.09 * 0.09 + 0.05 * 0.05 + 0.02 * 0.02);
    std::vector<Vec3> f;
    const BondedEnergies e = reference(t, x, kNoBox, f);
    EXPECT_NEAR(e.bond, 0.5 * 3.0e5 * (r - 0.1) * (r - 0.1), 1e-12 * e.bond);
    EXPECT_DOUBLE_EQ(e.total(), e.bond);
    check_forces(t, x);
}

TEST(BondedEnergy, G96Bond) {
    BondedInteractions t;
    t.g96_bonds.push_back({{0, 1}, 0.1, 1.0e7});
    const std::vector<Vec3> x{{0.0, 0.0, 0.0}, {0.09, 0.05, -0.02}};
    const double r2 = 0.09 * 0.09 + 0.05 * 0.05 + 0.02 * 0.02;
    std::vector<Vec3> f;
    const BondedEnergies e = reference(t, x, kNoBox, f);
    EXPECT_NEAR(e.g96_bond, 0.25 * 1.0e7 * (r2 - 0.01) * (r2 - 0.01), 1e-12 * e.g96_bond);
    EXPECT_DOUBLE_EQ(e.total(), e.g96_bond);
    check_forces(t, x);
}

TEST(BondedEnergy, HarmonicAngle) {
    BondedInteractions t;
    t.angles.push_back({{0, 1, 2}, 109.5 * kDeg, 400.0});
    const double theta = 1.7;
    const std::vector<Vec3> x = angle_geometry(theta);
    std::vector<Vec3> f;
    const BondedEnergies e = reference(t, x, kNoBox, f);
    EXPECT_NEAR(e.angle, 0.5 * 400.0 * (theta - 109.5 * kDeg) * (theta - 109.5 * kDeg), 1e-11 * e.angle);
    EXPECT_DOUBLE_EQ(e.total(), e.angle);
    check_forces(t, x);
}

TEST(BondedEnergy, G96Angle) {
    BondedInteractions t;
    t.g96_angles.push_back({{0, 1, 2}, std::cos(109.5 * kDeg), 500.0});
    const double theta = 1.7;
    const std::vector<Vec3> x = angle_geometry(theta);
    std::vector<Vec3> f;
    const BondedEnergies e = reference(t, x, kNoBox, f);
    const double dc = std::cos(theta) - std::cos(109.5 * kDeg);
    EXPECT_NEAR(e.g96_angle, 0.5 * 500.0 * dc * dc, 1e-11 * e.g96_angle);
    EXPECT_DOUBLE_EQ(e.total(), e.g96_angle);
    check_forces(t, x);
}

TEST(BondedEnergy, UreyBradley) {
    BondedInteractions t;
    t.urey_bradley.push_back({{0, 1, 2}, 110.0 * kDeg, 300.0, 0.18, 2.0e4});
    const double theta = 1.75;
    const std::vector<Vec3> x = angle_geometry(theta);
    // law of cosines for the 1-3 distance
    const double r13 = std::sqrt(0.1 * 0.1 + 0.12 * 0.12 - 2.0 * 0.1 * 0.12 * std::cos(theta));
    std::vector<Vec3> f;
    const BondedEnergies e = reference(t, x, kNoBox, f);
    const double expected = 0.5 * 300.0 * (theta - 110.0 * kDeg) * (theta - 110.0 * kDeg) +
                            0.5 * 2.0e4 * (r13 - 0.18) * (r13 - 0.18);
    EXPECT_NEAR(e.urey_bradley, expected, 1e-11 * expected);
    EXPECT_DOUBLE_EQ(e.total(), e.urey_bradley);
    check_forces(t, x);
}

TEST(BondedEnergy, DihedralSignConvention) {
    // trans is 180 degrees; l turned right-handed about j->k from i is positive
    BondedInteractions t;
    t.impropers.push_back({{0, 1, 2, 3}, 0.0, 2.0});
    for (double phi : {-150.0, -60.0, -1.0, 0.0, 30.0, 100.0, 179.0, 180.0}) {
        const BondedEnergies e = [&] {
            std::vector<Vec3> f;
            return reference(t, dihedral_geometry(phi * kDeg), kNoBox, f);
        }();
        const double wrapped = phi * kDeg;
        EXPECT_NEAR(e.improper, 0.5 * 2.0 * wrapped * wrapped, 1e-10) << phi;
    }
    // only the sign tells +60 from -60: a harmonic improper at xi0 = 60 degrees
    t.impropers[0].xi0 = 60.0 * kDeg;
    EXPECT_NEAR(energy(t, dihedral_geometry(60.0 * kDeg), kNoBox), 0.0, 1e-20);
    EXPECT_NEAR(energy(t, dihedral_geometry(-60.0 * kDeg), kNoBox), 0.5 * 2.0 * std::pow(120.0 * kDeg, 2), 1e-10);
}

TEST(BondedEnergy, PeriodicDihedral) {
    BondedInteractions t;
    t.proper_dihedrals.push_back({{0, 1, 2, 3}, 20.0 * kDeg, 5.0, 3});
    t.proper_dihedrals.push_back({{0, 1, 2, 3}, 180.0 * kDeg, 1.5, 2});  // type 9: a second term
    t.periodic_impropers.push_back({{0, 1, 2, 3}, 180.0 * kDeg, 4.0, 2});
    const double phi = -72.0 * kDeg;
    const std::vector<Vec3> x = dihedral_geometry(phi);
    std::vector<Vec3> f;
    const BondedEnergies e = reference(t, x, kNoBox, f);
    const double proper = 5.0 * (1.0 + std::cos(3.0 * phi - 20.0 * kDeg)) + 1.5 * (1.0 + std::cos(2.0 * phi - kPi));
    EXPECT_NEAR(e.proper_dihedral, proper, 1e-12 * proper);
    const double imp = 4.0 * (1.0 + std::cos(2.0 * phi - kPi));
    EXPECT_NEAR(e.periodic_improper, imp, 1e-12 * imp);
    EXPECT_NEAR(e.total(), proper + imp, 1e-12 * (proper + imp));
    check_forces(t, x);
}

TEST(BondedEnergy, HarmonicImproperWrapsDeviation) {
    BondedInteractions t;
    t.impropers.push_back({{0, 1, 2, 3}, 170.0 * kDeg, 40.0});
    // phi = -170: phi - xi0 = -340 degrees, wrapped to +20
    const std::vector<Vec3> x = dihedral_geometry(-170.0 * kDeg);
    std::vector<Vec3> f;
    const BondedEnergies e = reference(t, x, kNoBox, f);
    EXPECT_NEAR(e.improper, 0.5 * 40.0 * std::pow(20.0 * kDeg, 2), 1e-10);
    EXPECT_DOUBLE_EQ(e.total(), e.improper);
    check_forces(t, x);
    t.impropers[0].xi0 = 10.0 * kDeg;
    check_forces(t, dihedral_geometry(35.0 * kDeg));
}

TEST(BondedEnergy, RyckaertBellemans) {
    BondedInteractions t;
    t.rb_dihedrals.push_back({{0, 1, 2, 3}, {9.28, 12.16, -13.12, -3.06, 26.24, -31.5}});
    const double phi = 65.0 * kDeg;
    const std::vector<Vec3> x = dihedral_geometry(phi);
    std::vector<Vec3> f;
    const BondedEnergies e = reference(t, x, kNoBox, f);
    const double c = std::cos(phi - kPi);
    double expected = 0.0;
    for (int n = 0; n < 6; ++n) expected += t.rb_dihedrals[0].c[n] * std::pow(c, n);
    EXPECT_NEAR(e.rb, expected, 1e-12 * std::fabs(expected));
    EXPECT_DOUBLE_EQ(e.total(), e.rb);
    check_forces(t, x);
    // trans: psi = 0, V = sum C_n
    const double sum = std::accumulate(t.rb_dihedrals[0].c.begin(), t.rb_dihedrals[0].c.end(), 0.0);
    EXPECT_NEAR(energy(t, dihedral_geometry(kPi), kNoBox), sum, 1e-10);
}

TEST(BondedEnergy, Pair14) {
    BondedInteractions t;
    t.epsilon_r = 2.5;
    t.pairs.push_back({{0, 1}, 2.1e-3, 3.3e-6, -0.42});
    const std::vector<Vec3> x{{0.01, 0.02, 0.03}, {0.21, 0.17, -0.08}};
    const double r = std::sqrt(0.2 * 0.2 + 0.15 * 0.15 + 0.11 * 0.11);
    std::vector<Vec3> f;
    const BondedEnergies e = reference(t, x, kNoBox, f);
    const double lj = 3.3e-6 / std::pow(r, 12) - 2.1e-3 / std::pow(r, 6);
    const double coul = units::kCoulomb * -0.42 / (2.5 * r);
    EXPECT_NEAR(e.lj14, lj, 1e-12 * std::fabs(lj));
    EXPECT_NEAR(e.coulomb14, coul, 1e-12 * std::fabs(coul));
    EXPECT_NEAR(e.total(), lj + coul, 1e-12 * std::fabs(lj + coul));
    check_forces(t, x);
}

TEST(BondedEnergy, PositionRestraint) {
    BondedInteractions t;
    t.position_restraints.push_back({0, {0.1, 1.0, 0.5}, {1000.0, 2000.0, 500.0}});
    const Box box{{3.0, 3.0, 3.0}};
    // x is 2.9 vs reference 0.1: the minimum image is -0.2
    const std::vector<Vec3> x{{2.9, 1.05, 0.47}};
    std::vector<Vec3> f;
    const BondedEnergies e = reference(t, x, box, f);
    const double expected = 0.5 * (1000.0 * 0.04 + 2000.0 * 0.0025 + 500.0 * 0.0009);
    EXPECT_NEAR(e.position_restraint, expected, 1e-12);
    EXPECT_DOUBLE_EQ(e.total(), e.position_restraint);
    EXPECT_NEAR(f[0][0], 1000.0 * 0.2, 1e-9);
    EXPECT_NEAR(f[0][1], -2000.0 * 0.05, 1e-9);
    EXPECT_NEAR(f[0][2], 500.0 * 0.03, 1e-9);
    check_forces(t, x, box, false);
}

// Atom d at distance r from c, angle b-c-d theta and dihedral a-b-c-d phi.
Vec3 place(const Vec3& a, const Vec3& b, const Vec3& c, double r, double theta, double phi) {
    auto sub = [](const Vec3& p, const Vec3& q) { return Vec3{p[0] - q[0], p[1] - q[1], p[2] - q[2]}; };
    auto cr = [](const Vec3& p, const Vec3& q) {
        return Vec3{p[1] * q[2] - p[2] * q[1], p[2] * q[0] - p[0] * q[2], p[0] * q[1] - p[1] * q[0]};
    };
    auto unit = [](const Vec3& p) {
        const double n = norm(p);
        return Vec3{p[0] / n, p[1] / n, p[2] / n};
    };
    const Vec3 bc = unit(sub(c, b));
    const Vec3 nrm = unit(cr(sub(b, a), bc));
    const Vec3 m = cr(nrm, bc);
    const double dx = -r * std::cos(theta), dy = r * std::sin(theta) * std::cos(phi),
                 dz = r * std::sin(theta) * std::sin(phi);
    return {c[0] + dx * bc[0] + dy * m[0] + dz * nrm[0], c[1] + dx * bc[1] + dy * m[1] + dz * nrm[1],
            c[2] + dx * bc[2] + dy * m[2] + dz * nrm[2]};
}

// Five atoms whose dihedrals 0-3 and 1-4 are phi and psi.
std::vector<Vec3> cmap_geometry(double phi, double psi) {
    std::vector<Vec3> x = dihedral_geometry(phi);
    x.push_back(place(x[1], x[2], x[3], 0.15, 110.0 * kDeg, psi));
    return x;
}

// The dihedral i..i+3 as the reference sees it: |phi| from a harmonic improper
// at 0 (V = phi^2), its sign from 1 + cos(phi - 90 deg) = 1 + sin(phi).
double dihedral_of(const std::vector<Vec3>& x, int i) {
    BondedInteractions t;
    t.impropers.push_back({{i, i + 1, i + 2, i + 3}, 0.0, 2.0});
    const double phi2 = energy(t, x, kNoBox);
    BondedInteractions s;
    s.proper_dihedrals.push_back({{i, i + 1, i + 2, i + 3}, 90.0 * kDeg, 1.0, 1});
    const double sgn = energy(s, x, kNoBox) - 1.0;
    return std::copysign(std::sqrt(phi2), sgn);
}

TEST(BondedEnergy, CmapAtGridPointsIsTheGridValue) {
    BondedInteractions t;
    t.cmap_grids.push_back(smooth_grid(24, 3));
    t.cmap.push_back({{0, 1, 2, 3, 4}, 0});
    const CmapGrid& g = t.cmap_grids[0];
    for (auto [i, j] : {std::pair{4, 15}, std::pair{0, 0}, std::pair{23, 7}, std::pair{12, 23}, std::pair{17, 1}}) {
        const double phi = -kPi + i * 15.0 * kDeg, psi = -kPi + j * 15.0 * kDeg;
        const std::vector<Vec3> x = cmap_geometry(phi, psi);
        ASSERT_NEAR(std::remainder(dihedral_of(x, 0) - phi, 2 * kPi), 0.0, 1e-7);
        ASSERT_NEAR(std::remainder(dihedral_of(x, 1) - psi, 2 * kPi), 0.0, 1e-7);
        std::vector<Vec3> f;
        const BondedEnergies e = reference(t, x, kNoBox, f);
        EXPECT_NEAR(e.cmap, g.values[i * 24 + j], 1e-9) << i << " " << j;
        EXPECT_DOUBLE_EQ(e.total(), e.cmap);
    }
}

TEST(BondedEnergy, CmapConstantGridHasNoForce) {
    BondedInteractions t;
    t.cmap_grids.push_back({12, std::vector<double>(144, -3.25)});
    t.cmap.push_back({{0, 1, 2, 3, 4}, 0});
    const std::vector<Vec3> x = cmap_geometry(-63.0 * kDeg, 141.0 * kDeg);
    std::vector<Vec3> f;
    EXPECT_NEAR(reference(t, x, kNoBox, f).cmap, -3.25, 1e-12);
    for (const auto& v : f) EXPECT_LT(norm(v), 1e-9);
}

TEST(BondedEnergy, CmapIsContinuousAndPeriodic) {
    BondedInteractions t;
    t.cmap_grids.push_back(smooth_grid(24, 5));
    t.cmap.push_back({{0, 1, 2, 3, 4}, 0});
    const double d = 1e-9;
    // across a cell edge (phi = -60) and across the wrap at +-180 in both angles
    for (double phi : {-60.0 * kDeg, kPi}) {
        const double lo = energy(t, cmap_geometry(phi - d, 33.0 * kDeg), kNoBox);
        const double hi = energy(t, cmap_geometry(phi + d, 33.0 * kDeg), kNoBox);
        EXPECT_NEAR(lo, hi, 1e-6) << phi;
    }
    const double lo = energy(t, cmap_geometry(-100.0 * kDeg, kPi - d), kNoBox);
    const double hi = energy(t, cmap_geometry(-100.0 * kDeg, -kPi + d), kNoBox);
    EXPECT_NEAR(lo, hi, 1e-6);
}

// Slopes of the periodic cubic spline through y (spacing h): s[i-1] + 4 s[i] +
// s[i+1] = 3 (y[i+1] - y[i-1]) / h, solved by Gauss-Seidel (diagonally dominant).
std::vector<double> periodic_spline_slopes(const std::vector<double>& y, double h) {
    const int n = static_cast<int>(y.size());
    std::vector<double> s(n, 0.0);
    for (int it = 0; it < 200; ++it)
        for (int i = 0; i < n; ++i) {
            const int im = (i + n - 1) % n, ip = (i + 1) % n;
            s[i] = (3.0 * (y[ip] - y[im]) / h - s[im] - s[ip]) / 4.0;
        }
    return s;
}

TEST(BondedCmapSetup, DerivativesAreThoseOfPeriodicSplines) {
    // grompp's natural splines over the doubled grid are, in its middle, the periodic ones
    const int n = 24;
    const double h = 360.0 / n;  // per degree, as GROMACS stores them
    const CmapGrid g = smooth_grid(n, 19);
    const auto d = cmap_grid_derivatives(g);
    double worst = 0.0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) EXPECT_EQ(d[i * n + j][0], g.values[i * n + j]);
    std::vector<std::vector<double>> dpsi(n);  // per phi row: slopes along psi
    for (int i = 0; i < n; ++i)
        dpsi[i] = periodic_spline_slopes({g.values.begin() + i * n, g.values.begin() + (i + 1) * n}, h);
    for (int j = 0; j < n; ++j) {
        std::vector<double> column(n), dcolumn(n);
        for (int i = 0; i < n; ++i) {
            column[i] = g.values[i * n + j];
            dcolumn[i] = dpsi[i][j];
        }
        const std::vector<double> dphi = periodic_spline_slopes(column, h);
        const std::vector<double> dphidpsi = periodic_spline_slopes(dcolumn, h);
        for (int i = 0; i < n; ++i) {
            worst = std::max({worst, std::fabs(d[i * n + j][1] - dphi[i]), std::fabs(d[i * n + j][2] - dpsi[i][j]),
                              std::fabs(d[i * n + j][3] - dphidpsi[i]) * h});
        }
    }
    EXPECT_LT(worst, 1e-7);
}

TEST(BondedCmapSetup, CellCoefficientsMatchCornerValuesAndSlopes) {
    const int n = 12;
    const double h = 360.0 / n;
    const auto d = cmap_grid_derivatives(smooth_grid(n, 23));
    auto eval = [](const std::array<double, 16>& c, double t, double u, double& dt, double& du, double& dtu) {
        double v = 0.0;
        dt = du = dtu = 0.0;
        for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j) {
                const double cij = c[i * 4 + j];
                v += cij * std::pow(t, i) * std::pow(u, j);
                if (i > 0) dt += i * cij * std::pow(t, i - 1) * std::pow(u, j);
                if (j > 0) du += j * cij * std::pow(t, i) * std::pow(u, j - 1);
                if (i > 0 && j > 0) dtu += i * j * cij * std::pow(t, i - 1) * std::pow(u, j - 1);
            }
        return v;
    };
    for (auto [i, j] : {std::pair{0, 0}, std::pair{3, 8}, std::pair{11, 5}, std::pair{11, 11}}) {
        const auto c = cmap_cell_coefficients(d, n, i, j);
        for (int a = 0; a < 2; ++a)
            for (int b = 0; b < 2; ++b) {
                const auto& corner = d[((i + a) % n) * n + (j + b) % n];
                double dt, du, dtu;
                EXPECT_NEAR(eval(c, a, b, dt, du, dtu), corner[0], 1e-12);
                EXPECT_NEAR(dt, corner[1] * h, 1e-11);  // t runs along phi
                EXPECT_NEAR(du, corner[2] * h, 1e-11);
                EXPECT_NEAR(dtu, corner[3] * h * h, 1e-10);
            }
    }
}

TEST(BondedEnergy, CmapInterpolatesASmoothFunction) {
    // a periodic function on a 15-degree grid: the bicubic follows it to ~4e-4
    auto fn = [](double p, double s) {
        return 2.0 * std::cos(p) + std::sin(2.0 * s) + 1.5 * std::cos(p - s) + 0.7 * std::sin(p + 2.0 * s);
    };
    BondedInteractions t;
    CmapGrid g{24, std::vector<double>(576)};
    for (int i = 0; i < 24; ++i)
        for (int j = 0; j < 24; ++j) g.values[i * 24 + j] = fn(-kPi + i * 15.0 * kDeg, -kPi + j * 15.0 * kDeg);
    t.cmap_grids.push_back(g);
    t.cmap.push_back({{0, 1, 2, 3, 4}, 0});
    for (auto [phi, psi] : {std::pair{-63.0, 141.0}, std::pair{-171.0, 177.5}, std::pair{52.0, -88.0},
                            std::pair{7.5, -172.5}, std::pair{179.0, 3.0}}) {
        const double e = energy(t, cmap_geometry(phi * kDeg, psi * kDeg), kNoBox);
        EXPECT_NEAR(e, fn(phi * kDeg, psi * kDeg), 1e-3) << phi << " " << psi;
    }
}

// ---------------------------------------------------------------- forces: finite differences, zero sum

TEST(BondedForces, CmapFiniteDifference) {
    BondedInteractions t;
    t.cmap_grids.push_back(smooth_grid(24, 7));
    t.cmap.push_back({{0, 1, 2, 3, 4}, 0});
    for (auto [phi, psi] : {std::pair{-63.0, 141.0}, std::pair{-171.0, 177.5}, std::pair{52.0, -88.0}})
        check_forces(t, cmap_geometry(phi * kDeg, psi * kDeg));
}

// Each list on its own, so a small force of one type is not hidden by another's.
std::vector<BondedInteractions> split_by_type(const BondedInteractions& all) {
    std::vector<BondedInteractions> out;
    auto one = [&](auto member) {
        if ((all.*member).empty()) return;
        BondedInteractions t;
        t.cmap_grids = all.cmap_grids;
        t.epsilon_r = all.epsilon_r;
        t.*member = all.*member;
        out.push_back(t);
    };
    one(&BondedInteractions::bonds);
    one(&BondedInteractions::g96_bonds);
    one(&BondedInteractions::angles);
    one(&BondedInteractions::g96_angles);
    one(&BondedInteractions::urey_bradley);
    one(&BondedInteractions::proper_dihedrals);
    one(&BondedInteractions::periodic_impropers);
    one(&BondedInteractions::impropers);
    one(&BondedInteractions::rb_dihedrals);
    one(&BondedInteractions::pairs);
    one(&BondedInteractions::cmap);
    one(&BondedInteractions::position_restraints);
    return out;
}

// One of every type on atoms 0-4.
BondedInteractions one_of_each() {
    BondedInteractions t;
    t.bonds.push_back({{0, 1}, 0.11, 2e5});
    t.g96_bonds.push_back({{1, 2}, 0.14, 8e6});
    t.angles.push_back({{0, 1, 2}, 100.0 * kDeg, 350.0});
    t.g96_angles.push_back({{1, 2, 3}, std::cos(120.0 * kDeg), 450.0});
    t.urey_bradley.push_back({{2, 3, 4}, 105.0 * kDeg, 300.0, 0.21, 1.5e4});
    t.proper_dihedrals.push_back({{0, 1, 2, 3}, 0.0, 3.0, 3});
    t.periodic_impropers.push_back({{1, 2, 3, 4}, 180.0 * kDeg, 4.6, 2});
    t.impropers.push_back({{0, 1, 2, 4}, 30.0 * kDeg, 80.0});
    t.rb_dihedrals.push_back({{1, 2, 3, 4}, {9.28, 12.16, -13.12, -3.06, 26.24, -31.5}});
    t.pairs.push_back({{0, 3}, 2e-3, 3e-6, 0.11});
    t.cmap_grids.push_back(smooth_grid(24, 17));
    t.cmap.push_back({{0, 1, 2, 3, 4}, 0});
    return t;
}

TEST(BondedForces, GenericGeometryEveryType) {
    // a twisted 5-atom chain, away from any symmetric point
    const std::vector<Vec3> x{
        {0.02, -0.01, 0.03}, {0.13, 0.04, 0.01}, {0.19, 0.15, 0.07}, {0.31, 0.14, 0.16}, {0.36, 0.27, 0.12}};
    const BondedInteractions all = one_of_each();
    const std::vector<BondedInteractions> types = split_by_type(all);
    ASSERT_EQ(types.size(), 11u);
    for (const auto& t : types) check_forces(t, x);
    check_forces(all, x);
    BondedInteractions r;
    r.position_restraints.push_back({2, {0.2, 0.1, 0.1}, {800.0, 900.0, 1000.0}});
    check_forces(r, x, kNoBox, false);
}

// ---------------------------------------------------------------- degenerate geometry

TEST(BondedDegenerate, CollinearAngleIsFinite) {
    BondedInteractions t;
    t.angles.push_back({{0, 1, 2}, 109.5 * kDeg, 400.0});
    t.g96_angles.push_back({{0, 1, 2}, std::cos(109.5 * kDeg), 400.0});
    t.urey_bradley.push_back({{0, 1, 2}, 109.5 * kDeg, 300.0, 0.2, 1e4});
    for (const std::vector<Vec3>& x : {std::vector<Vec3>{{0.0, 0.0, 0.0}, {0.1, 0.0, 0.0}, {0.22, 0.0, 0.0}},
                                       std::vector<Vec3>{{0.1, 0.1, 0.1}, {0.2, 0.2, 0.2}, {0.3, 0.3, 0.3}},
                                       std::vector<Vec3>{{0.3, 0.3, 0.3}, {0.2, 0.2, 0.2}, {0.3, 0.3, 0.3}}}) {
        std::vector<Vec3> f;
        const BondedEnergies e = reference(t, x, kNoBox, f);
        EXPECT_TRUE(std::isfinite(e.total()));
        EXPECT_TRUE(all_finite(f));
        BondedForce prod(t, 2);
        std::vector<double> px(3), py(3), pz(3);
        for (int a = 0; a < 3; ++a) {
            px[a] = x[a][0];
            py[a] = x[a][1];
            pz[a] = x[a][2];
        }
        std::vector<float> fx(3), fy(3), fz(3);
        const BondedEnergies ep = prod.compute(px.data(), py.data(), pz.data(), kNoBox, fx.data(), fy.data(),
                                               fz.data(), true);
        EXPECT_TRUE(std::isfinite(ep.total()));
        for (int a = 0; a < 3; ++a) EXPECT_TRUE(std::isfinite(fx[a] + fy[a] + fz[a]));
    }
    // straight angle: theta = pi exactly in the energy
    std::vector<Vec3> f;
    BondedInteractions a;
    a.angles.push_back({{0, 1, 2}, 109.5 * kDeg, 400.0});
    const BondedEnergies e =
        reference(a, {{0.0, 0.0, 0.0}, {0.1, 0.0, 0.0}, {0.22, 0.0, 0.0}}, kNoBox, f);
    // acos(-1 + 1 rounding) is already 1.5e-8 off pi: GROMACS' acos has the same error
    EXPECT_NEAR(e.angle, 0.5 * 400.0 * std::pow(kPi - 109.5 * kDeg, 2), 1e-7 * e.angle);
    for (const auto& v : f) EXPECT_LT(norm(v), 1e-3);
    // nearly straight: still finite
    reference(a, {{0.0, 0.0, 0.0}, {0.1, 0.0, 0.0}, {0.22, 1e-9, 0.0}}, kNoBox, f);
    EXPECT_TRUE(all_finite(f));
}

TEST(BondedDegenerate, DihedralWithCollinearTripleIsFinite) {
    BondedInteractions t;
    t.proper_dihedrals.push_back({{0, 1, 2, 3}, 0.0, 3.0, 3});
    t.periodic_impropers.push_back({{0, 1, 2, 3}, 180.0 * kDeg, 4.6, 2});
    t.impropers.push_back({{0, 1, 2, 3}, 30.0 * kDeg, 80.0});
    t.rb_dihedrals.push_back({{0, 1, 2, 3}, {9.28, 12.16, -13.12, -3.06, 26.24, -31.5}});
    t.cmap_grids.push_back(smooth_grid(24, 13));
    t.cmap.push_back({{0, 1, 2, 3, 4}, 0});
    // i, j, k collinear; then j, k, l collinear; then j on k
    const std::vector<std::vector<Vec3>> geometries{
        {{-0.1, 0.0, 0.0}, {0.0, 0.0, 0.0}, {0.15, 0.0, 0.0}, {0.2, 0.1, 0.0}, {0.3, 0.1, 0.1}},
        {{0.0, 0.1, 0.0}, {0.0, 0.0, 0.0}, {0.15, 0.0, 0.0}, {0.3, 0.0, 0.0}, {0.3, 0.1, 0.1}},
        {{0.0, 0.1, 0.0}, {0.1, 0.0, 0.0}, {0.1, 0.0, 0.0}, {0.3, 0.0, 0.1}, {0.3, 0.1, 0.1}},
    };
    for (const auto& x : geometries) {
        std::vector<Vec3> f;
        const BondedEnergies e = reference(t, x, kNoBox, f);
        EXPECT_TRUE(std::isfinite(e.total()));
        EXPECT_TRUE(all_finite(f));
        BondedForce prod(t, 2);
        std::vector<double> px, py, pz;
        for (const auto& v : x) {
            px.push_back(v[0]);
            py.push_back(v[1]);
            pz.push_back(v[2]);
        }
        std::vector<float> fx(x.size()), fy(x.size()), fz(x.size());
        const BondedEnergies ep = prod.compute(px.data(), py.data(), pz.data(), kNoBox, fx.data(), fy.data(),
                                               fz.data(), true);
        EXPECT_NEAR(ep.total(), e.total(), 1e-10 * std::fabs(e.total()));
        for (std::size_t a = 0; a < x.size(); ++a) EXPECT_TRUE(std::isfinite(fx[a] + fy[a] + fz[a]));
    }
}

// ---------------------------------------------------------------- minimum image

// Every type on atoms straddling a box corner; wrapped into the box they must
// give what the unwrapped ones give without periodicity.
TEST(BondedMinimumImage, StraddlingTheBoxGivesTheUnwrappedResult) {
    const Box box{{2.5, 3.0, 3.5}};
    const std::vector<Vec3> unwrapped{
        {-0.17, -0.05, 0.03}, {-0.06, 0.04, -0.01}, {0.02, 0.11, 0.07}, {0.13, 0.09, -0.04}, {0.2, 0.21, 0.02}};
    std::vector<Vec3> wrapped = unwrapped;
    for (auto& v : wrapped)
        for (int d = 0; d < 3; ++d) v[d] -= box.lengths[d] * std::floor(v[d] / box.lengths[d]);
    BondedInteractions t = one_of_each();
    // its reference point across the box from the atom
    t.position_restraints.push_back({1, {2.45, 2.98, 3.48}, {800.0, 900.0, 1000.0}});
    BondedInteractions t_unwrapped = t;
    t_unwrapped.position_restraints[0].reference = {-0.05, -0.02, -0.02};

    std::vector<Vec3> f_ref, f_pbc;
    const BondedEnergies e_ref = reference(t_unwrapped, unwrapped, kNoBox, f_ref);
    const BondedEnergies e_pbc = reference(t, wrapped, box, f_pbc);
    EXPECT_NEAR(e_pbc.total(), e_ref.total(), 1e-11 * std::fabs(e_ref.total()));
    EXPECT_NEAR(e_pbc.cmap, e_ref.cmap, 1e-10);
    EXPECT_NEAR(e_pbc.position_restraint, e_ref.position_restraint, 1e-12);
    double fmax = 0.0;
    for (const auto& v : f_ref) fmax = std::max(fmax, norm(v));
    for (std::size_t a = 0; a < unwrapped.size(); ++a)
        for (int d = 0; d < 3; ++d) EXPECT_NEAR(f_pbc[a][d], f_ref[a][d], 1e-10 * fmax);

    // the production path on the wrapped atoms
    BondedForce prod(t, 2);
    std::vector<double> px, py, pz;
    for (const auto& v : wrapped) {
        px.push_back(v[0]);
        py.push_back(v[1]);
        pz.push_back(v[2]);
    }
    std::vector<float> fx(5), fy(5), fz(5);
    const BondedEnergies e_prod =
        prod.compute(px.data(), py.data(), pz.data(), box, fx.data(), fy.data(), fz.data(), true);
    EXPECT_NEAR(e_prod.total(), e_ref.total(), 1e-10 * std::fabs(e_ref.total()));
    for (int a = 0; a < 5; ++a) {
        EXPECT_NEAR(fx[a], f_ref[a][0], 1e-6 * fmax);
        EXPECT_NEAR(fy[a], f_ref[a][1], 1e-6 * fmax);
        EXPECT_NEAR(fz[a], f_ref[a][2], 1e-6 * fmax);
    }
}

TEST(BondedMinimumImage, ZeroBoxLengthIsNotPeriodic) {
    BondedInteractions t;
    t.bonds.push_back({{0, 1}, 0.1, 1e3});
    // 2.9 nm apart in z: with z periodic at 3 nm this would be 0.1
    const std::vector<Vec3> x{{0.1, 0.1, 0.05}, {0.1, 0.1, 2.95}};
    EXPECT_NEAR(energy(t, x, Box{{3.0, 3.0, 3.0}}), 0.0, 1e-20);
    EXPECT_NEAR(energy(t, x, Box{{3.0, 3.0, 0.0}}), 0.5 * 1e3 * 2.8 * 2.8, 1e-9);
}

// ---------------------------------------------------------------- production path vs reference

struct RandomSystem {
    BondedInteractions terms;
    std::vector<Vec3> x;
    Box box{{2.4, 2.1, 2.7}};
};

// Atoms on a jittered lattice (no two closer than ~0.2 nm) and a few hundred
// interactions of every type on random distinct atoms.
RandomSystem random_system(unsigned seed, int per_type) {
    RandomSystem s;
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const double a = 0.3;
    const int n[3] = {8, 7, 9};
    for (int i = 0; i < n[0]; ++i)
        for (int j = 0; j < n[1]; ++j)
            for (int k = 0; k < n[2]; ++k)
                s.x.push_back({(i + 0.5) * a + 0.08 * (u(rng) - 0.5), (j + 0.5) * a + 0.08 * (u(rng) - 0.5),
                               (k + 0.5) * a + 0.08 * (u(rng) - 0.5)});
    const int natoms = static_cast<int>(s.x.size());
    std::uniform_int_distribution<int> pick(0, natoms - 1);
    auto distinct = [&](auto& atoms) {
        for (std::size_t m = 0; m < atoms.size(); ++m) {
            int c;
            do c = pick(rng);
            while (std::find(atoms.begin(), atoms.begin() + m, c) != atoms.begin() + m);
            atoms[m] = c;
        }
    };
    auto range = [&](double lo, double hi) { return lo + (hi - lo) * u(rng); };
    BondedInteractions& t = s.terms;
    t.epsilon_r = 1.3;
    t.cmap_grids.push_back(smooth_grid(24, seed + 1));
    t.cmap_grids.push_back(smooth_grid(12, seed + 2));
    for (int m = 0; m < per_type; ++m) {
        HarmonicBond b{{}, range(0.1, 0.5), range(1e3, 3e5)};
        distinct(b.atoms);
        t.bonds.push_back(b);
        G96Bond g{{}, range(0.1, 0.5), range(1e3, 1e6)};
        distinct(g.atoms);
        t.g96_bonds.push_back(g);
        HarmonicAngle an{{}, range(1.5, 2.5), range(50, 800)};
        distinct(an.atoms);
        t.angles.push_back(an);
        G96Angle ga{{}, std::cos(range(1.5, 2.5)), range(50, 800)};
        distinct(ga.atoms);
        t.g96_angles.push_back(ga);
        UreyBradley ub{{}, range(1.5, 2.5), range(50, 800), range(0.2, 0.6), range(1e3, 5e4)};
        distinct(ub.atoms);
        t.urey_bradley.push_back(ub);
        PeriodicDihedral pd{{}, range(-kPi, kPi), range(0.5, 10), 1 + m % 6};
        distinct(pd.atoms);
        t.proper_dihedrals.push_back(pd);
        if (m % 3 == 0) {  // type-9 style: more terms on the same atoms, adjacent
            pd.multiplicity = 2;
            pd.phi0 = range(-kPi, kPi);
            t.proper_dihedrals.push_back(pd);
        }
        PeriodicDihedral pi{{}, kPi, range(1, 20), 2};
        distinct(pi.atoms);
        t.periodic_impropers.push_back(pi);
        HarmonicImproper hi{{}, range(-kPi, kPi), range(10, 200)};
        distinct(hi.atoms);
        t.impropers.push_back(hi);
        RyckaertBellemans rb{{}, {}};
        for (double& c : rb.c) c = range(-30, 30);
        distinct(rb.atoms);
        t.rb_dihedrals.push_back(rb);
        Pair14 p{{}, range(1e-4, 5e-3), range(1e-7, 5e-6), range(-0.5, 0.5)};
        distinct(p.atoms);
        t.pairs.push_back(p);
        CmapTorsion c{{}, m % 2};
        distinct(c.atoms);
        t.cmap.push_back(c);
        PositionRestraint r{pick(rng), {range(0, 2.4), range(0, 2.1), range(0, 2.7)},
                            {range(100, 1000), range(100, 1000), range(100, 1000)}};
        t.position_restraints.push_back(r);
    }
    return s;
}

void expect_energies_near(const BondedEnergies& a, const BondedEnergies& b, double rel) {
    auto near = [&](double x, double y, const char* name) {
        EXPECT_LE(std::fabs(x - y), rel * std::max(std::fabs(y), 1e-300)) << name << ": " << x << " vs " << y;
    };
    near(a.bond, b.bond, "bond");
    near(a.g96_bond, b.g96_bond, "g96_bond");
    near(a.angle, b.angle, "angle");
    near(a.g96_angle, b.g96_angle, "g96_angle");
    near(a.urey_bradley, b.urey_bradley, "urey_bradley");
    near(a.proper_dihedral, b.proper_dihedral, "proper_dihedral");
    near(a.periodic_improper, b.periodic_improper, "periodic_improper");
    near(a.improper, b.improper, "improper");
    near(a.rb, b.rb, "rb");
    near(a.cmap, b.cmap, "cmap");
    near(a.lj14, b.lj14, "lj14");
    near(a.coulomb14, b.coulomb14, "coulomb14");
    near(a.position_restraint, b.position_restraint, "position_restraint");
}

// slot_of with holes (more slots than atoms), shuffled.
std::vector<int> shuffled_slots(int natoms, unsigned seed) {
    std::vector<int> slots(natoms + natoms / 3);
    std::iota(slots.begin(), slots.end(), 0);
    std::mt19937 rng(seed);
    std::shuffle(slots.begin(), slots.end(), rng);
    slots.resize(natoms);
    return slots;
}

void check_production(const RandomSystem& s, const std::vector<int>& slot_of, int threads) {
    const int natoms = static_cast<int>(s.x.size());
    const int nslots = *std::max_element(slot_of.begin(), slot_of.end()) + 1;
    std::vector<Vec3> f_ref;
    const BondedEnergies e_ref = reference(s.terms, s.x, s.box, f_ref);

    BondedForce prod(s.terms, threads);
    prod.set_slots(slot_of);
    std::vector<double> px(nslots, 1e6), py(nslots, 1e6), pz(nslots, 1e6);  // holes: far away, unused
    for (int a = 0; a < natoms; ++a) {
        px[slot_of[a]] = s.x[a][0];
        py[slot_of[a]] = s.x[a][1];
        pz[slot_of[a]] = s.x[a][2];
    }
    // forces are added: start from a known non-zero value
    const float base = 0.5f;
    std::vector<float> fx(nslots, base), fy(nslots, base), fz(nslots, base);
    const BondedEnergies e =
        prod.compute(px.data(), py.data(), pz.data(), s.box, fx.data(), fy.data(), fz.data(), true);
    expect_energies_near(e, e_ref, 1e-10);

    double fmax = 0.0;
    for (const auto& v : f_ref) fmax = std::max({fmax, std::fabs(v[0]), std::fabs(v[1]), std::fabs(v[2])});
    int bad = 0;
    for (int a = 0; a < natoms && bad < 10; ++a) {
        const float* f[3] = {fx.data(), fy.data(), fz.data()};
        for (int d = 0; d < 3; ++d) {
            // the double sum rounded to float once, then added
            const double expected = base + static_cast<float>(f_ref[a][d]);
            const double got = f[d][slot_of[a]];
            const double tol = 1.2e-7 * std::max(std::fabs(expected), std::fabs(f_ref[a][d])) + 1e-12 * fmax;
            if (std::fabs(got - expected) > tol) {
                ++bad;
                ADD_FAILURE() << "atom " << a << " dim " << d << ": " << got << " vs " << expected;
            }
        }
    }
    // the holes are untouched
    std::vector<char> used(nslots, 0);
    for (int a = 0; a < natoms; ++a) used[slot_of[a]] = 1;
    for (int sl = 0; sl < nslots; ++sl)
        if (!used[sl]) {
            EXPECT_EQ(fx[sl], base);
            EXPECT_EQ(fy[sl], base);
            EXPECT_EQ(fz[sl], base);
        }

    // without energies: the same forces, zero energies
    std::vector<float> gx(nslots, base), gy(nslots, base), gz(nslots, base);
    const BondedEnergies none =
        prod.compute(px.data(), py.data(), pz.data(), s.box, gx.data(), gy.data(), gz.data(), false);
    EXPECT_EQ(none.total(), 0.0);
    EXPECT_EQ(gx, fx);
    EXPECT_EQ(gy, fy);
    EXPECT_EQ(gz, fz);
}

TEST(BondedProduction, MatchesReferenceTwoThreadsShuffledSlots) {
    const RandomSystem s = random_system(42, 300);
    check_production(s, shuffled_slots(static_cast<int>(s.x.size()), 7), 2);
}

TEST(BondedProduction, EveryTypeAloneMatchesReference) {
    RandomSystem s = random_system(45, 300);
    const std::vector<int> slot_of = shuffled_slots(static_cast<int>(s.x.size()), 9);
    for (const BondedInteractions& t : split_by_type(s.terms)) {
        RandomSystem one = s;
        one.terms = t;
        check_production(one, slot_of, 2);
    }
}

TEST(BondedProduction, MatchesReferenceOtherThreadCounts) {
    const RandomSystem s = random_system(43, 200);
    const int natoms = static_cast<int>(s.x.size());
    for (int threads : {1, 3, 8}) check_production(s, shuffled_slots(natoms, 100 + threads), threads);
}

TEST(BondedProduction, NewSlotsAfterEveryPairSearch) {
    const RandomSystem s = random_system(44, 150);
    const int natoms = static_cast<int>(s.x.size());
    BondedForce prod(s.terms, 2);
    std::vector<Vec3> f_ref;
    const BondedEnergies e_ref = reference(s.terms, s.x, s.box, f_ref);
    for (unsigned k = 0; k < 3; ++k) {
        const std::vector<int> slot_of = shuffled_slots(natoms, 200 + k);
        prod.set_slots(slot_of);
        const int nslots = *std::max_element(slot_of.begin(), slot_of.end()) + 1;
        std::vector<double> px(nslots), py(nslots), pz(nslots);
        for (int a = 0; a < natoms; ++a) {
            px[slot_of[a]] = s.x[a][0];
            py[slot_of[a]] = s.x[a][1];
            pz[slot_of[a]] = s.x[a][2];
        }
        std::vector<float> fx(nslots), fy(nslots), fz(nslots);
        const BondedEnergies e =
            prod.compute(px.data(), py.data(), pz.data(), s.box, fx.data(), fy.data(), fz.data(), true);
        expect_energies_near(e, e_ref, 1e-10);
        double fmax = 0.0;
        for (const auto& v : f_ref) fmax = std::max(fmax, norm(v));
        for (int a = 0; a < natoms; ++a) {
            EXPECT_NEAR(fx[slot_of[a]], f_ref[a][0], 1.2e-7 * std::fabs(f_ref[a][0]) + 1e-12 * fmax);
            EXPECT_NEAR(fy[slot_of[a]], f_ref[a][1], 1.2e-7 * std::fabs(f_ref[a][1]) + 1e-12 * fmax);
            EXPECT_NEAR(fz[slot_of[a]], f_ref[a][2], 1.2e-7 * std::fabs(f_ref[a][2]) + 1e-12 * fmax);
        }
    }
}

TEST(BondedProduction, ThreadsWorkOnTheirShareOfAChain) {
    // a chain: each thread's local atoms are about its share, few are shared
    BondedInteractions t;
    const int n = 4000;
    for (int i = 0; i + 1 < n; ++i) t.bonds.push_back({{i, i + 1}, 0.15, 1e5});
    for (int i = 0; i + 3 < n; ++i) t.proper_dihedrals.push_back({{i, i + 1, i + 2, i + 3}, 0.0, 1.0, 3});
    BondedForce prod(t, 4);
    for (int th = 0; th < 4; ++th) {
        EXPECT_LE(prod.local_atoms(th), n / 4 + 10) << th;
        EXPECT_GE(prod.local_atoms(th), n / 4 - 10) << th;
    }
    EXPECT_LE(prod.shared_atoms(), 3 * 3);
    // the split does not depend on the slots
    std::vector<int> slot_of(n);
    for (int a = 0; a < n; ++a) slot_of[a] = (a * 7919) % n;
    prod.set_slots(slot_of);
    EXPECT_LE(prod.local_atoms(0), n / 4 + 10);
}

TEST(BondedProduction, EmptyAndMissingSlots) {
    BondedInteractions empty;
    BondedForce none(empty, 2);
    std::vector<double> p(4, 0.0);
    std::vector<float> f(4, 1.0f);
    const BondedEnergies e = none.compute(p.data(), p.data(), p.data(), kNoBox, f.data(), f.data(), f.data(), true);
    EXPECT_EQ(e.total(), 0.0);
    EXPECT_EQ(f[0], 1.0f);
    BondedInteractions t;
    t.bonds.push_back({{0, 5}, 0.1, 1.0});
    BondedForce prod(t, 2);
    EXPECT_THROW(prod.set_slots({0, 1, 2}), std::invalid_argument);
}

}  // namespace
}  // namespace mdcore
