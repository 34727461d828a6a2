// Host side of the GPU PME task: cuFFT plans, buffers, the stream and timings.
// C++ with the CUDA runtime and cuFFT APIs; the kernels are pme_gpu.cu.
#include "gpu/gpu_pme.h"

#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <vector>

#include "gpu/cuda_buffers.h"
#include "gpu/gpu_nonbonded_device.h"
#include "gpu/gpu_pme_device.h"
#include "gpu/pme_gpu.cuh"
#include "mdcore/units.h"
#include "pme/bspline.h"

namespace mdcore {
namespace {

using gpu::check;

void check_fft(cufftResult status, const char* what) {
    if (status != CUFFT_SUCCESS) throw std::runtime_error(std::string("cuFFT: ") + what + " failed (" + std::to_string(status) + ")");
}

}  // namespace


GpuPme::GpuPme(const Box& box, std::array<int, 3> grid, int order, double beta, double epsilon_r,
               const GpuDevice& device, int threads)
    : dev_(std::make_unique<Device>()), threads_(std::max(1, threads)) {
    if (order < 4 || order > kPmeMaxOrder) throw std::invalid_argument("PME order must be 4, 5 or 6");
    for (int d = 0; d < 3; ++d)
        if (grid[d] < 2 * order) throw std::invalid_argument("PME grid dimension below 2 x order");
    Device& d = *dev_;
    check(cudaSetDevice(device.id), "cudaSetDevice");
    check(cudaStreamCreateWithFlags(&d.stream, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaEventCreateWithFlags(&d.forces_ready, cudaEventDisableTiming), "cudaEventCreate");
    d.geometry = {{grid[0], grid[1], grid[2]}, grid[2] / 2 + 1,
                  {static_cast<float>(box.lengths[0]), static_cast<float>(box.lengths[1]), static_cast<float>(box.lengths[2])},
                  order};
    d.beta = static_cast<float>(beta);
    d.volume = static_cast<float>(box.volume());
    d.prefactor = static_cast<float>(units::kCoulomb / epsilon_r);
    for (int a = 0; a < 3; ++a) {
        const std::vector<double> moduli = bspline_moduli(grid[a], order);
        const std::vector<float> m(moduli.begin(), moduli.end());
        d.bmod[a].upload(m.data(), m.size());
    }
    const std::size_t nreal = static_cast<std::size_t>(grid[0]) * grid[1] * grid[2];
    d.real.reserve(nreal);
    d.complex.reserve(static_cast<std::size_t>(grid[0]) * grid[1] * d.geometry.nzc);
    d.energy.reserve(1);
    d.h_energy.reserve(1);
    check_fft(cufftPlan3d(&d.forward, grid[0], grid[1], grid[2], CUFFT_R2C), "plan r2c");
    check_fft(cufftPlan3d(&d.backward, grid[0], grid[1], grid[2], CUFFT_C2R), "plan c2r");
    d.plans = true;
    check_fft(cufftSetStream(d.forward, d.stream), "set stream");
    check_fft(cufftSetStream(d.backward, d.stream), "set stream");
}

GpuPme::~GpuPme() {
    if (dev_ && dev_->stream) cudaStreamSynchronize(dev_->stream);
}

void GpuPme::reserve(std::size_t n, bool staged) {
    Device& d = *dev_;
    n_ = n;
    const int p = d.geometry.order;
    d.th.reserve(n * 3 * p);
    d.dth.reserve(n * 3 * p);
    d.base.reserve(n * 3);
    d.f.reserve(n);
    if (!staged) return;  // positions and forces stay on the device
    d.xq.reserve(n);
    d.h_xq.reserve(n);
    d.h_f.reserve(n);
}

void GpuPme::launch(std::size_t n, const float* x, const float* y, const float* z, const double* q) {
    Device& d = *dev_;
    d.timers.collect(kernel_seconds_);
    reserve(n, /*staged=*/true);
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (std::size_t i = 0; i < n; ++i) d.h_xq.p[i] = make_float4(x[i], y[i], z[i], static_cast<float>(q[i]));
    d.timers.begin(kPmeCopyUp, d.stream);
    check(cudaMemcpyAsync(d.xq.p, d.h_xq.p, n * sizeof(float4), cudaMemcpyHostToDevice, d.stream), "copy x up");
    d.timers.end(kPmeCopyUp, d.stream);
    enqueue_mesh(d.xq.p, d.prefactor);
    d.timers.begin(kPmeCopyDown, d.stream);
    check(cudaMemcpyAsync(d.h_f.p, d.f.p, n * sizeof(float3), cudaMemcpyDeviceToHost, d.stream), "copy f down");
    check(cudaMemcpyAsync(d.h_energy.p, d.energy.p, sizeof(double), cudaMemcpyDeviceToHost, d.stream), "copy energy");
    d.timers.end(kPmeCopyDown, d.stream);
}

void GpuPme::launch_resident(GpuNonbonded& nb, bool energy) {
    Device& d = *dev_;
    d.timers.collect(kernel_seconds_);
    reserve(static_cast<std::size_t>(nb.num_slots()), /*staged=*/false);
    // The nonbonded task's positions of this step, in its slots; their charges are
    // scaled by sqrt(kCoulomb / epsilon_r), so the mesh needs no prefactor of its own.
    check(cudaStreamWaitEvent(d.stream, nb.device().x_ready, 0), "cudaStreamWaitEvent");
    enqueue_mesh(nb.device().xq.p, 1.0f);
    check(cudaEventRecord(d.forces_ready, d.stream), "cudaEventRecord");
    d.timers.begin(kPmeCopyDown, d.stream);
    if (energy)
        check(cudaMemcpyAsync(d.h_energy.p, d.energy.p, sizeof(double), cudaMemcpyDeviceToHost, d.stream), "copy energy");
    d.timers.end(kPmeCopyDown, d.stream);
    energy_ = energy;
}

double GpuPme::finish_energy() {
    Device& d = *dev_;
    if (!energy_) return 0.0;  // the forces stay on the device; no energy asked for
    const auto t0 = std::chrono::steady_clock::now();
    check(cudaEventSynchronize(d.timers.stop(kPmeCopyDown)), "waiting for the PME energy");
    cpu_wait_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return d.h_energy.p[0];
}

void GpuPme::enqueue_mesh(const void* positions, float prefactor) {
    Device& d = *dev_;
    const gpu::PmeAtoms atoms{static_cast<const float4*>(positions), static_cast<int>(n_), d.th.p, d.dth.p, d.base.p};
    const std::size_t nreal = static_cast<std::size_t>(d.geometry.n[0]) * d.geometry.n[1] * d.geometry.n[2];
    d.timers.begin(kSpread, d.stream);
    check(cudaMemsetAsync(d.real.p, 0, nreal * sizeof(float), d.stream), "zero grid");
    check(gpu::launch_pme_spread(d.geometry, atoms, d.real.p, d.stream), "PME spread");
    d.timers.end(kSpread, d.stream);
    d.timers.begin(kFft, d.stream);
    check_fft(cufftExecR2C(d.forward, d.real.p, d.complex.p), "r2c");
    d.timers.end(kFft, d.stream);
    d.timers.begin(kSolve, d.stream);
    check(cudaMemsetAsync(d.energy.p, 0, sizeof(double), d.stream), "zero energy");
    const gpu::PmeSolveArgs solve{d.complex.p, {d.bmod[0].p, d.bmod[1].p, d.bmod[2].p}, d.beta, d.volume, prefactor,
                                  d.energy.p};
    check(gpu::launch_pme_solve(d.geometry, solve, d.stream), "PME solve");
    d.timers.end(kSolve, d.stream);
    d.timers.begin(kGather, d.stream);
    check_fft(cufftExecC2R(d.backward, d.complex.p, d.real.p), "c2r");
    check(gpu::launch_pme_gather(d.geometry, atoms, d.real.p, d.f.p, d.stream), "PME gather");
    d.timers.end(kGather, d.stream);
}

double GpuPme::finish(float* fx, float* fy, float* fz) {
    Device& d = *dev_;
    const auto t0 = std::chrono::steady_clock::now();
    check(cudaEventSynchronize(d.timers.stop(kPmeCopyDown)), "waiting for the PME forces");
    cpu_wait_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (std::size_t i = 0; i < n_; ++i) {
        fx[i] += d.h_f.p[i].x;
        fy[i] += d.h_f.p[i].y;
        fz[i] += d.h_f.p[i].z;
    }
    d.timers.collect(kernel_seconds_);
    return d.h_energy.p[0];
}

void GpuPme::reset_times() {
    kernel_seconds_.clear();
    cpu_wait_seconds_ = 0.0;
}

}  // namespace mdcore
