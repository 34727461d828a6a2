// The __host__ __device__ per-pair and per-point math the CUDA kernels use,
// checked on the host: pair_terms against the double-precision LJ reference
// kernel and the exact erfc/erf expressions, the B-spline weights against
// bspline(), the influence function and solve against pme_solve.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "mdcore/units.h"
#include "nonbonded/pair_math.h"
#include "nonbonded/reference_kernel.h"
#include "pme/pme.h"
#include "pme/pme_point_math.h"
#include "pme/pme_workspace.h"
#include "test_systems.h"

namespace mdcore {
namespace {

pair_math::PairConstants constants(double rc, double beta) {
    pair_math::PairConstants k{};
    k.rc2 = static_cast<float>(rc * rc);
    k.rc_inv6 = static_cast<float>(1.0 / std::pow(rc, 6));
    k.rc_inv12 = k.rc_inv6 * k.rc_inv6;
    k.beta = static_cast<float>(beta);
    k.ewald_shift = beta > 0 ? static_cast<float>(std::erfc(beta * rc) / rc) : 0.0f;
    return k;
}

TEST(PairMath, LjForcesAndEnergyMatchTheReferenceKernel) {
    const System sys = testing::lj_system(600);
    const double rc = sys.rc;
    const ReferenceResult ref = reference_lj_forces(sys, rc);
    const pair_math::PairConstants k = constants(rc, 0.0);
    std::vector<Vec3> f(sys.natoms(), Vec3{0, 0, 0});
    double energy = 0.0;
    long in_cutoff = 0;
    for (std::size_t i = 0; i < sys.natoms(); ++i)
        for (std::size_t j = i + 1; j < sys.natoms(); ++j) {
            float d[3];
            for (int c = 0; c < 3; ++c) {
                const double L = sys.box.lengths[c];
                double x = sys.positions[i][c] - sys.positions[j][c];
                d[c] = static_cast<float>(x - L * std::round(x / L));
            }
            const float r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            const float c6 = static_cast<float>(6.0 * sys.lj.c6_at(sys.type[i], sys.type[j]));
            const float c12 = static_cast<float>(12.0 * sys.lj.c12_at(sys.type[i], sys.type[j]));
            const pair_math::PairTerms t = pair_math::pair_terms(r2, c6, c12, 0.0f, true, false, k);
            in_cutoff += r2 < k.rc2;
            energy += t.v_lj;
            for (int c = 0; c < 3; ++c) {
                f[i][c] += t.f_over_r * d[c];
                f[j][c] -= t.f_over_r * d[c];
            }
        }
    EXPECT_EQ(in_cutoff, ref.pairs_in_cutoff);
    EXPECT_NEAR(energy, ref.lj, 1e-5 * std::abs(ref.lj));
    double fmax = 0;
    for (const Vec3& v : ref.forces) fmax = std::max({fmax, std::abs(v[0]), std::abs(v[1]), std::abs(v[2])});
    for (std::size_t a = 0; a < sys.natoms(); ++a)
        for (int c = 0; c < 3; ++c) ASSERT_NEAR(f[a][c], ref.forces[a][c], 2e-5 * fmax) << "atom " << a;
}

// qq = 1: erfc(b r)/r - erfc(b rc)/rc for interacting pairs, -erf(b r)/r for excluded ones.
TEST(PairMath, EwaldRealSpaceMatchesErfcAndTheExclusionCorrection) {
    const double rc = 1.0;
    for (double rtol : {1e-4, 1e-5, 1e-8}) {
        const double beta = ewald_beta(rc, rtol);
        const pair_math::PairConstants k = constants(rc, beta);
        for (double r = 0.08; r < rc; r += 0.0037) {
            const float r2 = static_cast<float>(r * r);
            const double gauss = 2.0 * beta / std::sqrt(M_PI) * std::exp(-beta * beta * r * r);
            const pair_math::PairTerms in = pair_math::pair_terms(r2, 0.0f, 0.0f, 1.0f, true, false, k);
            const double v_in = std::erfc(beta * r) / r - std::erfc(beta * rc) / rc;
            const double f_in = (std::erfc(beta * r) / r + gauss) / (r * r);
            EXPECT_NEAR(in.v_coul, v_in, 2e-6 / r) << "r " << r << " rtol " << rtol;
            // Relative to 1/r^3, the size of the terms that cancel near rc.
            EXPECT_NEAR(in.f_over_r, f_in, 2e-6 / (r * r * r)) << "r " << r;
            EXPECT_EQ(in.v_lj, 0.0f);
            const pair_math::PairTerms ex = pair_math::pair_terms(r2, 1.0f, 1.0f, 1.0f, false, true, k);
            const double v_ex = -std::erf(beta * r) / r;
            const double f_ex = -(std::erf(beta * r) / r - gauss) / (r * r);
            EXPECT_NEAR(ex.v_coul, v_ex, 2e-6 * std::abs(v_ex)) << "r " << r;
            EXPECT_NEAR(ex.f_over_r, f_ex, 2e-6 / (r * r * r)) << "r " << r;
            EXPECT_EQ(ex.v_lj, 0.0f);  // excluded pairs get no LJ
        }
        // Nothing beyond the cut-off, nothing for pairs neither listed nor excluded.
        const pair_math::PairTerms far = pair_math::pair_terms(1.01f, 1.0f, 1.0f, 1.0f, true, true, k);
        EXPECT_EQ(far.f_over_r, 0.0f);
        EXPECT_EQ(far.v_coul, 0.0f);
        const pair_math::PairTerms off = pair_math::pair_terms(0.25f, 1.0f, 1.0f, 1.0f, false, false, k);
        EXPECT_EQ(off.f_over_r, 0.0f);
    }
}

TEST(PmeMath, BsplineWeightsMatchTheDoubleRecursion) {
    for (int p = 4; p <= 6; ++p)
        for (double f = 0.0; f < 1.0; f += 1.0 / 97) {
            double th[kPmeMaxOrder], dth[kPmeMaxOrder];
            float thf[kPmeMaxOrder], dthf[kPmeMaxOrder];
            bspline(f, p, th, dth);
            pme_math::bspline_weights(static_cast<float>(f), p, thf, dthf);
            double sum = 0;
            for (int j = 0; j < p; ++j) {
                EXPECT_NEAR(thf[j], th[j], 1e-6) << "p " << p << " f " << f << " j " << j;
                EXPECT_NEAR(dthf[j], dth[j], 1e-6) << "p " << p << " f " << f << " j " << j;
                sum += thf[j];
            }
            EXPECT_NEAR(sum, 1.0, 1e-6);  // partition of unity
        }
}

// The GPU solve's per-point pieces against the CPU solve on the same transformed grid.
TEST(PmeMath, InfluenceAndSolveMatchPmeSolve) {
    PmeWorkspace w;
    w.box.lengths = {3.1, 2.9, 3.3};
    w.grid = PmeGrid{28, 25, 30};
    w.order = 4;
    w.beta = ewald_beta(0.9, 1e-5);
    w.prefactor = units::kCoulomb;
    w.nthreads = 2;
    w.fft_threads = 1;
    pme_allocate_and_plan(w);
    const int dims[3] = {w.grid.nx, w.grid.ny, w.grid.nz};
    for (int a = 0; a < 3; ++a) {
        w.bmod[a] = bspline_moduli(dims[a], w.order);
        w.mvec[a].resize(dims[a]);
        for (int k = 0; k < dims[a]; ++k) w.mvec[a][k] = (k <= dims[a] / 2 ? k : k - dims[a]) / w.box.lengths[a];
    }
    w.thread_acc.assign(10 * w.nthreads, 0.0);
    pme_tabulate_influence(w);
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    const std::size_t n = static_cast<std::size_t>(w.grid.nx) * w.grid.ny * w.nzc;
    std::vector<std::complex<float>> values(n);
    for (std::size_t k = 0; k < n; ++k) {
        values[k] = {u(rng), u(rng)};
        w.cplx[k][0] = values[k].real();
        w.cplx[k][1] = values[k].imag();
    }
    const double energy = pme_solve(w, nullptr);
    const float volume = static_cast<float>(w.box.volume());
    double gpu_energy = 0.0;
    for (int ix = 0; ix < w.grid.nx; ++ix)
        for (int iy = 0; iy < w.grid.ny; ++iy)
            for (int kz = 0; kz < w.nzc; ++kz) {
                const std::size_t k = (static_cast<std::size_t>(ix) * w.grid.ny + iy) * w.nzc + kz;
                const float g = pme_math::influence(
                    static_cast<float>(w.mvec[0][ix]), static_cast<float>(w.mvec[1][iy]),
                    static_cast<float>(kz / w.box.lengths[2]), static_cast<float>(w.beta), volume,
                    static_cast<float>(w.bmod[0][ix] * w.bmod[1][iy] * w.bmod[2][kz]), static_cast<float>(w.prefactor));
                ASSERT_NEAR(g, w.influence[k], 1e-5 * std::abs(w.influence[k]) + 1e-30) << ix << " " << iy << " " << kz;
                float re = values[k].real(), im = values[k].imag();
                gpu_energy += pme_math::solve_point(re, im, g, pme_math::plane_weight(kz, w.grid.nz));
                ASSERT_NEAR(re, w.cplx[k][0], 1e-5 * std::abs(w.cplx[k][0]) + 1e-12);
                ASSERT_NEAR(im, w.cplx[k][1], 1e-5 * std::abs(w.cplx[k][1]) + 1e-12);
            }
    EXPECT_NEAR(gpu_energy, energy, 1e-5 * std::abs(energy));
}

}  // namespace
}  // namespace mdcore
