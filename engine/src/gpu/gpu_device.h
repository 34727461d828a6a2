#pragma once
// Which CUDA device a run's GPU tasks use, or why there is none. Host code only:
// compiled by the C++ compiler with or without CUDA (MDT_HAVE_CUDA).
#include <string>
#include <variant>

namespace mdcore {

struct GpuDevice {
    int id = 0;
    std::string name;
    long memory_bytes = 0;
    std::string compute_capability;  // "9.0"
    int multiprocessors = 0;
};

// Whether this build has the CUDA kernels.
bool cuda_compiled();

// Device `id`, or the one line that says why no GPU task can run: a build without
// CUDA, no driver or no device (cudaGetDeviceCount fails or finds none), or an id
// beyond the devices present. Never throws; the CUDA error state is left clean.
std::variant<GpuDevice, std::string> find_gpu(int id);

}  // namespace mdcore
