#pragma once
// The PME mesh kernels' bodies, included by pme_mesh_<level>.cpp only. Loops run over
// fixed-size arrays (lanes of atoms, the order's z-run) so the compiler vectorises them
// at the including file's SIMD level; the arithmetic and its order do not depend on it.
#include <algorithm>
#include <cmath>
#include <cstring>
#if defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>  // gather_at's hardware gathers
#endif

#include "pme/pme_mesh_kernels.h"

namespace mdcore {
// Internal linkage: each level's file compiles these templates with its own flags, and
// with external linkage the linker could keep the AVX-512 instance for every level.
namespace {

constexpr int kSplineLanes = static_cast<int>(kPmeStencilLanes);

// One atom's stencil weights (spreading needs no derivatives), read out of its block.
template <int P>
struct AtomWeights {
    int base[3];
    float th[3][P];
};

template <int P>
AtomWeights<P> atom_weights(const PmeMeshStencils& st, std::size_t i) {
    AtomWeights<P> w;
    const std::size_t lane = i % kPmeStencilLanes, block = i / kPmeStencilLanes;
    const int* base = st.base + block * 3 * kPmeStencilLanes + lane;
    const std::size_t first = block * 3 * P * kPmeStencilLanes + lane;
    for (int d = 0; d < 3; ++d) {
        w.base[d] = base[d * kPmeStencilLanes];
        for (int j = 0; j < P; ++j) w.th[d][j] = st.th[first + (d * P + j) * kPmeStencilLanes];
    }
    return w;
}

// Order 4 works on whole z-runs: four floats, one SSE register at every level (GCC's
// vector extension; the same IEEE operations in the same order everywhere).
typedef float Run4 __attribute__((vector_size(16)));

Run4 load_run(const float* p) {
    Run4 v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

void store_run(float* p, Run4 v) { std::memcpy(p, &v, sizeof v); }

// The recursion of bspline() (bspline.cpp) in float over kSplineLanes atoms.
template <int P>
void splines_lanes(const PmeSplineInput& in, std::size_t i0, int lanes, const PmeMeshStencils& st) {
    constexpr int kL = kSplineLanes;
    for (int d = 0; d < 3; ++d) {
        const int K = in.dims[d];
        const double inv_length = 1.0 / in.length[d];
        double x[kL];
        float f[kL];
        int base[kL];
        for (int l = 0; l < kL; ++l) x[l] = l < lanes ? in.pos[d][i0 + l] : 0.0;
#pragma omp simd
        for (int l = 0; l < kL; ++l) {
            double s = x[l] * inv_length;
            s -= std::floor(s);  // any image -> [0,1)
            const double u = s * K;
            const int b = static_cast<int>(u);
            f[l] = static_cast<float>(u - b);
            base[l] = b >= K ? b - K : b;  // s*K may round up to K
        }
        float w[P][kL], dw[P][kL];
#pragma omp simd
        for (int l = 0; l < kL; ++l) {
            w[0][l] = f[l];         // M_2(f)
            w[1][l] = 1.0f - f[l];  // M_2(f+1)
        }
        for (int n = 3; n <= P; ++n) {
            if (n == P)
                for (int j = 0; j < n; ++j)
#pragma omp simd
                    for (int l = 0; l < kL; ++l)
                        dw[j][l] = (j < n - 1 ? w[j][l] : 0.0f) - (j > 0 ? w[j - 1][l] : 0.0f);
            const float div = 1.0f / static_cast<float>(n - 1);
            for (int j = n - 1; j >= 0; --j)
#pragma omp simd
                for (int l = 0; l < kL; ++l) {
                    const float a = j < n - 1 ? w[j][l] : 0.0f;
                    const float b = j > 0 ? w[j - 1][l] : 0.0f;
                    w[j][l] = div * ((f[l] + static_cast<float>(j)) * a + (static_cast<float>(n - j) - f[l]) * b);
                }
        }
        const std::size_t block = i0 / kL;
        std::memcpy(st.base + (block * 3 + d) * kL, base, sizeof base);
        for (int j = 0; j < P; ++j) {
            std::memcpy(st.th + ((block * 3 + d) * P + j) * kL, w[j], sizeof w[j]);
            std::memcpy(st.dth + ((block * 3 + d) * P + j) * kL, dw[j], sizeof dw[j]);
        }
    }
}

template <int P>
void splines_fixed(const PmeSplineInput& in, std::size_t begin, std::size_t end, const PmeMeshStencils& st) {
    for (std::size_t i = begin; i < end; i += kSplineLanes) {
        const std::size_t left = end - i;
        splines_lanes<P>(in, i, left < kSplineLanes ? static_cast<int>(left) : kSplineLanes, st);
    }
}

// The slab's local indices of point base - j are base - j + P - 1 (x: minus x0), so the
// atom's z-run starts at local base and runs up: weight th[P-1-c] at base + c.
template <int P>
void spread_fixed(const PmeSlab& slab, const int* atoms, std::size_t count, const double* q,
                  const PmeMeshStencils& st) {
    const std::size_t plane = static_cast<std::size_t>(slab.ny_pad) * slab.nz_pad;
    for (std::size_t k = 0; k < count; ++k) {
        const int i = atoms[k];
        if (q[i] == 0.0) continue;
        const AtomWeights<P> aw = atom_weights<P>(st, i);
        const int* b = aw.base;
        const float *tx = aw.th[0], *ty = aw.th[1], *tz = aw.th[2];
        float tz_up[P];
        for (int c = 0; c < P; ++c) tz_up[c] = tz[P - 1 - c];
        const float qi = static_cast<float>(q[i]);
        float* corner = slab.data + static_cast<std::size_t>(b[0] - slab.x0) * plane +
                        static_cast<std::size_t>(b[1]) * slab.nz_pad + b[2];
        for (int a = 0; a < P; ++a) {
            const float qa = qi * tx[a];
            float* rows = corner + (static_cast<std::size_t>(P - 1 - a)) * plane;
            for (int yb = 0; yb < P; ++yb) {
                const float qab = qa * ty[yb];
                float* line = rows + static_cast<std::size_t>(P - 1 - yb) * slab.nz_pad;
                for (int c = 0; c < P; ++c) line[c] += qab * tz_up[c];
            }
        }
    }
}

template <>
void spread_fixed<4>(const PmeSlab& slab, const int* atoms, std::size_t count, const double* q,
                     const PmeMeshStencils& st) {
    // Locals, not reads through `slab` and `st`: store_run's memcpy may alias
    // anything, so fields read through references would be reloaded per store.
    const std::size_t nz_pad = static_cast<std::size_t>(slab.nz_pad);
    const std::size_t plane = static_cast<std::size_t>(slab.ny_pad) * nz_pad;
    float* const data = slab.data;
    const int x0 = slab.x0;
    const PmeMeshStencils stencils = st;
    for (std::size_t k = 0; k < count; ++k) {
        const int i = atoms[k];
        if (q[i] == 0.0) continue;
        const AtomWeights<4> aw = atom_weights<4>(stencils, i);
        const int* b = aw.base;
        const float *tx = aw.th[0], *ty = aw.th[1], *tz = aw.th[2];
        const Run4 tz_up = {tz[3], tz[2], tz[1], tz[0]};
        const float qi = static_cast<float>(q[i]);
        float* corner = data + static_cast<std::size_t>(b[0] - x0) * plane + static_cast<std::size_t>(b[1]) * nz_pad + b[2];
        for (int a = 0; a < 4; ++a) {
            const float qa = qi * tx[a];
            float* rows = corner + static_cast<std::size_t>(3 - a) * plane;
            for (int yb = 0; yb < 4; ++yb) {
                float* line = rows + static_cast<std::size_t>(3 - yb) * nz_pad;
                store_run(line, load_run(line) + (qa * ty[yb]) * tz_up);
            }
        }
    }
}

// At the narrower levels GCC warns that returning a 64-byte vector changes the
// ABI; these functions have internal linkage and are inlined, so no ABI is crossed.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
typedef float Lanes __attribute__((vector_size(4 * kSplineLanes)));
typedef int LaneInts __attribute__((vector_size(4 * kSplineLanes)));
static_assert(kSplineLanes == 16, "Lanes is one AVX-512 register, two AVX2 ones");

Lanes load_lanes(const float* p) {
    Lanes v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

LaneInts load_lane_ints(const int* p) {
    LaneInts v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

Lanes gather_at(const float* base, LaneInts idx) {
#if defined(__AVX512F__)
    // The masked form with a zeroed source: the same vgatherdps, and GCC 12's
    // unmasked intrinsic reads an undefined register (-Wuninitialized).
    return reinterpret_cast<Lanes>(
        _mm512_mask_i32gather_ps(_mm512_setzero_ps(), 0xffff, reinterpret_cast<__m512i>(idx), base, 4));
#elif defined(__AVX2__)
    const __m256i lo = _mm256_setr_epi32(idx[0], idx[1], idx[2], idx[3], idx[4], idx[5], idx[6], idx[7]);
    const __m256i hi = _mm256_setr_epi32(idx[8], idx[9], idx[10], idx[11], idx[12], idx[13], idx[14], idx[15]);
    const __m256 a = _mm256_i32gather_ps(base, lo, 4), b = _mm256_i32gather_ps(base, hi, 4);
    Lanes v;
    std::memcpy(&v, &a, sizeof a);
    std::memcpy(reinterpret_cast<char*>(&v) + sizeof a, &b, sizeof b);
    return v;
#else
    Lanes v;
    for (int l = 0; l < kSplineLanes; ++l) v[l] = base[idx[l]];
    return v;
#endif
}

template <int P>
void gather_lanes(const PmeGatherInput& in, std::size_t block, std::size_t begin, std::size_t end, const double* q,
                  const PmeMeshStencils& st, float* fx, float* fy, float* fz) {
    constexpr int kL = kSplineLanes;
    const int nx = in.dims[0], ny = in.dims[1], nz = in.dims[2];
    const int* base = st.base + block * 3 * kL;
    const float* th = st.th + block * 3 * P * kL;  // weight j of dimension d: th[(d P + j) kL + lane]
    const float* dth = st.dth + block * 3 * P * kL;
    const LaneInts bx = load_lane_ints(base), by = load_lane_ints(base + kL), bz = load_lane_ints(base + 2 * kL);
    LaneInts xrow[P], yrow[P], zpt[P];  // grid offsets of the x planes and y lines, the z points
    Lanes tx[P], ty[P], dtx[P], dty[P], tz_up[P], dtz_up[P];
    for (int j = 0; j < P; ++j) {
        const LaneInts x = bx - j, y = by - j;
        xrow[j] = (x < 0 ? x + nx : x) * (ny * nz);
        yrow[j] = (y < 0 ? y + ny : y) * nz;
        const LaneInts z = bz - (P - 1) + j;  // point z0 + j has weight index P - 1 - j
        zpt[j] = z < 0 ? z + nz : z;
        tx[j] = load_lanes(th + j * kL);
        ty[j] = load_lanes(th + (P + j) * kL);
        tz_up[j] = load_lanes(th + (2 * P + P - 1 - j) * kL);
        dtx[j] = load_lanes(dth + j * kL);
        dty[j] = load_lanes(dth + (P + j) * kL);
        dtz_up[j] = load_lanes(dth + (2 * P + P - 1 - j) * kL);
    }
    Lanes gx = {}, gy = {}, gz = {};
    for (int a = 0; a < P; ++a)
        for (int b = 0; b < P; ++b) {
            const LaneInts line = xrow[a] + yrow[b];
            Lanes s0 = {}, s1 = {};  // sum_c tz phi, sum_c dtz phi
            for (int c = 0; c < P; ++c) {
                const Lanes ph = gather_at(in.phi, line + zpt[c]);
                s0 += tz_up[c] * ph;
                s1 += dtz_up[c] * ph;
            }
            gx += (dtx[a] * ty[b]) * s0;
            gy += (tx[a] * dty[b]) * s0;
            gz += (tx[a] * ty[b]) * s1;
        }
    for (std::size_t i = begin; i < end; ++i) {
        const std::size_t l = i - block * kL;
        const double qi = q[i];
        if (qi == 0.0) continue;
        fx[i] -= static_cast<float>(qi * in.scale[0] * gx[l]);
        fy[i] -= static_cast<float>(qi * in.scale[1] * gy[l]);
        fz[i] -= static_cast<float>(qi * in.scale[2] * gz[l]);
    }
}

template <int P>
void gather_blocks(const PmeGatherInput& in, std::size_t begin, std::size_t end, const double* q,
                   const PmeMeshStencils& st, float* fx, float* fy, float* fz) {
    constexpr std::size_t kL = kSplineLanes;
    for (std::size_t b = begin / kL; b * kL < end; ++b)
        gather_lanes<P>(in, b, std::max(begin, b * kL), std::min(end, (b + 1) * kL), q, st, fx, fy, fz);
}

#pragma GCC diagnostic pop

void mesh_splines(const PmeSplineInput& in, std::size_t begin, std::size_t end, const PmeMeshStencils& st) {
    switch (in.order) {
        case 4: splines_fixed<4>(in, begin, end, st); break;
        case 5: splines_fixed<5>(in, begin, end, st); break;
        default: splines_fixed<6>(in, begin, end, st); break;
    }
}

void mesh_spread(const PmeSlab& slab, int order, const int* atoms, std::size_t count, const double* q,
                 const PmeMeshStencils& st) {
    switch (order) {
        case 4: spread_fixed<4>(slab, atoms, count, q, st); break;
        case 5: spread_fixed<5>(slab, atoms, count, q, st); break;
        default: spread_fixed<6>(slab, atoms, count, q, st); break;
    }
}

void mesh_gather(const PmeGatherInput& in, std::size_t begin, std::size_t end, const double* q,
                 const PmeMeshStencils& st, float* fx, float* fy, float* fz) {
    switch (in.order) {
        case 4: gather_blocks<4>(in, begin, end, q, st, fx, fy, fz); break;
        case 5: gather_blocks<5>(in, begin, end, q, st, fx, fy, fz); break;
        default: gather_blocks<6>(in, begin, end, q, st, fx, fy, fz); break;
    }
}

constexpr PmeMeshKernels kMeshKernels{mesh_splines, mesh_spread, mesh_gather};

}  // namespace
}  // namespace mdcore
