#pragma once
// Body of the fused leap-frog + SETTLE kernel (settle_update.h), included by one
// translation unit per SIMD level, each compiled with its own target flags.
// Everything here has internal linkage so the instances cannot be mixed up at
// link time. The per-molecule algebra is settle.cpp's reference, written
// branch-free over kLanes molecules so each statement becomes vector code.
#include <algorithm>
#include <cmath>

#include "integrate/settle_update.h"

namespace mdcore {
namespace {

constexpr int kLanes = 8;  // one AVX-512 register of doubles

// One block of molecules in structure-of-arrays form; [d][lane], d = x, y, z.
struct alignas(64) Block {
    double o[3][kLanes], b[3][kLanes], c[3][kLanes];     // x(t) of O, H1, H2 in; x(t+dt) out
    double sb[3][kLanes], sc[3][kLanes];                 // periodic shifts of H1, H2 from O's image
    double vo[3][kLanes], vb[3][kLanes], vc[3][kLanes];  // v(t-dt/2) in, v(t+dt/2) out
    double fo[3][kLanes], fb[3][kLanes], fc[3][kLanes];  // forces
    double ke[kLanes];                                   // 2 KE of the molecule
    double ok[kLanes];                                   // 1 when solved (double: one element width in the loop)
};

// box * round(d / box) with round() as a truncating conversion (to int:
// cvttpd2dq exists at every level), so it vectorises without SSE4.1's roundpd.
inline double image_shift(double d, double box) {
    const double r = d / box;
    return box * static_cast<double>(static_cast<int>(r + (r >= 0.0 ? 0.5 : -0.5)));
}

void gather_block(const SettleUpdateArgs& a, const int* io, const int* ib, const int* ic, Block& k) {
    const SortedState& s = *a.state;
    const double* x[3] = {s.x.data(), s.y.data(), s.z.data()};
    const double* v[3] = {s.vx.data(), s.vy.data(), s.vz.data()};
    const float* f[3] = {s.fx.data(), s.fy.data(), s.fz.data()};
    for (int d = 0; d < 3; ++d) {
        const double box = a.box[d];
#pragma omp simd
        for (int l = 0; l < kLanes; ++l) {
            const double xo = x[d][io[l]], xb = x[d][ib[l]], xc = x[d][ic[l]];
            k.o[d][l] = xo;
            k.b[d][l] = xb;
            k.c[d][l] = xc;
            k.sb[d][l] = image_shift(xb - xo, box);
            k.sc[d][l] = image_shift(xc - xo, box);
            k.vo[d][l] = v[d][io[l]];
            k.vb[d][l] = v[d][ib[l]];
            k.vc[d][l] = v[d][ic[l]];
            k.fo[d][l] = f[d][io[l]];
            k.fb[d][l] = f[d][ib[l]];
            k.fc[d][l] = f[d][ic[l]];
        }
    }
}

inline double rsqrt(double v) { return 1.0 / std::sqrt(v); }
inline bool finite(double v) { return std::fabs(v) <= 1.7976931348623157e308; }  // false for inf and NaN

// SETTLE for one molecule (settle.cpp's settle_one, branch-free): b0, c0 the
// reference O->H bonds, ua, ub, uc the unconstrained positions, all relative to
// the reference O; writes the constrained ones; false when there is no solution.
inline bool settle_lane(const SettleGeometry& g, const double* b0, const double* c0, const double* ua, const double* ub,
                        const double* uc, double* na, double* nb, double* nc) {
    double com[3], a1[3], b1[3], c1[3];
    for (int d = 0; d < 3; ++d) com[d] = g.inv_m_total * (g.m_o * ua[d] + g.m_h * (ub[d] + uc[d]));
    for (int d = 0; d < 3; ++d) {
        a1[d] = ua[d] - com[d];
        b1[d] = ub[d] - com[d];
        c1[d] = uc[d] - com[d];
    }
    // Frame: Z normal to the reference plane, X normal to Z and the new O direction.
    double ez[3] = {b0[1] * c0[2] - b0[2] * c0[1], b0[2] * c0[0] - b0[0] * c0[2], b0[0] * c0[1] - b0[1] * c0[0]};
    const double nz = rsqrt(ez[0] * ez[0] + ez[1] * ez[1] + ez[2] * ez[2]);
    for (double& e : ez) e *= nz;
    double ex[3] = {a1[1] * ez[2] - a1[2] * ez[1], a1[2] * ez[0] - a1[0] * ez[2], a1[0] * ez[1] - a1[1] * ez[0]};
    const double xx = ex[0] * ex[0] + ex[1] * ex[1] + ex[2] * ex[2];
    const bool on_normal = !(xx > 1e-30 * (a1[0] * a1[0] + a1[1] * a1[1] + a1[2] * a1[2]));
    for (int d = 0; d < 3; ++d) ex[d] = on_normal ? b0[d] : ex[d];
    const double nx = rsqrt(ex[0] * ex[0] + ex[1] * ex[1] + ex[2] * ex[2]);
    for (double& e : ex) e *= nx;
    const double ey[3] = {ez[1] * ex[2] - ez[2] * ex[1], ez[2] * ex[0] - ez[0] * ex[2], ez[0] * ex[1] - ez[1] * ex[0]};
    auto along = [](const double* e, const double* v) { return e[0] * v[0] + e[1] * v[1] + e[2] * v[2]; };
    const double xb0 = along(ex, b0), yb0 = along(ey, b0), xc0 = along(ex, c0), yc0 = along(ey, c0);
    const double za1 = along(ez, a1);
    const double xb1 = along(ex, b1), yb1 = along(ey, b1), zb1 = along(ez, b1);
    const double xc1 = along(ex, c1), yc1 = along(ey, c1), zc1 = along(ez, c1);

    const double sinphi = za1 / g.ra;
    const double cos2phi = 1.0 - sinphi * sinphi;
    const double cosphi = std::sqrt(cos2phi > 0.0 ? cos2phi : 1.0);
    const double sinpsi = (zb1 - zc1) / (2.0 * g.rc * cosphi);
    const double cos2psi = 1.0 - sinpsi * sinpsi;
    const double cospsi = std::sqrt(cos2psi > 0.0 ? cos2psi : 1.0);
    const double ya2 = g.ra * cosphi, xb2 = -g.rc * cospsi;
    const double t1 = -g.rb * cosphi, t2 = g.rc * sinpsi * sinphi;
    const double yb2 = t1 - t2, yc2 = t1 + t2;
    // In-plane rotation: alpha sin + beta cos = gamma (no torque about the reference bonds).
    const double alpha = xb2 * (xb0 - xc0) + yb0 * yb2 + yc0 * yc2;
    const double beta = xb2 * (yc0 - yb0) + xb0 * yb2 + xc0 * yc2;
    const double gamma = xb0 * yb1 - xb1 * yb0 + xc0 * yc1 - xc1 * yc0;
    const double al2be2 = alpha * alpha + beta * beta;
    const double disc = al2be2 - gamma * gamma;
    const double sinthe = (alpha * gamma - beta * std::sqrt(disc >= 0.0 ? disc : 0.0)) / al2be2;
    const double cos2the = 1.0 - sinthe * sinthe;
    const double costhe = std::sqrt(cos2the >= 0.0 ? cos2the : 0.0);

    const double a3[3] = {-ya2 * sinthe, ya2 * costhe, za1};
    const double b3[3] = {xb2 * costhe - yb2 * sinthe, xb2 * sinthe + yb2 * costhe, zb1};
    const double c3[3] = {-xb2 * costhe - yc2 * sinthe, -xb2 * sinthe + yc2 * costhe, zc1};
    double sum = 0.0;
    for (int d = 0; d < 3; ++d) {
        na[d] = com[d] + a3[0] * ex[d] + a3[1] * ey[d] + a3[2] * ez[d];
        nb[d] = com[d] + b3[0] * ex[d] + b3[1] * ey[d] + b3[2] * ez[d];
        nc[d] = com[d] + c3[0] * ex[d] + c3[1] * ey[d] + c3[2] * ez[d];
        sum += na[d] + nb[d] + nc[d];
    }
    // '&' rather than '&&': no branches, so the loop stays vectorisable.
    return (cos2phi > 0.0) & (cos2psi > 0.0) & (disc >= 0.0) & (al2be2 > 0.0) & (cos2the >= 0.0) & finite(sum);
}

// Leap-frog, then SETTLE in the canonical frame, all lanes at once. Every
// operation is the reference's (leapfrog_update, then settle_positions) in the
// same order, and the instances are compiled without FMA contraction, so the
// results are bit-identical to it at every SIMD level.
void solve_block(const SettleGeometry& g, double dt, double lambda, Block& k) {
    const double ao = (1.0 / g.m_o) * dt, ah = (1.0 / g.m_h) * dt, inv_dt = 1.0 / dt;
    for (int l = 0; l < kLanes; ++l) {
        double vo[3], vb[3], vc[3], xo[3], xb[3], xc[3], b0[3], c0[3], ua[3], ub[3], uc[3], na[3], nb[3], nc[3];
        for (int d = 0; d < 3; ++d) {
            vo[d] = lambda * k.vo[d][l] + ao * k.fo[d][l];
            vb[d] = lambda * k.vb[d][l] + ah * k.fb[d][l];
            vc[d] = lambda * k.vc[d][l] + ah * k.fc[d][l];
            const double o0 = k.o[d][l];
            xo[d] = o0 + vo[d] * dt;  // unconstrained x(t+dt)
            xb[d] = k.b[d][l] + vb[d] * dt;
            xc[d] = k.c[d][l] + vc[d] * dt;
            // Relative to the reference O, each H at the image nearest it.
            b0[d] = (k.b[d][l] - o0) - k.sb[d][l];
            c0[d] = (k.c[d][l] - o0) - k.sc[d][l];
            ua[d] = xo[d] - o0;
            ub[d] = (xb[d] - o0) - k.sb[d][l];
            uc[d] = (xc[d] - o0) - k.sc[d][l];
        }
        const bool ok = settle_lane(g, b0, c0, ua, ub, uc, na, nb, nc);
        double ke = 0.0;
        for (int d = 0; d < 3; ++d) {
            // A molecule SETTLE cannot solve keeps its unconstrained step.
            const double o0 = k.o[d][l];
            k.o[d][l] = ok ? o0 + na[d] : xo[d];
            k.b[d][l] = ok ? (o0 + nb[d]) + k.sb[d][l] : xb[d];
            k.c[d][l] = ok ? (o0 + nc[d]) + k.sc[d][l] : xc[d];
            vo[d] = ok ? vo[d] + inv_dt * (na[d] - ua[d]) : vo[d];
            vb[d] = ok ? vb[d] + inv_dt * (nb[d] - ub[d]) : vb[d];
            vc[d] = ok ? vc[d] + inv_dt * (nc[d] - uc[d]) : vc[d];
            k.vo[d][l] = vo[d];
            k.vb[d][l] = vb[d];
            k.vc[d][l] = vc[d];
            ke += g.m_o * vo[d] * vo[d] + g.m_h * (vb[d] * vb[d] + vc[d] * vc[d]);
        }
        k.ke[l] = ke;
        k.ok[l] = ok ? 1.0 : 0.0;
    }
}

void scatter_block(const SettleUpdateArgs& a, const int* io, const int* ib, const int* ic, int count, const Block& k) {
    SortedState& s = *a.state;
    double* x[3] = {s.x.data(), s.y.data(), s.z.data()};
    double* v[3] = {s.vx.data(), s.vy.data(), s.vz.data()};
    for (int d = 0; d < 3; ++d)
        for (int l = 0; l < count; ++l) {
            x[d][io[l]] = k.o[d][l];
            x[d][ib[l]] = k.b[d][l];
            x[d][ic[l]] = k.c[d][l];
            v[d][io[l]] = k.vo[d][l];
            v[d][ib[l]] = k.vb[d][l];
            v[d][ic[l]] = k.vc[d][l];
        }
}

double settle_update_range(const SettleUpdateArgs& a, int begin, int end, int* first_bad) {
    double ke = 0.0;
    *first_bad = -1;
    Block k;
    for (int m0 = begin; m0 < end; m0 += kLanes) {
        const int count = end - m0 < kLanes ? end - m0 : kLanes;
        int io[kLanes], ib[kLanes], ic[kLanes];
        for (int l = 0; l < kLanes; ++l) {  // a short last block repeats its last molecule
            const SettleTriple& t = a.molecules[m0 + (l < count ? l : count - 1)];
            io[l] = t.o;
            ib[l] = t.h1;
            ic[l] = t.h2;
        }
        gather_block(a, io, ib, ic, k);
        solve_block(a.geometry, a.dt, a.lambda, k);
        scatter_block(a, io, ib, ic, count, k);
        for (int l = 0; l < count; ++l) {
            ke += k.ke[l];
            if (k.ok[l] != 0.0) continue;
            const int name = a.molecule_index != nullptr ? a.molecule_index[m0 + l] : m0 + l;
            if (*first_bad < 0 || name < *first_bad) *first_bad = name;
        }
    }
    return ke;
}

}  // namespace
}  // namespace mdcore
