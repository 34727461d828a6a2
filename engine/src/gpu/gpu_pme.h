#pragma once
// PME on a CUDA device (--pme gpu): spread, cuFFT r2c, solve, c2r and gather on
// a stream of its own, so it runs concurrently with the nonbonded kernel. Per
// step x and q go up and forces come down through pinned buffers. Host header:
// no CUDA types; defined only in CUDA builds (gpu_pme.cpp).
#include <array>
#include <cstddef>
#include <map>
#include <memory>
#include <string>

#include "gpu/gpu_device.h"
#include "mdcore/system.h"

namespace mdcore {

class GpuNonbonded;

class GpuPme {
public:
    // Throws std::invalid_argument for an order outside 4..6 or a grid dimension below 2 x order.
    // The host's share (staging x and q, adding forces) runs on `threads` threads.
    GpuPme(const Box& box, std::array<int, 3> grid, int order, double beta, double epsilon_r, const GpuDevice& device,
           int threads);
    ~GpuPme();
    GpuPme(const GpuPme&) = delete;
    GpuPme& operator=(const GpuPme&) = delete;

    // Starts the mesh part for n atoms (any image; raw charges in e); returns at once.
    void launch(std::size_t n, const float* x, const float* y, const float* z, const double* q);
    // Waits, ADDS the mesh forces to fx/fy/fz and returns the reciprocal energy (kJ/mol).
    double finish(float* fx, float* fy, float* fz);
    // --update gpu: the mesh on the nonbonded task's device positions (its slots,
    // once they are this step's), forces left on the device in those slots for the
    // update; returns at once. finish_energy() waits on energy steps only.
    void launch_resident(GpuNonbonded& nb, bool energy);
    double finish_energy();

    // The device side, for the GPU update (gpu_pme_device.h; CUDA builds only).
    struct Device;
    Device& device() { return *dev_; }

    // CUDA-event seconds per stage ("pme_spread", "pme_fft", ...), and the CPU's waiting time.
    const std::map<std::string, double>& kernel_seconds() const { return kernel_seconds_; }
    double cpu_wait_seconds() const { return cpu_wait_seconds_; }
    void reset_times();

private:
    // Buffers for n atoms; staged: also the host copies of x, q and f (not with --update gpu).
    void reserve(std::size_t n, bool staged);
    void enqueue_mesh(const void* positions, float prefactor);  // spread .. gather on float4 positions
    std::unique_ptr<Device> dev_;
    std::size_t n_ = 0;
    bool energy_ = false;
    int threads_ = 1;
    std::map<std::string, double> kernel_seconds_;
    double cpu_wait_seconds_ = 0.0;
};

}  // namespace mdcore
