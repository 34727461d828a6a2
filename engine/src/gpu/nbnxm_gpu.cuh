#pragma once
// The CUDA nonbonded and prune kernels' arguments: plain structs of device
// pointers and constants, filled by the host (gpu_nonbonded.cpp) and read by the
// kernels (nbnxm_gpu.cu). Only the CUDA runtime API is needed to include it.
#include <cuda_runtime_api.h>

#include "gpu/gpu_list_layout.h"
#include "nonbonded/pair_math.h"

namespace mdcore::gpu {

struct NbAtoms {
    const float4* xq;       // per GPU slot: x, y, z, charge x sqrt(kCoulomb / epsilon_r)
    const int* type;        // per GPU slot
    const float2* lj;       // ntypes x ntypes: (6 C6, 12 C12)
    int ntypes;
    const float3* shift;    // kNumShifts shift vectors (pair_list.h)
};

struct NbList {
    const Sci* sci;
    const Cj4* cj4;         // the pruned (inner) list the force kernel reads
    const PairMasks* masks;
    int num_sci;
};

struct NbOutput {
    float3* f;              // per GPU slot, accumulated with atomics (zeroed before the launch)
    double* energies;       // [0] LJ, [1] Coulomb real space, [2] pairs within rc (energy steps)
};

struct NbKernelArgs {
    NbAtoms atoms;
    NbList list;
    pair_math::PairConstants constants;
    NbOutput out;
    bool energy;
};

// Rolling pruning: rebuilds the inner imasks of cj4 groups [cj4_begin, cj4_end)
// from the outer list, keeping the (j-cluster, i-cluster) pairs with an atom pair
// closer than the inner radius. One block per group (cj4_sci names its Sci
// entry), so even a small part spreads over the GPU.
struct PruneArgs {
    const float4* xq;
    const float3* shift;
    const Sci* sci;
    const int* cj4_sci;     // per cj4 group: its entry in sci
    const Cj4* outer;
    Cj4* inner;
    const PairMasks* masks;
    float r2_inner;
    int cj4_begin, cj4_end;
};

// Both launch on `stream` and return at once; launch errors come back as the status.
cudaError_t launch_nonbonded(const NbKernelArgs& args, cudaStream_t stream);
cudaError_t launch_prune(const PruneArgs& args, cudaStream_t stream);

}  // namespace mdcore::gpu
