#pragma once
// The CUDA PME stages' arguments (spread, solve, gather; the FFTs are cuFFT's):
// plain structs filled by the host (gpu_pme.cpp), read by pme_gpu.cu.
#include <cuda_runtime_api.h>
#include <cufft.h>

namespace mdcore::gpu {

struct PmeGeometry {
    int n[3];         // grid points per dimension
    int nzc;          // nz / 2 + 1 complex z-planes
    float length[3];  // box edges, nm
    int order;        // 4, 5 or 6
};

// Per atom: x, y, z and the raw charge (e); stencils kept for the gather.
struct PmeAtoms {
    const float4* xq;
    int n;
    float* th;    // n x 3 x order weights
    float* dth;   // n x 3 x order derivatives
    int* base;    // n x 3: grid index of weight 0 (weight j sits at base - j)
};

struct PmeSolveArgs {
    cufftComplex* grid;     // the transformed charges, scaled in place
    const float* bmod[3];   // |b(m)|^2 per dimension
    float beta, volume, prefactor;
    double* energy;         // accumulated (zeroed before)
};

cudaError_t launch_pme_spread(const PmeGeometry& g, const PmeAtoms& atoms, float* grid, cudaStream_t stream);
cudaError_t launch_pme_solve(const PmeGeometry& g, const PmeSolveArgs& args, cudaStream_t stream);
// Forces -q grad phi into f (overwritten), phi the real potential grid.
cudaError_t launch_pme_gather(const PmeGeometry& g, const PmeAtoms& atoms, const float* phi, float3* f,
                              cudaStream_t stream);

}  // namespace mdcore::gpu
