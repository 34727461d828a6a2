// Smooth PME on the GPU (the CPU stages' conventions, pme_workspace.h): spread
// with atomics, the solve per complex grid point, gather per atom. The per-atom
// B-splines and the per-point influence and energy are pme/pme_point_math.h,
// shared with the host tests.
#include "gpu/pme_gpu.cuh"
#include "pme/pme_point_math.h"

namespace mdcore::gpu {
namespace {

constexpr int kThreads = 128;

__global__ void spread_kernel(PmeGeometry g, PmeAtoms a, float* grid) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= a.n) return;
    const float4 xq = a.xq[i];
    const float pos[3] = {xq.x, xq.y, xq.z};
    const int p = g.order;
    float* th = a.th + static_cast<long>(i) * 3 * p;
    float* dth = a.dth + static_cast<long>(i) * 3 * p;
    for (int d = 0; d < 3; ++d) {
        float s = pos[d] / g.length[d];
        s -= floorf(s);  // any image -> [0, 1)
        const float u = s * g.n[d];
        int base = static_cast<int>(u);
        const float f = u - base;
        if (base >= g.n[d]) base -= g.n[d];  // s * K may round up to K
        a.base[3 * i + d] = base;
        pme_math::bspline_weights(f, p, th + d * p, dth + d * p);
    }
    if (xq.w == 0.0f) return;
    for (int j = 0; j < p; ++j) {
        const int ix = (a.base[3 * i] - j + g.n[0]) % g.n[0];
        for (int k = 0; k < p; ++k) {
            const int iy = (a.base[3 * i + 1] - k + g.n[1]) % g.n[1];
            const float qxy = xq.w * th[j] * th[p + k];
            float* row = grid + (static_cast<long>(ix) * g.n[1] + iy) * g.n[2];
            for (int l = 0; l < p; ++l) atomicAdd(&row[(a.base[3 * i + 2] - l + g.n[2]) % g.n[2]], qxy * th[2 * p + l]);
        }
    }
}

__global__ void solve_kernel(PmeGeometry g, PmeSolveArgs s) {
    const long idx = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
    const long total = static_cast<long>(g.n[0]) * g.n[1] * g.nzc;
    float e = 0.0f;
    if (idx < total) {
        const int kz = static_cast<int>(idx % g.nzc);
        const int iy = static_cast<int>(idx / g.nzc % g.n[1]);
        const int ix = static_cast<int>(idx / (static_cast<long>(g.nzc) * g.n[1]));
        const float mx = (ix <= g.n[0] / 2 ? ix : ix - g.n[0]) / g.length[0];
        const float my = (iy <= g.n[1] / 2 ? iy : iy - g.n[1]) / g.length[1];
        const float mz = kz / g.length[2];
        const float gm = pme_math::influence(mx, my, mz, s.beta, s.volume, s.bmod[0][ix] * s.bmod[1][iy] * s.bmod[2][kz],
                                             s.prefactor);
        cufftComplex c = s.grid[idx];
        e = pme_math::solve_point(c.x, c.y, gm, pme_math::plane_weight(kz, g.n[2]));
        s.grid[idx] = c;
    }
    for (int o = 16; o > 0; o >>= 1) e += __shfl_xor_sync(0xffffffffu, e, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(s.energy, static_cast<double>(e));
}

__global__ void gather_kernel(PmeGeometry g, PmeAtoms a, const float* phi, float3* f) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= a.n) return;
    const float q = a.xq[i].w;
    const int p = g.order;
    const float* th = a.th + static_cast<long>(i) * 3 * p;
    const float* dth = a.dth + static_cast<long>(i) * 3 * p;
    float gx = 0.0f, gy = 0.0f, gz = 0.0f;
    if (q != 0.0f)
        for (int j = 0; j < p; ++j) {
            const int ix = (a.base[3 * i] - j + g.n[0]) % g.n[0];
            for (int k = 0; k < p; ++k) {
                const int iy = (a.base[3 * i + 1] - k + g.n[1]) % g.n[1];
                const float* row = phi + (static_cast<long>(ix) * g.n[1] + iy) * g.n[2];
                float s0 = 0.0f, s1 = 0.0f;  // sum_l th_z phi, sum_l dth_z phi
                for (int l = 0; l < p; ++l) {
                    const float ph = row[(a.base[3 * i + 2] - l + g.n[2]) % g.n[2]];
                    s0 += th[2 * p + l] * ph;
                    s1 += dth[2 * p + l] * ph;
                }
                gx += dth[j] * th[p + k] * s0;
                gy += th[j] * dth[p + k] * s0;
                gz += th[j] * th[p + k] * s1;
            }
        }
    // Chain rule d u_a / d x_a = K_a / L_a.
    f[i] = make_float3(-q * g.n[0] / g.length[0] * gx, -q * g.n[1] / g.length[1] * gy, -q * g.n[2] / g.length[2] * gz);
}

int blocks(long n) { return static_cast<int>((n + kThreads - 1) / kThreads); }

}  // namespace

cudaError_t launch_pme_spread(const PmeGeometry& g, const PmeAtoms& atoms, float* grid, cudaStream_t stream) {
    if (atoms.n == 0) return cudaSuccess;
    spread_kernel<<<blocks(atoms.n), kThreads, 0, stream>>>(g, atoms, grid);
    return cudaGetLastError();
}

cudaError_t launch_pme_solve(const PmeGeometry& g, const PmeSolveArgs& args, cudaStream_t stream) {
    solve_kernel<<<blocks(static_cast<long>(g.n[0]) * g.n[1] * g.nzc), kThreads, 0, stream>>>(g, args);
    return cudaGetLastError();
}

cudaError_t launch_pme_gather(const PmeGeometry& g, const PmeAtoms& atoms, const float* phi, float3* f,
                              cudaStream_t stream) {
    if (atoms.n == 0) return cudaSuccess;
    gather_kernel<<<blocks(atoms.n), kThreads, 0, stream>>>(g, atoms, phi, f);
    return cudaGetLastError();
}

}  // namespace mdcore::gpu
