// Leap-frog + SETTLE on the GPU (mode E): one thread per water (the three atoms'
// leap-frog, then SETTLE in float with settle_math.h, the algebra of the CPU
// kernel) or per atom outside SETTLE; 2 KE summed per warp and block into one
// double. The CPU kernel's conventions (settle_update_kernel.h): each H is taken
// at the periodic image nearest its reference O and written back in its own
// image, and a molecule SETTLE cannot solve keeps its unconstrained step (and is
// counted, so the host can fail the run as the CPU path does).
#include "gpu/update_gpu.cuh"
#include "integrate/settle_math.h"

namespace mdcore::gpu {
namespace {

constexpr int kThreads = 128;

__device__ float image_shift(float d, float box) { return box * rintf(d / box); }

__device__ float3 force(const UpdateArgs& a, int s) {
    float3 f = a.f_nb[s];
    if (a.f_pme) {
        const float3 m = a.f_pme[s];
        f.x += m.x;
        f.y += m.y;
        f.z += m.z;
    }
    return f;
}

__device__ float update_water(const UpdateArgs& a, int4 w) {
    const int slot[3] = {w.x, w.y, w.z};
    const float inv_m[3] = {1.0f / a.shape.m_o, 1.0f / a.shape.m_h, 1.0f / a.shape.m_h};
    const float m[3] = {a.shape.m_o, a.shape.m_h, a.shape.m_h};
    float x0[3][3], v[3][3], u[3][3], shift[3][3];
    for (int k = 0; k < 3; ++k) {
        const float4 p = a.xq[slot[k]];
        const float3 vel = a.v[slot[k]];
        const float3 f = force(a, slot[k]);
        x0[k][0] = p.x;
        x0[k][1] = p.y;
        x0[k][2] = p.z;
        v[k][0] = a.lambda * vel.x + inv_m[k] * a.dt * f.x;
        v[k][1] = a.lambda * vel.y + inv_m[k] * a.dt * f.y;
        v[k][2] = a.lambda * vel.z + inv_m[k] * a.dt * f.z;
    }
    float b0[3], c0[3];
    for (int d = 0; d < 3; ++d) {
        shift[0][d] = 0.0f;
        shift[1][d] = image_shift(x0[1][d] - x0[0][d], a.box[d]);
        shift[2][d] = image_shift(x0[2][d] - x0[0][d], a.box[d]);
        b0[d] = (x0[1][d] - x0[0][d]) - shift[1][d];
        c0[d] = (x0[2][d] - x0[0][d]) - shift[2][d];
        for (int k = 0; k < 3; ++k) u[k][d] = (x0[k][d] + v[k][d] * a.dt - x0[0][d]) - shift[k][d];
    }
    float n[3][3];
    const bool ok = settle_math::settle_solve<float>(a.shape, b0, c0, u[0], u[1], u[2], n[0], n[1], n[2]);
    if (!ok) atomicAdd(a.unsolved, 1);
    float ke = 0.0f;
    for (int k = 0; k < 3; ++k) {
        float xn[3];
        for (int d = 0; d < 3; ++d) {
            xn[d] = ok ? (x0[0][d] + n[k][d]) + shift[k][d] : x0[k][d] + v[k][d] * a.dt;
            v[k][d] = ok ? v[k][d] + (n[k][d] - u[k][d]) / a.dt : v[k][d];
            ke += m[k] * v[k][d] * v[k][d];
        }
        float4& p = a.xq[slot[k]];
        p.x = xn[0];
        p.y = xn[1];
        p.z = xn[2];
        a.v[slot[k]] = make_float3(v[k][0], v[k][1], v[k][2]);
    }
    return ke;
}

__device__ float update_single(const UpdateArgs& a, int s) {
    const float im = a.inv_mass[s];
    const float3 f = force(a, s);
    float3 vel = a.v[s];
    vel.x = a.lambda * vel.x + im * a.dt * f.x;
    vel.y = a.lambda * vel.y + im * a.dt * f.y;
    vel.z = a.lambda * vel.z + im * a.dt * f.z;
    a.v[s] = vel;
    float4& p = a.xq[s];
    p.x += vel.x * a.dt;
    p.y += vel.y * a.dt;
    p.z += vel.z * a.dt;
    return a.mass[s] * (vel.x * vel.x + vel.y * vel.y + vel.z * vel.z);
}

__global__ void __launch_bounds__(kThreads) update_kernel(UpdateArgs a) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    float ke = 0.0f;
    if (t < a.num_molecules) ke = update_water(a, a.molecules[t]);
    else if (t < a.num_molecules + a.num_singles) ke = update_single(a, a.singles[t - a.num_molecules]);
    for (int o = 16; o > 0; o >>= 1) ke += __shfl_xor_sync(0xffffffffu, ke, o);
    __shared__ float warp_ke[kThreads / 32];
    if ((threadIdx.x & 31) == 0) warp_ke[threadIdx.x / 32] = ke;
    __syncthreads();
    if (threadIdx.x == 0) {
        double sum = 0.0;
        for (int w = 0; w < kThreads / 32; ++w) sum += warp_ke[w];
        atomicAdd(a.twice_ke, sum);
    }
}

}  // namespace

cudaError_t launch_update(const UpdateArgs& args, cudaStream_t stream) {
    const int n = args.num_molecules + args.num_singles;
    if (n == 0) return cudaSuccess;
    update_kernel<<<(n + kThreads - 1) / kThreads, kThreads, 0, stream>>>(args);
    return cudaGetLastError();
}

}  // namespace mdcore::gpu
