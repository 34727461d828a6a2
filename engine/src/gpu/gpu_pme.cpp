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
#include "gpu/pme_gpu.cuh"
#include "mdcore/units.h"
#include "pme/bspline.h"

namespace mdcore {
namespace {

using gpu::check;

void check_fft(cufftResult status, const char* what) {
    if (status != CUFFT_SUCCESS) throw std::runtime_error(std::string("cuFFT: ") + what + " failed (" + std::to_string(status) + ")");
}

enum Stage { kCopyUp, kSpread, kFft, kSolve, kGather, kCopyDown, kNumStages };
constexpr const char* kStageNames[kNumStages] = {"pme_copy_up", "pme_spread", "pme_fft_r2c", "pme_solve", "pme_gather_c2r",
                                                 "pme_copy_f_down"};

}  // namespace

struct GpuPme::Device {
    cudaStream_t stream = nullptr;
    cufftHandle forward = 0, backward = 0;
    bool plans = false;
    gpu::StageTimers<kNumStages> timers{kStageNames};
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
        if (stream) cudaStreamDestroy(stream);
    }
};

GpuPme::GpuPme(const Box& box, std::array<int, 3> grid, int order, double beta, double epsilon_r,
               const GpuDevice& device, int threads)
    : dev_(std::make_unique<Device>()), threads_(std::max(1, threads)) {
    if (order < 4 || order > kPmeMaxOrder) throw std::invalid_argument("PME order must be 4, 5 or 6");
    for (int d = 0; d < 3; ++d)
        if (grid[d] < 2 * order) throw std::invalid_argument("PME grid dimension below 2 x order");
    Device& d = *dev_;
    check(cudaSetDevice(device.id), "cudaSetDevice");
    check(cudaStreamCreateWithFlags(&d.stream, cudaStreamNonBlocking), "cudaStreamCreate");
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

void GpuPme::launch(std::size_t n, const float* x, const float* y, const float* z, const double* q) {
    Device& d = *dev_;
    d.timers.collect(kernel_seconds_);
    n_ = n;
    const int p = d.geometry.order;
    d.xq.reserve(n);
    d.h_xq.reserve(n);
    d.th.reserve(n * 3 * p);
    d.dth.reserve(n * 3 * p);
    d.base.reserve(n * 3);
    d.f.reserve(n);
    d.h_f.reserve(n);
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (std::size_t i = 0; i < n; ++i) d.h_xq.p[i] = make_float4(x[i], y[i], z[i], static_cast<float>(q[i]));
    const gpu::PmeAtoms atoms{d.xq.p, static_cast<int>(n), d.th.p, d.dth.p, d.base.p};
    const std::size_t nreal = static_cast<std::size_t>(d.geometry.n[0]) * d.geometry.n[1] * d.geometry.n[2];
    d.timers.begin(kCopyUp, d.stream);
    check(cudaMemcpyAsync(d.xq.p, d.h_xq.p, n * sizeof(float4), cudaMemcpyHostToDevice, d.stream), "copy x up");
    d.timers.end(kCopyUp, d.stream);
    d.timers.begin(kSpread, d.stream);
    check(cudaMemsetAsync(d.real.p, 0, nreal * sizeof(float), d.stream), "zero grid");
    check(gpu::launch_pme_spread(d.geometry, atoms, d.real.p, d.stream), "PME spread");
    d.timers.end(kSpread, d.stream);
    d.timers.begin(kFft, d.stream);
    check_fft(cufftExecR2C(d.forward, d.real.p, d.complex.p), "r2c");
    d.timers.end(kFft, d.stream);
    d.timers.begin(kSolve, d.stream);
    check(cudaMemsetAsync(d.energy.p, 0, sizeof(double), d.stream), "zero energy");
    const gpu::PmeSolveArgs solve{d.complex.p, {d.bmod[0].p, d.bmod[1].p, d.bmod[2].p}, d.beta, d.volume, d.prefactor,
                                  d.energy.p};
    check(gpu::launch_pme_solve(d.geometry, solve, d.stream), "PME solve");
    d.timers.end(kSolve, d.stream);
    d.timers.begin(kGather, d.stream);
    check_fft(cufftExecC2R(d.backward, d.complex.p, d.real.p), "c2r");
    check(gpu::launch_pme_gather(d.geometry, atoms, d.real.p, d.f.p, d.stream), "PME gather");
    d.timers.end(kGather, d.stream);
    d.timers.begin(kCopyDown, d.stream);
    check(cudaMemcpyAsync(d.h_f.p, d.f.p, n * sizeof(float3), cudaMemcpyDeviceToHost, d.stream), "copy f down");
    check(cudaMemcpyAsync(d.h_energy.p, d.energy.p, sizeof(double), cudaMemcpyDeviceToHost, d.stream), "copy energy");
    d.timers.end(kCopyDown, d.stream);
}

double GpuPme::finish(float* fx, float* fy, float* fz) {
    Device& d = *dev_;
    const auto t0 = std::chrono::steady_clock::now();
    check(cudaEventSynchronize(d.timers.stop(kCopyDown)), "waiting for the PME forces");
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
