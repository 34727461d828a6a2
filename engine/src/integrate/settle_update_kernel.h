#pragma once
// Body of the fused leap-frog + SETTLE kernel (settle_update.h), included by one
// translation unit per SIMD level, each compiled with its own target flags.
// Everything here has internal linkage so the instances cannot be mixed up at
// link time. The per-molecule algebra is settle.cpp's reference, written
// branch-free over kLanes molecules so each statement becomes vector code.
#include <algorithm>
#include <cmath>

#include "integrate/settle_math.h"
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

// SETTLE for one molecule (settle.cpp's settle_one, branch-free; settle_math.h).
__attribute__((always_inline)) inline bool settle_lane(const SettleGeometry& g, const double* b0, const double* c0, const double* ua, const double* ub,
                        const double* uc, double* na, double* nb, double* nc) {
    return settle_math::settle_solve<double>(g, b0, c0, ua, ub, uc, na, nb, nc);
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
