// The Ewald sum in double precision, evaluated directly: the test oracle for smooth
// PME (reciprocal space) and for the real-space kernels.
#include "pme/ewald_direct.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>
#include <stdexcept>

#include "mdcore/units.h"

namespace mdcore {

namespace {
constexpr double kPi = std::numbers::pi;
}  // namespace

EwaldDirectResult ewald_direct(const System& system, double beta, double rc_real, int kmax) {
    const std::size_t n = system.natoms();
    if (system.charge.size() != n) throw std::invalid_argument("ewald_direct: charge size differs from natoms");
    if (!(beta > 0) || kmax < 0) throw std::invalid_argument("ewald_direct: need beta > 0 and kmax >= 0");
    const Vec3 L = system.box.lengths;
    const double V = system.box.volume();
    const double pref = units::kCoulomb / system.epsilon_r;
    const auto& q = system.charge;
    const auto& r = system.positions;
    const double two_beta_sqrtpi = 2.0 * beta / std::sqrt(kPi);
    EwaldDirectResult res;
    res.forces.assign(n, Vec3{0, 0, 0});

    auto min_image = [&](std::size_t i, std::size_t j, double d[3]) {
        double r2 = 0;
        for (int a = 0; a < 3; ++a) {
            d[a] = r[i][a] - r[j][a];
            d[a] -= L[a] * std::round(d[a] / L[a]);
            r2 += d[a] * d[a];
        }
        return r2;
    };
    auto is_excluded = [&](std::size_t i, std::size_t j) {
        if (i >= system.exclusions.size()) return false;
        const auto& ex = system.exclusions[i];
        return std::binary_search(ex.begin(), ex.end(), static_cast<int>(j));
    };

    // Real space and excluded-pair correction. Pair force along d = r_i - r_j:
    // F_i = -dV/dr d/r.
    const double rc2 = rc_real * rc_real;
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = i + 1; j < n; ++j) {
            const double qq = pref * q[i] * q[j];
            if (qq == 0.0) continue;
            double d[3];
            const double r2 = min_image(i, j, d);
            double fscal = 0;  // -dV/dr / r
            if (is_excluded(i, j)) {
                if (r2 < 1e-24) {  // erf(beta r)/r -> 2 beta/sqrt(pi); no force
                    res.excluded -= qq * two_beta_sqrtpi;
                    continue;
                }
                const double rr = std::sqrt(r2);
                const double erfv = std::erf(beta * rr);
                res.excluded -= qq * erfv / rr;
                // V = -qq erf(br)/r; dV/dr = -qq (2b/sqrt(pi) e^{-b^2 r^2}/r - erf/r^2)
                fscal = qq * (two_beta_sqrtpi * std::exp(-beta * beta * r2) / rr - erfv / r2) / rr;
            } else if (r2 < rc2) {
                const double rr = std::sqrt(r2);
                const double erfcv = std::erfc(beta * rr);
                res.real += qq * erfcv / rr;
                // V = qq erfc(br)/r; -dV/dr = qq (erfc/r^2 + 2b/sqrt(pi) e^{-b^2 r^2}/r)
                fscal = qq * (erfcv / r2 + two_beta_sqrtpi * std::exp(-beta * beta * r2) / rr) / rr;
            }
            for (int a = 0; a < 3; ++a) {
                res.forces[i][a] += fscal * d[a];
                res.forces[j][a] -= fscal * d[a];
            }
        }
    }

    // Reciprocal space: E = 1/(2 pi V) sum_{m != 0} exp(-pi^2 m^2/beta^2)/m^2 |S(m)|^2,
    // S(m) = sum_j q_j exp(2 pi i m.r_j), m = (kx/Lx, ky/Ly, kz/Lz). Half of k-space
    // with weight 2 (m and -m contribute equally to energy and forces).
    using cd = std::complex<double>;
    const int nk = kmax + 1;
    // eik[a][j*nk + k] = exp(2 pi i k r_ja / L_a), k = 0..kmax; negative k by conj.
    std::vector<cd> eik[3];
    for (int a = 0; a < 3; ++a) {
        eik[a].resize(n * nk);
        for (std::size_t j = 0; j < n; ++j) {
            const cd e1 = std::polar(1.0, 2.0 * kPi * r[j][a] / L[a]);
            cd e = 1.0;
            for (int k = 0; k < nk; ++k) {
                // Recompute every 8 steps to keep the product recursion accurate.
                if (k % 8 == 0) e = std::polar(1.0, 2.0 * kPi * k * r[j][a] / L[a]);
                eik[a][j * nk + k] = e;
                e *= e1;
            }
        }
    }
    const double fac = kPi * kPi / (beta * beta);
    std::vector<cd> phase(n);
    std::vector<double> fr(3 * n, 0.0);
    double erec = 0;
    for (int kx = 0; kx <= kmax; ++kx) {
        for (int ky = -kmax; ky <= kmax; ++ky) {
            if (kx == 0 && ky < 0) continue;
            for (int kz = -kmax; kz <= kmax; ++kz) {
                if (kx == 0 && ky == 0 && kz <= 0) continue;
                const double m[3] = {kx / L[0], ky / L[1], kz / L[2]};
                const double m2 = m[0] * m[0] + m[1] * m[1] + m[2] * m[2];
                const double f = std::exp(-fac * m2) / m2;
                if (f < 1e-300) continue;
                cd S = 0.0;
                for (std::size_t j = 0; j < n; ++j) {
                    const cd ey = ky >= 0 ? eik[1][j * nk + ky] : std::conj(eik[1][j * nk - ky]);
                    const cd ez = kz >= 0 ? eik[2][j * nk + kz] : std::conj(eik[2][j * nk - kz]);
                    phase[j] = eik[0][j * nk + kx] * ey * ez;
                    S += q[j] * phase[j];
                }
                erec += 2.0 * f * std::norm(S);
                // F_j = (2 q_j / V) f m Im(e^{i theta_j} conj S), doubled for -m.
                for (std::size_t j = 0; j < n; ++j) {
                    const double s = 2.0 * 2.0 * q[j] / V * f * (phase[j] * std::conj(S)).imag();
                    for (int a = 0; a < 3; ++a) fr[3 * j + a] += s * m[a];
                }
            }
        }
    }
    res.recip = pref * erec / (2.0 * kPi * V);
    for (std::size_t j = 0; j < n; ++j)
        for (int a = 0; a < 3; ++a) res.forces[j][a] += pref * fr[3 * j + a];

    double q2 = 0, qsum = 0;
    for (double qi : q) {
        q2 += qi * qi;
        qsum += qi;
    }
    res.self = -pref * beta / std::sqrt(kPi) * q2;
    res.charged = -pref * kPi * qsum * qsum / (2.0 * V * beta * beta);
    return res;
}

}  // namespace mdcore
