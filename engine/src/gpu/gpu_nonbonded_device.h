#pragma once
// The GPU nonbonded task's device side (buffers, stream, events), shared by the
// .cpp files that drive it: gpu_nonbonded.cpp, and gpu_pme.cpp and gpu_update.cpp
// when positions stay on the device (--update gpu). C++ with the CUDA runtime;
// included only in CUDA builds.
#include <cuda_runtime.h>

#include <vector>

#include "gpu/cuda_buffers.h"
#include "gpu/gpu_list_layout.h"
#include "gpu/gpu_nonbonded.h"

namespace mdcore {

// Event pairs bracketing the timed stages of a step.
enum NbStage { kCopyUp, kPrune, kForces, kCopyDown, kRollingPrune, kNbStages };
inline constexpr const char* kNbStageNames[kNbStages] = {"copy_x_up", "prune", "nonbonded", "copy_f_down", "rolling_prune"};


struct GpuNonbonded::Device {
    cudaStream_t stream = nullptr;
    cudaEvent_t x_ready = nullptr;  // recorded once xq holds this step's positions (copy up or GPU update)
    gpu::StageTimers<kNbStages> timers{kNbStageNames};
    gpu::DeviceBuffer<float4> xq;
    gpu::DeviceBuffer<int> type;
    gpu::DeviceBuffer<float2> lj;
    gpu::DeviceBuffer<float3> shift;
    gpu::DeviceBuffer<gpu::Sci> sci;     // the launch list: Sci entries split into blocks of few cj4 groups
    gpu::DeviceBuffer<int> cj4_sci;      // per cj4 group: its entry in sci
    gpu::DeviceBuffer<gpu::Cj4> outer, inner;
    gpu::DeviceBuffer<gpu::PairMasks> masks;
    gpu::DeviceBuffer<float3> f;
    gpu::DeviceBuffer<double> energies;
    gpu::PinnedBuffer<float4> h_xq;
    gpu::PinnedBuffer<float3> h_f;
    gpu::PinnedBuffer<double> h_energies;
    std::vector<float> q;  // per GPU slot, scaled charge
    int ntypes = 0;

    void begin(NbStage s) { timers.begin(s, stream); }
    void end(NbStage s) { timers.end(s, stream); }
    ~Device() {
        if (x_ready) cudaEventDestroy(x_ready);
        if (stream) cudaStreamDestroy(stream);
    }
};

}  // namespace mdcore
