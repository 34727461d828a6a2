#pragma once
// The CUDA update kernel's arguments (mode E, --update gpu): leap-frog with
// velocity scaling, then SETTLE for the waters, on the state kept in the GPU
// nonbonded task's slot order. Plain structs filled by gpu_update.cpp.
#include <cuda_runtime_api.h>

#include "integrate/settle_math.h"

namespace mdcore::gpu {

// SETTLE's canonical triangle in float.
using SettleShapeF = settle_math::Shape<float>;

struct UpdateArgs {
    float4* xq;            // per slot: x, y, z (updated in place) and the scaled charge (kept)
    float3* v;             // per slot: v(t - dt/2) in, v(t + dt/2) out
    const float3* f_nb;    // per slot: nonbonded forces of this step
    const float3* f_pme;   // per slot: PME mesh forces, or null
    const float* inv_mass; // per slot (0: empty slot or massless)
    const float* mass;     // per slot
    const int4* molecules; // SETTLE waters: O, H1, H2 slots (w unused)
    int num_molecules;
    const int* singles;    // slots of the atoms outside SETTLE
    int num_singles;
    SettleShapeF shape;
    float box[3];
    float dt, lambda;
    double* twice_ke;      // accumulated (zeroed before)
    int* unsolved;         // count of molecules SETTLE could not solve (zeroed before)
};

cudaError_t launch_update(const UpdateArgs& args, cudaStream_t stream);

}  // namespace mdcore::gpu
