#pragma once
// The GPU PME task's device side (plans, buffers, stream, events), shared by
// gpu_pme.cpp and gpu_update.cpp (which reads the mesh forces with --update gpu).
// C++ with the CUDA runtime and cuFFT; included only in CUDA builds.
#include <cuda_runtime.h>
#include <cufft.h>

#include "gpu/cuda_buffers.h"
#include "gpu/gpu_pme.h"
#include "gpu/pme_gpu.cuh"

namespace mdcore {

enum PmeStage { kPmeCopyUp, kSpread, kFft, kSolve, kGather, kPmeCopyDown, kPmeStages };
inline constexpr const char* kPmeStageNames[kPmeStages] = {"pme_copy_up", "pme_spread", "pme_fft_r2c", "pme_solve", "pme_gather_c2r",
                                                 "pme_copy_f_down"};

struct GpuPme::Device {
    cudaStream_t stream = nullptr;
    cudaEvent_t forces_ready = nullptr;  // the mesh forces of this step are in f (positions on the device)
    cufftHandle forward = 0, backward = 0;
    bool plans = false;
    gpu::StageTimers<kPmeStages> timers{kPmeStageNames};
    gpu::PmeGeometry geometry{};
    float beta = 0, volume = 0, prefactor = 0;
    gpu::DeviceBuffer<float> bmod[3];
    gpu::DeviceBuffer<float> real;  // charges, then the potential
    gpu::DeviceBuffer<cufftComplex> complex;
    gpu::DeviceBuffer<float4> xq;
    gpu::DeviceBuffer<float> th, dth;
    gpu::DeviceBuffer<int> base;
    gpu::DeviceBuffer<float3> f;
    gpu::DeviceBuffer<double> energy;
    gpu::PinnedBuffer<float4> h_xq;
    gpu::PinnedBuffer<float3> h_f;
    gpu::PinnedBuffer<double> h_energy;
    ~Device() {
        if (plans) {
            cufftDestroy(forward);
            cufftDestroy(backward);
        }
        if (forces_ready) cudaEventDestroy(forces_ready);
        if (stream) cudaStreamDestroy(stream);
    }
};

}  // namespace mdcore
