// Host side of the GPU update (--update gpu): per-slot velocities and masses, the
// SETTLE list in the nonbonded task's slots, the launch after both force tasks,
// and the copies back when the CPU needs the state. C++ with the CUDA runtime;
// the kernel is update_gpu.cu.
#include "gpu/gpu_update.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <vector>

#include "gpu/cuda_buffers.h"
#include "gpu/gpu_nonbonded_device.h"
#include "gpu/gpu_pme_device.h"
#include "gpu/update_gpu.cuh"

namespace mdcore {
namespace {

using gpu::check;

enum UpdateStage { kUpdate, kUpdateStages };
constexpr const char* kUpdateStageNames[kUpdateStages] = {"update"};

}  // namespace

struct GpuUpdate::Device {
    gpu::StageTimers<kUpdateStages> timers{kUpdateStageNames};
    gpu::DeviceBuffer<float3> v;
    gpu::DeviceBuffer<float> inv_mass, mass;
    gpu::DeviceBuffer<int4> molecules;
    gpu::DeviceBuffer<int> singles;
    gpu::DeviceBuffer<double> twice_ke;
    gpu::DeviceBuffer<int> unsolved;
    gpu::PinnedBuffer<float3> h_v;
    gpu::PinnedBuffer<float4> h_x;
    gpu::PinnedBuffer<double> h_twice_ke;
    gpu::PinnedBuffer<int> h_unsolved;
    cudaEvent_t done = nullptr;  // the kinetic energy (and SETTLE's verdict) of the step are on the host
    gpu::SettleShapeF shape{};
    float box[3] = {};
    int num_molecules = 0, num_singles = 0;
    ~Device() {
        if (done) cudaEventDestroy(done);
    }
};

GpuUpdate::GpuUpdate(GpuNonbonded& nb, GpuPme* pme, const SettleParameters& settle, const Box& box, int threads)
    : nb_(nb), pme_(pme), dev_(std::make_unique<Device>()), threads_(std::max(1, threads)) {
    Device& d = *dev_;
    check(cudaEventCreateWithFlags(&d.done, cudaEventDisableTiming), "cudaEventCreate");
    const SettleGeometry g = settle_geometry(settle);
    d.shape = settle_math::shape_as<float>(g);
    for (int k = 0; k < 3; ++k) d.box[k] = static_cast<float>(box.lengths[k]);
    d.twice_ke.reserve(1);
    d.unsolved.reserve(1);
    d.h_twice_ke.reserve(1);
    d.h_unsolved.reserve(1);
}

GpuUpdate::~GpuUpdate() {
    if (dev_) cudaStreamSynchronize(nb_.device().stream);
}

void GpuUpdate::set_state(const SortedState& state, const SettleUpdateList& settles) {
    Device& d = *dev_;
    const gpu::SuperClusterLayout& layout = nb_.layout();
    const std::vector<int>& cpu_of = nb_.gpu_to_cpu();
    const int nslots = nb_.num_slots();
    auto gpu_slot = [&](int cpu) { return layout.gpu_cluster[cpu / gpu::kClusterSize] * gpu::kClusterSize + cpu % gpu::kClusterSize; };
    std::vector<float3> v(nslots);
    std::vector<float> inv_mass(nslots), mass(nslots);
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (int g = 0; g < nslots; ++g) {
        const int c = cpu_of[g];
        v[g] = c < 0 ? make_float3(0.0f, 0.0f, 0.0f)
                     : make_float3(static_cast<float>(state.vx[c]), static_cast<float>(state.vy[c]),
                                   static_cast<float>(state.vz[c]));
        inv_mass[g] = c < 0 ? 0.0f : static_cast<float>(state.inv_mass[c]);
        mass[g] = c < 0 ? 0.0f : static_cast<float>(state.mass[c]);
    }
    std::vector<int4> molecules(settles.molecules.size());
    for (std::size_t m = 0; m < molecules.size(); ++m) {
        const SettleTriple& t = settles.molecules[m];
        molecules[m] = make_int4(gpu_slot(t.o), gpu_slot(t.h1), gpu_slot(t.h2), 0);
    }
    std::vector<int> singles(settles.free_slots.size());
    for (std::size_t k = 0; k < singles.size(); ++k) singles[k] = gpu_slot(settles.free_slots[k]);
    // The nonbonded task's stream may still run last step's work on these buffers.
    check(cudaStreamSynchronize(nb_.device().stream), "cudaStreamSynchronize");
    d.v.upload(v.data(), v.size());
    d.inv_mass.upload(inv_mass.data(), inv_mass.size());
    d.mass.upload(mass.data(), mass.size());
    d.molecules.upload(molecules.data(), molecules.size());
    d.singles.upload(singles.data(), singles.size());
    d.num_molecules = static_cast<int>(molecules.size());
    d.num_singles = static_cast<int>(singles.size());
    on_device_ = false;
}

double GpuUpdate::update(double dt, double lambda) {
    Device& d = *dev_;
    GpuNonbonded::Device& nb = nb_.device();
    d.timers.collect(kernel_seconds_);
    if (pme_) check(cudaStreamWaitEvent(nb.stream, pme_->device().forces_ready, 0), "cudaStreamWaitEvent");
    check(cudaMemsetAsync(d.twice_ke.p, 0, sizeof(double), nb.stream), "zero ke");
    check(cudaMemsetAsync(d.unsolved.p, 0, sizeof(int), nb.stream), "zero unsolved");
    gpu::UpdateArgs a{};
    a.xq = nb.xq.p;
    a.v = d.v.p;
    a.f_nb = nb.f.p;
    a.f_pme = pme_ ? pme_->device().f.p : nullptr;
    a.inv_mass = d.inv_mass.p;
    a.mass = d.mass.p;
    a.molecules = d.molecules.p;
    a.num_molecules = d.num_molecules;
    a.singles = d.singles.p;
    a.num_singles = d.num_singles;
    a.shape = d.shape;
    for (int k = 0; k < 3; ++k) a.box[k] = d.box[k];
    a.dt = static_cast<float>(dt);
    a.lambda = static_cast<float>(lambda);
    a.twice_ke = d.twice_ke.p;
    a.unsolved = d.unsolved.p;
    d.timers.begin(kUpdate, nb.stream);
    check(gpu::launch_update(a, nb.stream), "update kernel");
    d.timers.end(kUpdate, nb.stream);
    check(cudaEventRecord(nb.x_ready, nb.stream), "cudaEventRecord");
    check(cudaMemcpyAsync(d.h_twice_ke.p, d.twice_ke.p, sizeof(double), cudaMemcpyDeviceToHost, nb.stream), "copy ke");
    check(cudaMemcpyAsync(d.h_unsolved.p, d.unsolved.p, sizeof(int), cudaMemcpyDeviceToHost, nb.stream), "copy unsolved");
    check(cudaEventRecord(d.done, nb.stream), "cudaEventRecord");
    const auto t0 = std::chrono::steady_clock::now();
    check(cudaEventSynchronize(d.done), "waiting for the update");
    cpu_wait_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    on_device_ = true;
    if (d.h_unsolved.p[0] > 0)
        throw std::runtime_error("SETTLE (GPU update): no solution for " + std::to_string(d.h_unsolved.p[0]) +
                                 " molecule(s): atoms moved too far in one step");
    return d.h_twice_ke.p[0];
}

void GpuUpdate::download(SortedState& state) {
    if (!on_device_) return;
    Device& d = *dev_;
    GpuNonbonded::Device& nb = nb_.device();
    const int nslots = nb_.num_slots();
    d.h_x.reserve(nslots);
    d.h_v.reserve(nslots);
    check(cudaMemcpyAsync(d.h_x.p, nb.xq.p, nslots * sizeof(float4), cudaMemcpyDeviceToHost, nb.stream), "copy x down");
    check(cudaMemcpyAsync(d.h_v.p, d.v.p, nslots * sizeof(float3), cudaMemcpyDeviceToHost, nb.stream), "copy v down");
    check(cudaStreamSynchronize(nb.stream), "cudaStreamSynchronize");
    const std::vector<int>& cpu_of = nb_.gpu_to_cpu();
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (int g = 0; g < nslots; ++g) {
        const int c = cpu_of[g];
        if (c < 0) continue;
        state.x[c] = d.h_x.p[g].x;
        state.y[c] = d.h_x.p[g].y;
        state.z[c] = d.h_x.p[g].z;
        state.vx[c] = d.h_v.p[g].x;
        state.vy[c] = d.h_v.p[g].y;
        state.vz[c] = d.h_v.p[g].z;
    }
}

void GpuUpdate::reset_times() {
    kernel_seconds_.clear();
    cpu_wait_seconds_ = 0.0;
}

}  // namespace mdcore
