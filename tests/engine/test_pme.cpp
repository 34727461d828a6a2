// Smooth PME against a direct double-precision Ewald sum, and the Ewald oracle
// itself against the NaCl Madelung constant.
//
// Error bounds used below (from the SPME interpolation error, Essmann et al. 1995
// sec. III). Along one dimension with grid K, a wave vector with index k has
// t = k/K = |m| h (m in nm^-1, h = L/K the spacing). By Poisson summation the order-p
// B-spline interpolation of exp(2 pi i k u/K) carries aliased copies with relative
// amplitudes a_n(t) = (t/(t+n))^p e^{-2 pi i n u}, n != 0, and the b-spline moduli make
// it exact at grid points. A particle between grid points (u = 1/2 worst) therefore
// has |s_approx(m)|^2 / |s(m)|^2 = 1 - 4 sum_n |t/(t+n)|^p (to first order) per
// dimension. Random charges' reciprocal energy is dominated by the self terms
// (<|S|^2> = sum q^2), so with the energy weight w_E(m) = exp(-pi^2 m^2/beta^2)/m^2:
//     eps_E = sum_m w_E(m) e_E(m) / sum_m w_E(m),  e_E = 4 sum_a sum_{n=+-1,+-2} |t_a/(t_a+n)|^p.
// Forces use the spline derivative, an order p-1 interpolant of the gradient, so
// |t/(t+n)|^(p-1) replaces the p-th power, and a force component of mode m goes with
// m w_E(m); its RMS is weighted by m^2 w_E(m):
//     eps_F = sum_m m^2 w_E e_F / sum_m m^2 w_E,     e_F = 4 sum_a sum_n |t_a/(t_a+n)|^(p-1).
// The sums run over the PME grid's own wave vectors. So both errors fall as h^p and
// h^(p-1) for beta h << 1 (the self-force converges one order slower, as observed).
// Measured/bound: energy 0.4-0.75 (the mean bias is about half the u = 1/2 worst case),
// force 0.07-0.11 (the worst case never lines up over all modes). At GROMACS defaults
// (beta = 3.12341 for rc 1 nm, rtol 1e-5; spacing 0.12 nm; order 4) eps_E ~ 1.4e-3 and
// the measured relative energy error is ~5e-4 - 7e-4.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "mdcore/system.h"
#include "mdcore/units.h"
#include "pme/pme.h"

namespace mdcore {
namespace {

constexpr double kPi = 3.14159265358979323846;

struct Bounds {
    double energy = 0, force = 0;
};
Bounds error_bounds(const Box& box, PmeGrid grid, int order, double beta) {
    const int dims[3] = {grid.nx, grid.ny, grid.nz};
    std::vector<double> m[3], ae[3], af[3];
    for (int a = 0; a < 3; ++a) {
        const int K = dims[a];
        for (int k = 0; k < K; ++k) {
            const int ks = k <= K / 2 ? k : k - K;
            const double t = std::abs(ks) / static_cast<double>(K);
            double se = 0, sf = 0;
            for (int n : {-2, -1, 1, 2}) {
                se += std::pow(std::abs(t / (t + n)), order);
                sf += std::pow(std::abs(t / (t + n)), order - 1);
            }
            m[a].push_back(ks / box.lengths[a]);
            ae[a].push_back(4 * se);
            af[a].push_back(4 * sf);
        }
    }
    double wE = 0, wEe = 0, wF = 0, wFe = 0;
    for (int i = 0; i < dims[0]; ++i)
        for (int j = 0; j < dims[1]; ++j)
            for (int k = 0; k < dims[2]; ++k) {
                if (i == 0 && j == 0 && k == 0) continue;
                const double m2 = m[0][i] * m[0][i] + m[1][j] * m[1][j] + m[2][k] * m[2][k];
                const double w = std::exp(-kPi * kPi * m2 / (beta * beta)) / m2;
                wE += w;
                wEe += w * (ae[0][i] + ae[1][j] + ae[2][k]);
                wF += w * m2;
                wFe += w * m2 * (af[0][i] + af[1][j] + af[2][k]);
            }
    return {wEe / wE, wFe / wF};
}

// n random charges in a cubic box of side L; net charge `net` (0 = neutral).
// Pairs (3k, 3k+1) are excluded when `exclusions` is set.
System random_charges(int n, double L, double net, std::uint64_t seed, bool exclusions = false) {
    System s;
    s.kind = "pme-test";
    s.box.lengths = {L, L, L};
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> pos(0.0, L), chg(-1.0, 1.0);
    s.positions.resize(n);
    s.charge.resize(n);
    double sum = 0;
    for (int i = 0; i < n; ++i) {
        s.positions[i] = {pos(rng), pos(rng), pos(rng)};
        s.charge[i] = chg(rng);
        sum += s.charge[i];
    }
    for (int i = 0; i < n; ++i) s.charge[i] += (net - sum) / n;
    s.velocities.assign(n, Vec3{0, 0, 0});
    s.type.assign(n, 0);
    s.mass.assign(n, 1.0);
    if (exclusions) {
        s.exclusions.assign(n, {});
        for (int i = 0; i + 1 < n; i += 3) {
            s.exclusions[i].push_back(i + 1);
            s.exclusions[i + 1].push_back(i);
            // keep the excluded partner close, as in a molecule
            for (int a = 0; a < 3; ++a) s.positions[i + 1][a] = s.positions[i][a] + 0.1 * (a + 1) / 3.0;
        }
    }
    return s;
}

struct PmeRun {
    double energy = 0;
    std::vector<double> f;  // 3n
    double virial[9] = {};
};

PmeRun run_pme(const System& s, PmeGrid grid, int order, double beta, int threads, Vec3 shift = {0, 0, 0}) {
    const std::size_t n = s.natoms();
    std::vector<double> x(n), y(n), z(n);
    for (std::size_t i = 0; i < n; ++i) {
        x[i] = s.positions[i][0] + shift[0];
        y[i] = s.positions[i][1] + shift[1];
        z[i] = s.positions[i][2] + shift[2];
    }
    std::vector<float> fx(n, 0.f), fy(n, 0.f), fz(n, 0.f);
    Pme pme(s.box, grid, order, beta, s.epsilon_r, threads);
    PmeRun r;
    r.energy = pme.compute(n, x.data(), y.data(), z.data(), s.charge.data(), fx.data(), fy.data(), fz.data(), r.virial);
    r.f.resize(3 * n);
    for (std::size_t i = 0; i < n; ++i) r.f[3 * i] = fx[i], r.f[3 * i + 1] = fy[i], r.f[3 * i + 2] = fz[i];
    return r;
}

// Reciprocal-space forces alone from the oracle: total minus the same sum with
// recip switched off (kmax = 0 keeps only real/excluded/self/charged).
struct RecipRef {
    double energy = 0;
    std::vector<double> f;
};
RecipRef recip_reference(const System& s, double beta, double rc, int kmax) {
    const EwaldDirectResult all = ewald_direct(s, beta, rc, kmax);
    const EwaldDirectResult none = ewald_direct(s, beta, rc, 0);
    RecipRef r;
    r.energy = all.recip;
    r.f.resize(3 * s.natoms());
    for (std::size_t i = 0; i < s.natoms(); ++i)
        for (int a = 0; a < 3; ++a) r.f[3 * i + a] = all.forces[i][a] - none.forces[i][a];
    return r;
}

struct Errors {
    double energy = 0, force = 0;  // relative energy error, relative RMS force error
};
Errors compare(const PmeRun& p, const RecipRef& r) {
    double d2 = 0, f2 = 0;
    for (std::size_t k = 0; k < r.f.size(); ++k) {
        d2 += (p.f[k] - r.f[k]) * (p.f[k] - r.f[k]);
        f2 += r.f[k] * r.f[k];
    }
    return {std::abs(p.energy - r.energy) / std::abs(r.energy), std::sqrt(d2 / f2)};
}

double grid_spacing(const Box& b, PmeGrid g) {
    return std::max({b.lengths[0] / g.nx, b.lengths[1] / g.ny, b.lengths[2] / g.nz});
}

TEST(PmeSetup, EwaldBetaMatchesGromacs) {
    EXPECT_NEAR(ewald_beta(1.0, 1e-5), 3.12341, 5e-6);
    const double b = ewald_beta(0.9, 1e-6);
    EXPECT_NEAR(std::erfc(b * 0.9), 1e-6, 1e-12);
    EXPECT_THROW(ewald_beta(0.0, 1e-5), std::invalid_argument);
}

TEST(PmeSetup, GridSizesAreFftFriendly) {
    auto friendly = [](int n) {
        for (int f : {2, 3, 5, 7})
            while (n % f == 0) n /= f;
        return n == 1;
    };
    for (int order : {4, 5, 6})
        for (double L : {1.0, 2.345, 3.0, 4.87, 7.1, 10.0})
            for (double h : {0.05, 0.1, 0.12, 0.16}) {
                const int n = pme_grid_size(L, h, order);
                EXPECT_TRUE(friendly(n)) << n;
                EXPECT_GE(n, 2 * order);
                EXPECT_GE(n * h, L * (1 - 1e-9)) << L << " " << h;
                // smallest such: nothing FFT-friendly in [max(L/h, 2p), n)
                for (int m = std::max(2 * order, static_cast<int>(std::ceil(L / h - 1e-9))); m < n; ++m)
                    EXPECT_FALSE(friendly(m)) << m;
            }
    EXPECT_EQ(pme_grid_size(3.0, 0.1, 4), 30);
    EXPECT_EQ(pme_grid_size(2.3, 0.1, 4), 24);   // 23 is prime
    EXPECT_EQ(pme_grid_size(0.5, 0.12, 4), 8);   // 2*order floor
    EXPECT_EQ(pme_grid_size(1.3, 0.1, 4), 14);   // 13 -> 14
    Box box;
    box.lengths = {2.0, 3.1, 4.4};
    const PmeGrid g = pme_grid_for_spacing(box, 0.12, 4);
    EXPECT_EQ(g.nx, 18);  // 16.7 -> 18
    EXPECT_EQ(g.ny, 27);  // 25.8 -> 27
    EXPECT_EQ(g.nz, 40);  // 36.7 -> 40 (37, 38, 39 have factors 37, 19, 13)
    EXPECT_THROW(Pme(box, PmeGrid{7, 16, 16}, 4, 3.0, 1.0, 1), std::invalid_argument);
    EXPECT_THROW(Pme(box, PmeGrid{16, 16, 16}, 3, 3.0, 1.0, 1), std::invalid_argument);
    // Refused before anything is allocated: the gather's lane offsets are 32-bit.
    EXPECT_THROW(Pme(box, PmeGrid{1300, 1300, 1300}, 4, 3.0, 1.0, 1), std::invalid_argument);
}

// Reciprocal energy and forces against the direct sum at the GROMACS-default
// settings (spacing 0.12, order 4), neutral and charged, with and without exclusions.
TEST(Pme, MatchesDirectReciprocalSum) {
    const double beta = ewald_beta(1.0, 1e-5);
    struct Case {
        int n;
        double L, net;
        bool excl;
        int order;
    };
    for (const Case c : {Case{100, 2.5, 0.0, false, 4}, Case{150, 2.2, 3.0, true, 4}, Case{200, 3.0, -1.5, true, 5},
                         Case{80, 2.0, 0.0, true, 6}}) {
        const System s = random_charges(c.n, c.L, c.net, 11 + c.n, c.excl);
        // exp(-pi^2 m^2/beta^2) < 1e-16 for m > 6 nm^-1, i.e. k > 6 L.
        const int kmax = static_cast<int>(std::ceil(6.0 * c.L)) + 1;
        const RecipRef ref = recip_reference(s, beta, 1.0, kmax);
        const PmeGrid g = pme_grid_for_spacing(s.box, 0.12, c.order);
        const PmeRun p = run_pme(s, g, c.order, beta, 2);
        const Errors e = compare(p, ref);
        const Bounds b = error_bounds(s.box, g, c.order, beta);
        std::printf("  n=%d L=%.1f Q=%+.1f order=%d grid=%d h=%.4f: E_pme=%.6f E_dir=%.6f rel dE=%.2e (bound %.1e), "
                    "rel rms dF=%.2e (bound %.1e)\n",
                    c.n, c.L, c.net, c.order, g.nx, grid_spacing(s.box, g), p.energy, ref.energy, e.energy, b.energy,
                    e.force, b.force);
        EXPECT_LT(e.energy, b.energy);
        EXPECT_LT(e.force, b.force);
        EXPECT_LT(e.energy, 1e-3);
        EXPECT_LT(e.force, 5e-3);
    }
}

// Rectangular box with an odd grid dimension (27), epsilon_r = 2, and a few uncharged atoms.
TEST(Pme, RectangularBoxAndDielectric) {
    const double beta = ewald_beta(0.9, 1e-5);
    System s = random_charges(120, 2.0, 0.0, 77);
    const Vec3 lengths = {2.0, 2.7, 3.1};
    for (Vec3& r : s.positions)
        for (int a = 0; a < 3; ++a) r[a] *= lengths[a] / 2.0;
    s.box.lengths = lengths;
    s.epsilon_r = 2.0;
    for (int i : {4, 9, 50}) {  // move the charge elsewhere, keep neutrality
        s.charge[i + 1] += s.charge[i];
        s.charge[i] = 0.0;
    }
    const RecipRef ref = recip_reference(s, beta, 0.9, 24);
    const PmeGrid g = pme_grid_for_spacing(s.box, 0.12, 4);
    const PmeRun p = run_pme(s, g, 4, beta, 2);
    const Errors e = compare(p, ref);
    const Bounds b = error_bounds(s.box, g, 4, beta);
    std::printf("  box %.1fx%.1fx%.1f grid %dx%dx%d eps_r=2: rel dE=%.2e (bound %.1e) rel rms dF=%.2e (bound %.1e)\n",
                lengths[0], lengths[1], lengths[2], g.nx, g.ny, g.nz, e.energy, b.energy, e.force, b.force);
    EXPECT_LT(e.energy, b.energy);
    EXPECT_LT(e.force, b.force);
    for (int i : {4, 9, 50})
        for (int a = 0; a < 3; ++a) EXPECT_EQ(p.f[3 * i + a], 0.0);
    // Energy scales as 1/epsilon_r.
    System s1 = s;
    s1.epsilon_r = 1.0;
    EXPECT_NEAR(run_pme(s1, g, 4, beta, 2).energy, 2.0 * p.energy, 1e-5 * std::abs(p.energy));
}

TEST(Pme, StageTimesAccumulate) {
    const System s = random_charges(50, 2.0, 0.0, 1);
    std::vector<double> x, y, z;
    for (const Vec3& r : s.positions) x.push_back(r[0]), y.push_back(r[1]), z.push_back(r[2]);
    std::vector<float> f(s.natoms(), 0.f), g(s.natoms(), 0.f), h(s.natoms(), 0.f);
    Pme pme(s.box, PmeGrid{16, 18, 20}, 5, 3.0, 1.0, 2);
    EXPECT_EQ(pme.order(), 5);
    EXPECT_EQ(pme.grid().ny, 18);
    for (int k = 0; k < 3; ++k)
        pme.compute(s.natoms(), x.data(), y.data(), z.data(), s.charge.data(), f.data(), g.data(), h.data());
    const PmeStageTimes& t = pme.stage_times();
    EXPECT_GT(t.spread, 0.0);
    EXPECT_GT(t.fft, 0.0);
    EXPECT_GT(t.solve, 0.0);
    EXPECT_GT(t.gather, 0.0);
}

// Error falls as the grid is refined and as the order rises.
TEST(Pme, ConvergesWithSpacingAndOrder) {
    const double beta = ewald_beta(1.0, 1e-5);
    const System s = random_charges(120, 2.4, 0.0, 5);
    const RecipRef ref = recip_reference(s, beta, 1.0, 16);
    for (int order : {4, 6}) {
        double prev_e = 1e30, prev_f = 1e30;
        for (double spacing : {0.2, 0.1, 0.05}) {
            const PmeGrid g = pme_grid_for_spacing(s.box, spacing, order);
            const Errors e = compare(run_pme(s, g, order, beta, 2), ref);
            const Bounds b = error_bounds(s.box, g, order, beta);
            std::printf("  order=%d spacing=%.2f grid=%d: rel dE=%.2e (bound %.1e) rel rms dF=%.2e (bound %.1e)\n", order,
                        spacing, g.nx, e.energy, b.energy, e.force, b.force);
            EXPECT_LT(e.energy, b.energy + 1e-6);  // 1e-6: single-precision floor
            EXPECT_LT(e.force, b.force + 1e-6);
            EXPECT_LT(e.force, prev_f);
            if (prev_e > 1e-5) {  // below 1e-5 float noise may dominate
                EXPECT_LT(e.energy, prev_e);
            }
            prev_e = e.energy;
            prev_f = e.force;
        }
    }
    for (double spacing : {0.2, 0.1}) {
        double prev = 1e30;
        for (int order : {4, 5, 6}) {
            const PmeGrid g = pme_grid_for_spacing(s.box, spacing, order);
            const Errors e = compare(run_pme(s, g, order, beta, 2), ref);
            EXPECT_LT(e.force, prev) << "spacing " << spacing << " order " << order;
            prev = e.force;
        }
    }
}

TEST(Pme, NeutralForcesSumToZero) {
    const double beta = ewald_beta(1.0, 1e-5);
    const System s = random_charges(150, 2.5, 0.0, 17);
    const PmeRun p = run_pme(s, pme_grid_for_spacing(s.box, 0.12, 4), 4, beta, 2);
    double sum[3] = {}, fabs_sum = 0;
    for (std::size_t i = 0; i < s.natoms(); ++i)
        for (int a = 0; a < 3; ++a) {
            sum[a] += p.f[3 * i + a];
            fabs_sum += std::abs(p.f[3 * i + a]);
        }
    // SPME does not conserve momentum exactly; the net force is interpolation noise.
    const double net = std::sqrt(sum[0] * sum[0] + sum[1] * sum[1] + sum[2] * sum[2]);
    std::printf("  |sum F| = %.3e, sum |F_a| = %.3e\n", net, fabs_sum);
    EXPECT_LT(net, 1e-3 * fabs_sum);
    // The oracle's reciprocal forces do sum to zero (pairwise real space too).
    const EwaldDirectResult d = ewald_direct(s, beta, 1.0, 16);
    for (int a = 0; a < 3; ++a) {
        double t = 0;
        for (const Vec3& f : d.forces) t += f[a];
        EXPECT_NEAR(t, 0.0, 1e-8 * fabs_sum);
    }
}

TEST(Pme, ThreadCountOnlyChangesRounding) {
    const double beta = ewald_beta(1.0, 1e-5);
    const System s = random_charges(200, 2.6, 1.0, 23, true);
    const PmeGrid g = pme_grid_for_spacing(s.box, 0.1, 4);
    const PmeRun a = run_pme(s, g, 4, beta, 1), b = run_pme(s, g, 4, beta, 2);
    EXPECT_NEAR(a.energy, b.energy, 1e-5 * std::abs(a.energy));
    double fmax = 0;
    for (double f : a.f) fmax = std::max(fmax, std::abs(f));
    for (std::size_t k = 0; k < a.f.size(); ++k) EXPECT_NEAR(a.f[k], b.f[k], 1e-4 * fmax);
    for (int c = 0; c < 9; ++c) EXPECT_NEAR(a.virial[c], b.virial[c], 1e-5 * std::abs(a.energy));
    // Same thread count twice: bit-identical.
    const PmeRun b2 = run_pme(s, g, 4, beta, 2);
    EXPECT_EQ(b.energy, b2.energy);
    for (std::size_t k = 0; k < b.f.size(); ++k) EXPECT_EQ(b.f[k], b2.f[k]);
    // Called inside a parallel region (nested OpenMP off) a 2-thread Pme gets a team
    // of one and must then match the 1-thread result exactly.
    PmeRun nested;
#pragma omp parallel num_threads(2)
    {
#pragma omp single
        nested = run_pme(s, g, 4, beta, 2);
    }
    EXPECT_EQ(nested.energy, a.energy);
    for (std::size_t k = 0; k < a.f.size(); ++k) EXPECT_EQ(nested.f[k], a.f[k]);
}

TEST(Pme, PositionsOutsideTheBoxAreWrapped) {
    const double beta = ewald_beta(1.0, 1e-5);
    const System s = random_charges(60, 2.0, 0.0, 3);
    const PmeGrid g = pme_grid_for_spacing(s.box, 0.12, 4);
    const PmeRun a = run_pme(s, g, 4, beta, 1);
    const PmeRun b = run_pme(s, g, 4, beta, 1, {-2.0, 4.0, -6.0});
    EXPECT_NEAR(a.energy, b.energy, 1e-5 * std::abs(a.energy));
    double fmax = 0;
    for (double f : a.f) fmax = std::max(fmax, std::abs(f));
    for (std::size_t k = 0; k < a.f.size(); ++k) EXPECT_NEAR(a.f[k], b.f[k], 1e-4 * fmax);
}

// Diagonal virial = 0.5 L_a dE/dL_a with fractional coordinates held fixed (then
// the PME structure factor is unchanged and the derivative is of the k-space sum only).
TEST(Pme, VirialMatchesBoxDerivative) {
    const double beta = ewald_beta(1.0, 1e-5);
    System s = random_charges(80, 2.2, 0.0, 31);
    const PmeGrid g = pme_grid_for_spacing(s.box, 0.12, 4);
    const PmeRun p = run_pme(s, g, 4, beta, 2);
    const double d = 1e-4;
    for (int a = 0; a < 3; ++a) {
        double e[2];
        for (int sgn = 0; sgn < 2; ++sgn) {
            System t = s;
            const double scale = sgn ? 1 + d : 1 - d;
            t.box.lengths[a] *= scale;
            for (Vec3& r : t.positions) r[a] *= scale;
            e[sgn] = run_pme(t, g, 4, beta, 2).energy;
        }
        const double fd = 0.5 * (e[1] - e[0]) / (2 * d);
        EXPECT_NEAR(p.virial[4 * a], fd, 1e-3 * std::abs(p.energy)) << a;
    }
    EXPECT_NEAR(p.virial[1], p.virial[3], 1e-9 * std::abs(p.energy));
    EXPECT_NEAR(p.virial[2], p.virial[6], 1e-9 * std::abs(p.energy));
    EXPECT_NEAR(p.virial[5], p.virial[7], 1e-9 * std::abs(p.energy));
}

// The oracle's forces are minus the gradient of its total energy (real + recip +
// excluded; self and background do not depend on positions).
TEST(EwaldDirect, ForcesAreEnergyGradient) {
    const double beta = ewald_beta(0.9, 1e-5);
    System s = random_charges(40, 2.0, 0.5, 41, true);
    const EwaldDirectResult r = ewald_direct(s, beta, 0.9, 12);
    const double h = 1e-5;
    for (int i : {0, 1, 7, 22}) {
        for (int a = 0; a < 3; ++a) {
            System t = s;
            t.positions[i][a] += h;
            const double ep = ewald_direct(t, beta, 0.9, 12).total();
            t.positions[i][a] -= 2 * h;
            const double em = ewald_direct(t, beta, 0.9, 12).total();
            EXPECT_NEAR(r.forces[i][a], -(ep - em) / (2 * h), 1e-5 * (1 + std::abs(r.forces[i][a]))) << i << " " << a;
        }
    }
}

// NaCl rock salt: the total Ewald energy per ion pair is -M kCoulomb / r0 with the
// Madelung constant M = 1.747565, whatever the split beta.
System nacl(int cells, double a) {
    System s;
    s.kind = "nacl";
    const double L = cells * a;
    s.box.lengths = {L, L, L};
    for (int i = 0; i < 2 * cells; ++i)
        for (int j = 0; j < 2 * cells; ++j)
            for (int k = 0; k < 2 * cells; ++k) {
                s.positions.push_back({i * a / 2, j * a / 2, k * a / 2});
                s.charge.push_back((i + j + k) % 2 == 0 ? 1.0 : -1.0);
            }
    const std::size_t n = s.positions.size();
    s.velocities.assign(n, Vec3{0, 0, 0});
    s.type.assign(n, 0);
    s.mass.assign(n, 1.0);
    return s;
}

TEST(EwaldDirect, NaclMadelungConstant) {
    const double a = 0.5640, r0 = a / 2, madelung = 1.747565;
    struct Case {
        int cells;
        double rc, rtol;
        int kmax;
    };
    for (const Case c : {Case{2, 0.56, 1e-9, 16}, Case{2, 0.40, 1e-9, 22}, Case{4, 1.12, 1e-9, 18}}) {
        const System s = nacl(c.cells, a);
        const double beta = ewald_beta(c.rc, c.rtol);
        const EwaldDirectResult r = ewald_direct(s, beta, c.rc, c.kmax);
        const double pairs = s.natoms() / 2.0;
        const double m = -r.total() / pairs * r0 / units::kCoulomb;
        std::printf("  NaCl %dx%dx%d rc=%.2f beta=%.4f kmax=%d: real=%.4f recip=%.4f self=%.4f -> M=%.8f (rel %.1e)\n",
                    c.cells, c.cells, c.cells, c.rc, beta, c.kmax, r.real, r.recip, r.self, m,
                    std::abs(m - madelung) / madelung);
        EXPECT_NEAR(m, madelung, 1e-5 * madelung);
        EXPECT_EQ(r.charged, 0.0);
        // Every ion sits at a centre of symmetry: zero force.
        double fmax = 0;
        for (const Vec3& f : r.forces) fmax = std::max({fmax, std::abs(f[0]), std::abs(f[1]), std::abs(f[2])});
        EXPECT_LT(fmax, 1e-6);
    }
    // PME's reciprocal part in place of the direct one: same constant at PME accuracy.
    const System s = nacl(2, a);
    const double beta = ewald_beta(0.56, 1e-9);
    const EwaldDirectResult r = ewald_direct(s, beta, 0.56, 16);
    const PmeRun p = run_pme(s, pme_grid_for_spacing(s.box, 0.05, 6), 6, beta, 1);
    const double m = -(r.total() - r.recip + p.energy) / (s.natoms() / 2.0) * r0 / units::kCoulomb;
    std::printf("  NaCl 2x2x2 with PME recip (order 6, spacing 0.05): M=%.8f\n", m);
    EXPECT_NEAR(m, madelung, 1e-4 * madelung);
}

}  // namespace
}  // namespace mdcore
