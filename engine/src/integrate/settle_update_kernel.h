#pragma once
// Body of the fused leap-frog + SETTLE kernel (settle_update.h), included by one
// translation unit per SIMD level, each compiled with its own target flags.
// Everything here has internal linkage so the instances cannot be mixed up at
// link time. The per-molecule algebra is settle.cpp's reference (settle_math.h),
// written branch-free over kLanes molecules so each statement becomes vector
// code. Every level runs the same float and double operations in the same order
// without FMA, so all levels give the same bits.
#include <algorithm>
#include <cmath>

#include <immintrin.h>

#include "integrate/settle_math.h"
#include "integrate/settle_update.h"

namespace mdcore {
namespace {

constexpr int kLanes = 16;  // one AVX-512 register of floats, two of doubles

// One block of molecules in structure-of-arrays form; [d][lane], d = x, y, z.
// The state's arithmetic (leap-frog, the unconstrained step, the corrected
// positions and velocities) is double; SETTLE solves in float on vectors
// relative to the reference O (~0.1 nm), and only its correction (~1e-3 nm) is
// added back in double, so float rounding touches the correction, not the state.
struct alignas(64) Block {
    double o[3][kLanes], b[3][kLanes], c[3][kLanes];     // x(t) in; x(t+dt) out
    double vo[3][kLanes], vb[3][kLanes], vc[3][kLanes];  // v(t-dt/2) in, v(t+dt/2) out
    double fo[3][kLanes], fb[3][kLanes], fc[3][kLanes];  // forces
    float b0[3][kLanes], c0[3][kLanes];                  // reference O->H bonds (float, for the solve)
    float ua[3][kLanes], ub[3][kLanes], uc[3][kLanes];   // unconstrained step relative to the reference O;
                                                         // SETTLE's corrections out
    int ok[kLanes];                                      // 1 when solved
    double ke[kLanes];                                   // 2 KE of the molecule
};

// box * round(d * (1/box)) with round() as a truncating conversion (to int:
// cvttpd2dq exists at every level), so it vectorises without SSE4.1's roundpd
// or a division. The image is the nearest one for any |d| < box/2 - 1e-12 box,
// and an H is ~0.1 nm from its O.
inline double image_shift(double d, double box, double inv_box) {
    const double r = d * inv_box;
    return box * static_cast<double>(static_cast<int>(r + (r >= 0.0 ? 0.5 : -0.5)));
}

void gather_block(const SettleUpdateArgs& a, const int* io, const int* ib, const int* ic, Block& k) {
    const SortedState& s = *a.state;
    const double* x[3] = {s.x.data(), s.y.data(), s.z.data()};
    const double* v[3] = {s.vx.data(), s.vy.data(), s.vz.data()};
    const float* f[3] = {s.fx.data(), s.fy.data(), s.fz.data()};
#ifdef __AVX512F__
    // Hardware gathers: GCC builds these vectors from scalar loads and shuffles,
    // which all queue for one port (BM_Update/water/24000, 1 thread: 0.89x the time).
    for (int d = 0; d < 3; ++d)
        for (int h = 0; h < kLanes; h += 8) {
            const __m256i jo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(io + h));
            const __m256i jb = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ib + h));
            const __m256i jc = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ic + h));
            _mm512_store_pd(&k.o[d][h], _mm512_i32gather_pd(jo, x[d], 8));
            _mm512_store_pd(&k.b[d][h], _mm512_i32gather_pd(jb, x[d], 8));
            _mm512_store_pd(&k.c[d][h], _mm512_i32gather_pd(jc, x[d], 8));
            _mm512_store_pd(&k.vo[d][h], _mm512_i32gather_pd(jo, v[d], 8));
            _mm512_store_pd(&k.vb[d][h], _mm512_i32gather_pd(jb, v[d], 8));
            _mm512_store_pd(&k.vc[d][h], _mm512_i32gather_pd(jc, v[d], 8));
            _mm512_store_pd(&k.fo[d][h], _mm512_cvtps_pd(_mm256_i32gather_ps(f[d], jo, 4)));
            _mm512_store_pd(&k.fb[d][h], _mm512_cvtps_pd(_mm256_i32gather_ps(f[d], jb, 4)));
            _mm512_store_pd(&k.fc[d][h], _mm512_cvtps_pd(_mm256_i32gather_ps(f[d], jc, 4)));
        }
#else
    for (int d = 0; d < 3; ++d) {
#pragma omp simd
        for (int l = 0; l < kLanes; ++l) {
            const double xo = x[d][io[l]], xb = x[d][ib[l]], xc = x[d][ic[l]];
            k.o[d][l] = xo;
            k.b[d][l] = xb;
            k.c[d][l] = xc;
            k.vo[d][l] = v[d][io[l]];
            k.vb[d][l] = v[d][ib[l]];
            k.vc[d][l] = v[d][ic[l]];
            k.fo[d][l] = f[d][io[l]];
            k.fb[d][l] = f[d][ib[l]];
            k.fc[d][l] = f[d][ic[l]];
        }
    }
#endif
}

// Leap-frog in double: v(t+dt/2) and the unconstrained x(t+dt) in place, and
// SETTLE's inputs relative to the reference O (each H at the image nearest it).
void leapfrog_block(const SettleGeometry& g, double dt, double lambda, const double* box, const double* inv_box,
                    Block& k) {
    const double ao = (1.0 / g.m_o) * dt, ah = (1.0 / g.m_h) * dt;
    for (int d = 0; d < 3; ++d)
#pragma omp simd
        for (int l = 0; l < kLanes; ++l) {
            const double vo = lambda * k.vo[d][l] + ao * k.fo[d][l];
            const double vb = lambda * k.vb[d][l] + ah * k.fb[d][l];
            const double vc = lambda * k.vc[d][l] + ah * k.fc[d][l];
            const double o0 = k.o[d][l], b0 = k.b[d][l], c0 = k.c[d][l];
            const double xo = o0 + vo * dt, xb = b0 + vb * dt, xc = c0 + vc * dt;
            // The periodic shifts of H1, H2 from O's image.
            const double sb = image_shift(b0 - o0, box[d], inv_box[d]);
            const double sc = image_shift(c0 - o0, box[d], inv_box[d]);
            k.b0[d][l] = static_cast<float>((b0 - o0) - sb);
            k.c0[d][l] = static_cast<float>((c0 - o0) - sc);
            k.ua[d][l] = static_cast<float>(xo - o0);
            k.ub[d][l] = static_cast<float>((xb - o0) - sb);
            k.uc[d][l] = static_cast<float>((xc - o0) - sc);
            k.vo[d][l] = vo;
            k.vb[d][l] = vb;
            k.vc[d][l] = vc;
            k.o[d][l] = xo;
            k.b[d][l] = xb;
            k.c[d][l] = xc;
        }
}

// SETTLE in the canonical frame (settle_math.h), all lanes at once in float;
// replaces ua/ub/uc by the corrections n - u.
void solve_block(const settle_math::Shape<float>& g, Block& k) {
    for (int l = 0; l < kLanes; ++l) {
        float b0[3], c0[3], ua[3], ub[3], uc[3], na[3], nb[3], nc[3];
        for (int d = 0; d < 3; ++d) {
            b0[d] = k.b0[d][l];
            c0[d] = k.c0[d][l];
            ua[d] = k.ua[d][l];
            ub[d] = k.ub[d][l];
            uc[d] = k.uc[d][l];
        }
        const bool ok = settle_math::settle_solve<float>(g, b0, c0, ua, ub, uc, na, nb, nc);
        for (int d = 0; d < 3; ++d) {
            k.ua[d][l] = na[d] - ua[d];
            k.ub[d][l] = nb[d] - ub[d];
            k.uc[d][l] = nc[d] - uc[d];
        }
        k.ok[l] = ok ? 1 : 0;
    }
}

// The corrections back in double: x += dx, v += dx / dt. A molecule SETTLE
// cannot solve keeps its unconstrained step. Then 2 KE per molecule.
void correct_block(const SettleGeometry& g, double dt, Block& k) {
    const double inv_dt = 1.0 / dt;
#pragma omp simd
    for (int l = 0; l < kLanes; ++l) k.ke[l] = 0.0;
    for (int d = 0; d < 3; ++d)
#pragma omp simd
        for (int l = 0; l < kLanes; ++l) {
            const bool ok = k.ok[l] != 0;
            const double da = ok ? static_cast<double>(k.ua[d][l]) : 0.0;
            const double db = ok ? static_cast<double>(k.ub[d][l]) : 0.0;
            const double dc = ok ? static_cast<double>(k.uc[d][l]) : 0.0;
            k.o[d][l] += da;
            k.b[d][l] += db;
            k.c[d][l] += dc;
            const double vo = k.vo[d][l] + inv_dt * da;
            const double vb = k.vb[d][l] + inv_dt * db;
            const double vc = k.vc[d][l] + inv_dt * dc;
            k.vo[d][l] = vo;
            k.vb[d][l] = vb;
            k.vc[d][l] = vc;
            k.ke[l] += g.m_o * vo * vo + g.m_h * (vb * vb + vc * vc);
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
    const SettleGeometry& g = a.geometry;
    const settle_math::Shape<float> gf = settle_math::shape_as<float>(g);  // converted once per call
    const double inv_box[3] = {1.0 / a.box[0], 1.0 / a.box[1], 1.0 / a.box[2]};
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
        leapfrog_block(g, a.dt, a.lambda, a.box, inv_box, k);
        solve_block(gf, k);
        correct_block(g, a.dt, k);
        scatter_block(a, io, ib, ic, count, k);
        for (int l = 0; l < count; ++l) {
            ke += k.ke[l];
            if (k.ok[l] != 0) continue;
            const int name = a.molecule_index != nullptr ? a.molecule_index[m0 + l] : m0 + l;
            if (*first_bad < 0 || name < *first_bad) *first_bad = name;
        }
    }
    return ke;
}

}  // namespace
}  // namespace mdcore
