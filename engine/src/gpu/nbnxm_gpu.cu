// The CUDA nonbonded force kernel and the rolling-prune kernel over the GPU pair
// list (gpu_list_layout.h), after GROMACS' nbnxm CUDA kernels (Paell et al. 2020,
// sec. IV.A): one 8 x 8 thread block per super-cluster list entry, the entry's
// 64 i-atoms staged (shifted) in shared memory, an outer loop over j-cluster
// groups and an inner loop over the 8 i-clusters, warp-level force reductions.
// The per-pair math is pair_math.h, shared with the host tests.
#include "gpu/nbnxm_gpu.cuh"

namespace mdcore::gpu {
namespace {

constexpr unsigned kWarp = 0xffffffffu;

// Stages the entry's i-atoms, shifted by minus the shift vector (j + shift
// against i equals j against i - shift).
__device__ void stage_i_atoms(const float4* xq, const int* type, const float3* shift, const Sci& s,
                              float4* xqi, int* typei) {
    const int t = threadIdx.y * kClusterSize + threadIdx.x;
    const int slot = s.sci * kSuperSize + t;
    float4 a = xq[slot];
    const float3 sh = shift[s.shift];
    a.x -= sh.x;
    a.y -= sh.y;
    a.z -= sh.z;
    xqi[t] = a;
    if (typei) typei[t] = type[slot];
}

// Sum over the 8 i-threads of one j-atom: lanes jq*8 .. jq*8+7 of the warp.
__device__ float sum_over_i(float v) {
    for (int o = kClusterSize / 2; o > 0; o >>= 1) v += __shfl_down_sync(kWarp, v, o, kClusterSize);
    return v;
}

// Sum over the 4 j-threads of one i-atom: lanes ia, ia+8, ia+16, ia+24.
__device__ float sum_over_j(float v) {
    v += __shfl_xor_sync(kWarp, v, 16);
    v += __shfl_xor_sync(kWarp, v, 8);
    return v;
}

__device__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(kWarp, v, o);
    return v;
}

__global__ void __launch_bounds__(kSuperSize) nonbonded_kernel(NbKernelArgs a) {
    __shared__ float4 xqi[kSuperSize];
    __shared__ int typei[kSuperSize];
    const Sci s = a.list.sci[blockIdx.x];
    const int ia = threadIdx.x, ja = threadIdx.y;
    const int half = ja / kHalfClusterSize;                        // the warp
    const int lane = (ja % kHalfClusterSize) * kClusterSize + ia;  // lane in the warp
    stage_i_atoms(a.atoms.xq, a.atoms.type, a.atoms.shift, s, xqi, typei);
    __syncthreads();

    float3 fi[kClustersPerSuper];
    for (int c = 0; c < kClustersPerSuper; ++c) fi[c] = make_float3(0.0f, 0.0f, 0.0f);
    float e_lj = 0.0f, e_coul = 0.0f, n_in = 0.0f;
    for (int g = s.cj4_begin; g < s.cj4_end; ++g) {
        const Cj4& group = a.list.cj4[g];
        const unsigned imask = group.imei[half].imask;  // the same for the whole warp
        if (imask == 0) continue;
        const PairMasks& m = a.list.masks[group.imei[half].excl_ind];
        const unsigned w_int = m.interact[lane], w_exc = m.excluded[lane];
        for (int jm = 0; jm < kJGroupSize; ++jm) {
            if (((imask >> (jm * kClustersPerSuper)) & 0xffu) == 0) continue;
            const int aj = group.cj[jm] * kClusterSize + ja;
            const float4 xj = a.atoms.xq[aj];
            const int tj = a.atoms.type[aj];
            float3 fj = make_float3(0.0f, 0.0f, 0.0f);
#pragma unroll
            for (int c = 0; c < kClustersPerSuper; ++c) {
                const int bit = jm * kClustersPerSuper + c;
                if (!((imask >> bit) & 1u)) continue;
                const float4 xi = xqi[c * kClusterSize + ia];
                const float dx = xi.x - xj.x, dy = xi.y - xj.y, dz = xi.z - xj.z;
                const float r2 = dx * dx + dy * dy + dz * dz;
                const bool interact = (w_int >> bit) & 1u, excluded = (w_exc >> bit) & 1u;
                const float2 lj = a.atoms.lj[typei[c * kClusterSize + ia] * a.atoms.ntypes + tj];
                const pair_math::PairTerms t =
                    pair_math::pair_terms(r2, lj.x, lj.y, xi.w * xj.w, interact, excluded, a.constants);
                fi[c].x += t.f_over_r * dx;
                fi[c].y += t.f_over_r * dy;
                fi[c].z += t.f_over_r * dz;
                fj.x -= t.f_over_r * dx;
                fj.y -= t.f_over_r * dy;
                fj.z -= t.f_over_r * dz;
                if (a.energy) {
                    e_lj += t.v_lj;
                    e_coul += t.v_coul;
                    n_in += interact && r2 < a.constants.rc2 ? 1.0f : 0.0f;
                }
            }
            fj.x = sum_over_i(fj.x);
            fj.y = sum_over_i(fj.y);
            fj.z = sum_over_i(fj.z);
            if (ia == 0) {
                atomicAdd(&a.out.f[aj].x, fj.x);
                atomicAdd(&a.out.f[aj].y, fj.y);
                atomicAdd(&a.out.f[aj].z, fj.z);
            }
        }
    }
    for (int c = 0; c < kClustersPerSuper; ++c) {
        const float fx = sum_over_j(fi[c].x), fy = sum_over_j(fi[c].y), fz = sum_over_j(fi[c].z);
        if (lane < kClusterSize) {
            float3* f = &a.out.f[s.sci * kSuperSize + c * kClusterSize + ia];
            atomicAdd(&f->x, fx);
            atomicAdd(&f->y, fy);
            atomicAdd(&f->z, fz);
        }
    }
    if (a.energy) {
        e_lj = warp_sum(e_lj);
        e_coul = warp_sum(e_coul);
        n_in = warp_sum(n_in);
        if (lane == 0) {
            atomicAdd(&a.out.energies[0], static_cast<double>(e_lj));
            atomicAdd(&a.out.energies[1], static_cast<double>(e_coul));
            atomicAdd(&a.out.energies[2], static_cast<double>(n_in));
        }
    }
}

// One block per cj4 group of the part: a (j-cluster, i-cluster) pair of a warp
// half stays when any of its atom pairs (interacting or excluded) is closer than
// the inner radius.
__global__ void __launch_bounds__(kSuperSize) prune_kernel(PruneArgs a) {
    __shared__ float4 xqi[kSuperSize];
    const int g = a.cj4_begin + blockIdx.x;
    if (g >= a.cj4_end) return;  // the whole block leaves together
    const Sci s = a.sci[a.cj4_sci[g]];
    const int ia = threadIdx.x, ja = threadIdx.y;
    const int half = ja / kHalfClusterSize;
    const int lane = (ja % kHalfClusterSize) * kClusterSize + ia;
    stage_i_atoms(a.xq, nullptr, a.shift, s, xqi, nullptr);
    __syncthreads();
    const Cj4& group = a.outer[g];
    const unsigned imask = group.imei[half].imask;
    unsigned kept = 0;
    if (imask != 0) {
        const PairMasks& m = a.masks[group.imei[half].excl_ind];
        const unsigned listed = m.interact[lane] | m.excluded[lane];
        for (int jm = 0; jm < kJGroupSize; ++jm) {
            if (((imask >> (jm * kClustersPerSuper)) & 0xffu) == 0) continue;
            const float4 xj = a.xq[group.cj[jm] * kClusterSize + ja];
            for (int c = 0; c < kClustersPerSuper; ++c) {
                const int bit = jm * kClustersPerSuper + c;
                if (!((imask >> bit) & 1u)) continue;
                const float4 xi = xqi[c * kClusterSize + ia];
                const float dx = xi.x - xj.x, dy = xi.y - xj.y, dz = xi.z - xj.z;
                const bool close = dx * dx + dy * dy + dz * dz < a.r2_inner && ((listed >> bit) & 1u);
                if (__any_sync(kWarp, close)) kept |= 1u << bit;
            }
        }
    }
    if (lane == 0) a.inner[g].imei[half].imask = kept;
}

}  // namespace

cudaError_t launch_nonbonded(const NbKernelArgs& args, cudaStream_t stream) {
    if (args.list.num_sci == 0) return cudaSuccess;
    nonbonded_kernel<<<args.list.num_sci, dim3(kClusterSize, kClusterSize), 0, stream>>>(args);
    return cudaGetLastError();
}

cudaError_t launch_prune(const PruneArgs& args, cudaStream_t stream) {
    const int blocks = args.cj4_end - args.cj4_begin;
    if (blocks <= 0) return cudaSuccess;
    prune_kernel<<<blocks, dim3(kClusterSize, kClusterSize), 0, stream>>>(args);
    return cudaGetLastError();
}

}  // namespace mdcore::gpu
