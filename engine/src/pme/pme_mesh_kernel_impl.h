#pragma once
// The PME mesh kernels' bodies, included by pme_mesh_<level>.cpp only. Loops run over
// fixed-size arrays (lanes of atoms, the order's z-run) so the compiler vectorises them
// at the including file's SIMD level; the arithmetic and its order do not depend on it.
#include <cmath>
#include <cstring>

#include "pme/pme_mesh_kernels.h"

namespace mdcore {
// Internal linkage: each level's file compiles these templates with its own flags, and
// with external linkage the linker could keep the AVX-512 instance for every level.
namespace {

constexpr int kSplineLanes = static_cast<int>(kPmeStencilLanes);

// One atom's stencil, read out of its block.
template <int P>
struct AtomWeights {
    int base[3];
    float th[3][P], dth[3][P];
};

template <int P>
AtomWeights<P> atom_weights(const PmeMeshStencils& st, std::size_t i, bool derivatives) {
    AtomWeights<P> w;
    const std::size_t lane = i % kPmeStencilLanes, block = i / kPmeStencilLanes;
    const int* base = st.base + block * 3 * kPmeStencilLanes + lane;
    const std::size_t first = block * 3 * P * kPmeStencilLanes + lane;
    for (int d = 0; d < 3; ++d) {
        w.base[d] = base[d * kPmeStencilLanes];
        for (int j = 0; j < P; ++j) w.th[d][j] = st.th[first + (d * P + j) * kPmeStencilLanes];
        if (derivatives)
            for (int j = 0; j < P; ++j) w.dth[d][j] = st.dth[first + (d * P + j) * kPmeStencilLanes];
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

float sum_run(Run4 v) { return (v[0] + v[1]) + (v[2] + v[3]); }

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
        const AtomWeights<P> aw = atom_weights<P>(st, i, false);
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
        const AtomWeights<4> aw = atom_weights<4>(stencils, i, false);
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

// grad phi as three P-vectors summed over the (x, y) rows, reduced with the z weights
// at the end: one vector multiply-add per row and component.
template <int P>
void gather_fixed(const PmeGatherInput& in, std::size_t begin, std::size_t end, const double* q,
                  const PmeMeshStencils& st, float* fx, float* fy, float* fz) {
    const int nx = in.dims[0], ny = in.dims[1], nz = in.dims[2];
    for (std::size_t i = begin; i < end; ++i) {
        if (q[i] == 0.0) continue;
        const AtomWeights<P> aw = atom_weights<P>(st, i, true);
        const int* b = aw.base;
        const float *tx = aw.th[0], *ty = aw.th[1], *tz = aw.th[2];
        const float *dtx = aw.dth[0], *dty = aw.dth[1], *dtz = aw.dth[2];
        int xrow[P], yrow[P], zpt[P];
        for (int j = 0; j < P; ++j) {
            const int x = b[0] - j, y = b[1] - j;
            xrow[j] = x < 0 ? x + nx : x;
            yrow[j] = y < 0 ? y + ny : y;
        }
        const int z0 = b[2] - (P - 1);  // the run's lowest point
        const bool contiguous = z0 >= 0;
        for (int c = 0; c < P; ++c) zpt[c] = z0 + c < 0 ? z0 + c + nz : z0 + c;
        float vx[P] = {}, vy[P] = {}, vz[P] = {};
        for (int a = 0; a < P; ++a) {
            const float* plane = in.phi + static_cast<std::size_t>(xrow[a]) * ny * nz;
            for (int yb = 0; yb < P; ++yb) {
                const float* line = plane + static_cast<std::size_t>(yrow[yb]) * nz;
                float ph[P];
                if (contiguous)
                    for (int c = 0; c < P; ++c) ph[c] = line[z0 + c];
                else
                    for (int c = 0; c < P; ++c) ph[c] = line[zpt[c]];
                const float wx = dtx[a] * ty[yb], wy = tx[a] * dty[yb], wz = tx[a] * ty[yb];
                for (int c = 0; c < P; ++c) {
                    vx[c] += wx * ph[c];
                    vy[c] += wy * ph[c];
                    vz[c] += wz * ph[c];
                }
            }
        }
        float gx = 0, gy = 0, gz = 0;
        for (int c = 0; c < P; ++c) {  // point z0 + c has weight index P-1-c
            gx += tz[P - 1 - c] * vx[c];
            gy += tz[P - 1 - c] * vy[c];
            gz += dtz[P - 1 - c] * vz[c];
        }
        const double qi = q[i];
        fx[i] -= static_cast<float>(qi * in.scale[0] * gx);
        fy[i] -= static_cast<float>(qi * in.scale[1] * gy);
        fz[i] -= static_cast<float>(qi * in.scale[2] * gz);
    }
}

// Order 4: per x-row a the y-contractions A[a] = sum_b ty[b] phi[a][b][.] and
// B[a] = sum_b dty[b] phi[a][b][.] as z-runs (four independent chains), then
// grad = (sum_a dtx A, sum_a tx B, sum_a tx A) dotted with the z weights.
template <>
void gather_fixed<4>(const PmeGatherInput& in, std::size_t begin, std::size_t end, const double* q,
                     const PmeMeshStencils& st, float* fx, float* fy, float* fz) {
    const int nx = in.dims[0], ny = in.dims[1], nz = in.dims[2];
    for (std::size_t i = begin; i < end; ++i) {
        if (q[i] == 0.0) continue;
        const AtomWeights<4> aw = atom_weights<4>(st, i, true);
        const int* b = aw.base;
        const float *tx = aw.th[0], *ty = aw.th[1], *tz = aw.th[2];
        const float *dtx = aw.dth[0], *dty = aw.dth[1], *dtz = aw.dth[2];
        int yrow[4];
        for (int j = 0; j < 4; ++j) yrow[j] = b[1] - j < 0 ? b[1] - j + ny : b[1] - j;
        const int z0 = b[2] - 3;  // the run's lowest point
        int zpt[4];
        for (int c = 0; c < 4; ++c) zpt[c] = z0 + c < 0 ? z0 + c + nz : z0 + c;
        Run4 A[4], B[4];
        for (int a = 0; a < 4; ++a) {
            const int x = b[0] - a < 0 ? b[0] - a + nx : b[0] - a;
            const float* plane = in.phi + static_cast<std::size_t>(x) * ny * nz;
            Run4 sa = {0, 0, 0, 0}, sb = {0, 0, 0, 0};
            for (int yb = 0; yb < 4; ++yb) {
                const float* line = plane + static_cast<std::size_t>(yrow[yb]) * nz;
                const Run4 run = z0 >= 0 ? load_run(line + z0) : Run4{line[zpt[0]], line[zpt[1]], line[zpt[2]], line[zpt[3]]};
                sa += ty[yb] * run;
                sb += dty[yb] * run;
            }
            A[a] = sa;
            B[a] = sb;
        }
        const Run4 tz_up = {tz[3], tz[2], tz[1], tz[0]};
        const Run4 dtz_up = {dtz[3], dtz[2], dtz[1], dtz[0]};
        const Run4 sx = (dtx[0] * A[0] + dtx[1] * A[1]) + (dtx[2] * A[2] + dtx[3] * A[3]);
        const Run4 sy = (tx[0] * B[0] + tx[1] * B[1]) + (tx[2] * B[2] + tx[3] * B[3]);
        const Run4 sz = (tx[0] * A[0] + tx[1] * A[1]) + (tx[2] * A[2] + tx[3] * A[3]);
        const double qi = q[i];
        fx[i] -= static_cast<float>(qi * in.scale[0] * sum_run(sx * tz_up));
        fy[i] -= static_cast<float>(qi * in.scale[1] * sum_run(sy * tz_up));
        fz[i] -= static_cast<float>(qi * in.scale[2] * sum_run(sz * dtz_up));
    }
}

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
        case 4: gather_fixed<4>(in, begin, end, q, st, fx, fy, fz); break;
        case 5: gather_fixed<5>(in, begin, end, q, st, fx, fy, fz); break;
        default: gather_fixed<6>(in, begin, end, q, st, fx, fy, fz); break;
    }
}

constexpr PmeMeshKernels kMeshKernels{mesh_splines, mesh_spread, mesh_gather};

}  // namespace
}  // namespace mdcore
