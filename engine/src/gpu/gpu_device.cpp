#include "gpu/gpu_device.h"

#ifdef MDT_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace mdcore {

#ifdef MDT_HAVE_CUDA

bool cuda_compiled() { return true; }

std::variant<GpuDevice, std::string> find_gpu(int id) {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        (void)cudaGetLastError();  // later CUDA calls start clean
        return std::string("no usable GPU: ") + cudaGetErrorString(status) + " (cudaGetDeviceCount)";
    }
    if (count == 0) return std::string("no usable GPU: the CUDA runtime finds no device");
    if (id < 0 || id >= count)
        return "--gpu-id " + std::to_string(id) + ": there are " + std::to_string(count) + " GPU(s), ids 0.." +
               std::to_string(count - 1);
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, id) != cudaSuccess) {
        (void)cudaGetLastError();
        return "no usable GPU: cannot read the properties of device " + std::to_string(id);
    }
    GpuDevice d;
    d.id = id;
    d.name = prop.name;
    d.memory_bytes = static_cast<long>(prop.totalGlobalMem);
    d.compute_capability = std::to_string(prop.major) + "." + std::to_string(prop.minor);
    d.multiprocessors = prop.multiProcessorCount;
    return d;
}

#else

bool cuda_compiled() { return false; }

std::variant<GpuDevice, std::string> find_gpu(int /*id*/) {
    return std::string("no usable GPU: this mdcore was built without CUDA (configure with nvcc present, MDT_CUDA=auto|on)");
}

#endif

}  // namespace mdcore
