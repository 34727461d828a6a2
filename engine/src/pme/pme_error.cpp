// Force error estimates for Ewald + smooth PME (see pme_error.h for the sources).
//
// Mesh part. Per dimension, with spacing h and a wave number k in the first Brillouin
// zone, the assignment of order p has the transform U(k) = (sin(kh/2)/(kh/2))^p and
// aliases k_m = k + 2 pi m/h. SPME divides by the Euler-spline modulus, which makes
// the interpolated plane wave exact on grid points; in Fourier terms the weight of
// alias m is W(k, m) = U(k_m) / sum_m' U(k_m'), W = prod_a W_a in 3D. With the Ewald
// kernel g(k) = 4 pi exp(-k^2/4 beta^2) / k^2 and analytical differentiation the
// force between two unit charges at separation r, averaged over their common
// position, has Fourier coefficients -i k_m g(k) W_m^2 instead of -i k_m g(k_m);
// the position-dependent rest has variance g^2 sum_{m != m'} |k_m|^2 W_m^2 W_m'^2.
// Their sum over k gives the pair error functional (Hockney & Eastwood; Deserno &
// Holm 1998, eq. 23 with the SPME influence function):
//     Q(k) = sum_m |k_m|^2 [g(k_m)^2 - 2 g(k_m) g(k) W_m^2 + g(k)^2 W_m^2 sum_m' W_m'^2]
// (g(k_m) for m != 0 is below e^-60 at any usable spacing and is dropped; the sums over
// m separate into per-dimension tables). An atom also feels its own charge through
// the mesh: a self-force periodic in the grid cell, with Fourier coefficients
//     C_n = g-weighted sum_k sum_m (-i k_m) W_m W_{m-n},  n != 0
// (Ballenegger, Cerda & Holm 2012); only |n_a| <= 1 matter. For random charges
//     dF^2 = [(sum q^2)^2 - sum q^4] / N * (1/V^2) sum_k Q(k)  +  sum q^4 / N * sum_n |C_n|^2.
#include "pme/pme_error.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <stdexcept>

#include "mdcore/units.h"

namespace mdcore {

namespace {

constexpr double kPi = std::numbers::pi;
constexpr int kAliases = 3;  // m = -3..3 per dimension: W falls as 1/m^p
constexpr int kNumAliases = 2 * kAliases + 1;

// Per-dimension tables for wave index j of a grid of K points over length L.
struct AxisTables {
    std::vector<double> k;        // signed wave number 2 pi j'/L, nm^-1
    std::vector<double> w0;       // W(k, 0)
    std::vector<double> sum_w2;   // sum_m W^2
    std::vector<double> sum_kw2;  // sum_m k_m^2 W^2
    // Self-force overlaps for n = -1, 0, 1: sum_m W_m W_{m-n} and sum_m k_m W_m W_{m-n}.
    std::vector<std::array<double, 3>> t0, t1;
};

AxisTables axis_tables(int K, double L, int order) {
    const double h = L / K;
    AxisTables t;
    t.k.resize(K), t.w0.resize(K), t.sum_w2.resize(K), t.sum_kw2.resize(K), t.t0.resize(K), t.t1.resize(K);
    for (int j = 0; j < K; ++j) {
        const int js = j <= K / 2 ? j : j - K;
        const double k = 2.0 * kPi * js / L;
        double km[kNumAliases], w[kNumAliases], norm = 0;
        for (int m = -kAliases; m <= kAliases; ++m) {
            km[m + kAliases] = k + 2.0 * kPi * m / h;
            const double x = 0.5 * km[m + kAliases] * h;
            w[m + kAliases] = x == 0.0 ? 1.0 : std::pow(std::sin(x) / x, order);
            norm += w[m + kAliases];
        }
        double s2 = 0, sk2 = 0;
        for (int i = 0; i < kNumAliases; ++i) {
            w[i] /= norm;
            s2 += w[i] * w[i];
            sk2 += km[i] * km[i] * w[i] * w[i];
        }
        t.k[j] = k, t.w0[j] = w[kAliases], t.sum_w2[j] = s2, t.sum_kw2[j] = sk2;
        for (int n = -1; n <= 1; ++n) {
            double a = 0, b = 0;
            for (int i = std::max(0, n); i < std::min(kNumAliases, kNumAliases + n); ++i) {
                a += w[i] * w[i - n];
                b += km[i] * w[i] * w[i - n];
            }
            t.t0[j][n + 1] = a, t.t1[j][n + 1] = b;
        }
    }
    return t;
}

}  // namespace

ChargeMoments charge_moments(const std::vector<double>& charge, double epsilon_r) {
    ChargeMoments m;
    for (double q : charge) {
        if (q == 0.0) continue;
        ++m.n;
        m.sum_q2 += q * q;
        m.sum_q4 += q * q * q * q;
    }
    m.prefactor = units::kCoulomb / epsilon_r;
    return m;
}

ChargeMoments charge_moments(const std::vector<AtomClass>& classes, double epsilon_r) {
    ChargeMoments m;
    for (const AtomClass& c : classes) {
        if (c.charge == 0.0) continue;
        m.n += static_cast<std::size_t>(c.count);
        m.sum_q2 += c.count * c.charge * c.charge;
        m.sum_q4 += c.count * c.charge * c.charge * c.charge * c.charge;
    }
    m.prefactor = units::kCoulomb / epsilon_r;
    return m;
}

double ewald_real_force_error(const Box& box, double rc, double beta, const ChargeMoments& q) {
    if (q.n == 0) return 0.0;
    return 2.0 * q.prefactor * q.sum_q2 * std::exp(-beta * beta * rc * rc) / std::sqrt(q.n * rc * box.volume());
}

double pme_recip_force_error(const Box& box, PmeGrid grid, int order, double beta, const ChargeMoments& q) {
    if (q.n == 0) return 0.0;
    const int dims[3] = {grid.nx, grid.ny, grid.nz};
    AxisTables ax[3];
    for (int a = 0; a < 3; ++a) ax[a] = axis_tables(dims[a], box.lengths[a], order);
    const double inv4b2 = 1.0 / (4.0 * beta * beta);
    // exp(-k^2 / 4 beta^2) is a product over the axes: one exp per axis point, not per grid point.
    std::vector<double> gauss[3];
    for (int a = 0; a < 3; ++a)
        for (double k : ax[a].k) gauss[a].push_back(std::exp(-k * k * inv4b2));
    const AxisTables &X = ax[0], &Y = ax[1], &Z = ax[2];
    double pair = 0;
    double self[27][3] = {};  // C_n per component, n = (nx, ny, nz) in {-1,0,1}^3 as 9 nx + 3 ny + nz
    for (int i = 0; i < grid.nx; ++i) {
        for (int j = 0; j < grid.ny; ++j) {
            // The self sums factor per axis: accumulate g t0_z and g t1_z along z, combine with x and y after.
            double z0[3] = {}, z1[3] = {};
            for (int l = 0; l < grid.nz; ++l) {
                if (i == 0 && j == 0 && l == 0) continue;
                const double k2 = X.k[i] * X.k[i] + Y.k[j] * Y.k[j] + Z.k[l] * Z.k[l];
                const double w0 = X.w0[i] * Y.w0[j] * Z.w0[l];
                const double sa = X.sum_w2[i] * Y.sum_w2[j] * Z.sum_w2[l];
                const double g = 4.0 * kPi * gauss[0][i] * gauss[1][j] * gauss[2][l] / k2;
                const double sb = X.sum_kw2[i] * Y.sum_w2[j] * Z.sum_w2[l] + X.sum_w2[i] * Y.sum_kw2[j] * Z.sum_w2[l] +
                                  X.sum_w2[i] * Y.sum_w2[j] * Z.sum_kw2[l];
                pair += g * g * (k2 * (1.0 - 2.0 * w0 * w0) + sb * sa);
                for (int c = 0; c < 3; ++c) {
                    z0[c] += g * Z.t0[l][c];
                    z1[c] += g * Z.t1[l][c];
                }
            }
            for (int n = 0; n < 27; ++n) {
                const int a = n / 9, b = (n / 3) % 3, c = n % 3;
                self[n][0] += X.t1[i][a] * Y.t0[j][b] * z0[c];
                self[n][1] += X.t0[i][a] * Y.t1[j][b] * z0[c];
                self[n][2] += X.t0[i][a] * Y.t0[j][b] * z1[c];
            }
        }
    }
    double self2 = 0;
    for (int n = 0; n < 27; ++n)
        if (n != 13)  // n = 0: the mean, zero by symmetry
            for (int c = 0; c < 3; ++c) self2 += self[n][c] * self[n][c];
    const double V = box.volume();
    const double pair_weight = (q.sum_q2 * q.sum_q2 - q.sum_q4) / q.n;
    const double self_weight = q.sum_q4 / q.n;
    return q.prefactor / V * std::sqrt(std::max(0.0, pair_weight * pair + self_weight * self2));
}

double ewald_force_error(const Box& box, const EwaldSettings& s, const ChargeMoments& q) {
    return std::hypot(ewald_real_force_error(box, s.rc, s.beta, q), pme_recip_force_error(box, s.grid, s.order, s.beta, q));
}

PmeGrid pme_nominal_grid(const Box& box, double spacing, int order) {
    if (!(spacing > 0)) throw std::invalid_argument("pme_nominal_grid: spacing must be positive");
    int n[3];
    for (int a = 0; a < 3; ++a) {
        // pme_grid_size's limit on the point count, without its FFT-friendly rounding.
        const int friendly = pme_grid_size(box.lengths[a], spacing, order);
        n[a] = std::min(friendly, std::max(2 * order, static_cast<int>(std::ceil(box.lengths[a] / spacing * (1.0 - 1e-12)))));
    }
    return {n[0], n[1], n[2]};
}

}  // namespace mdcore
