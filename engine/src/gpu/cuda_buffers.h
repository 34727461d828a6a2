#pragma once
// Host-side helpers of the GPU tasks (C++ with the CUDA runtime API): errors as
// exceptions, device and page-locked buffers that grow on demand, and CUDA-event
// pairs timing the stages of a step.
#include <cuda_runtime.h>

#include <cstddef>
#include <map>
#include <stdexcept>
#include <string>

namespace mdcore::gpu {

inline void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess) throw std::runtime_error(std::string("CUDA: ") + what + ": " + cudaGetErrorString(status));
}

template <class T>
struct DeviceBuffer {
    T* p = nullptr;
    std::size_t capacity = 0;
    DeviceBuffer() = default;
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    void reserve(std::size_t n) {
        if (n <= capacity) return;
        cudaFree(p);
        p = nullptr;
        check(cudaMalloc(&p, n * sizeof(T)), "cudaMalloc");
        capacity = n;
    }
    void upload(const T* host, std::size_t n) {
        reserve(n);
        if (n) check(cudaMemcpy(p, host, n * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy up");
    }
    ~DeviceBuffer() { cudaFree(p); }
};

// Page-locked host memory, so copies run asynchronously to the CPU.
template <class T>
struct PinnedBuffer {
    T* p = nullptr;
    std::size_t capacity = 0;
    PinnedBuffer() = default;
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;
    void reserve(std::size_t n) {
        if (n <= capacity) return;
        cudaFreeHost(p);
        p = nullptr;
        check(cudaMallocHost(&p, n * sizeof(T)), "cudaMallocHost");
        capacity = n;
    }
    ~PinnedBuffer() { cudaFreeHost(p); }
};

// Named stages timed by CUDA events on one stream; a stage's time is added once
// its stop event has completed (collect() skips those still running).
template <int N>
class StageTimers {
public:
    explicit StageTimers(const char* const (&names)[N]) : names_(names) {
        for (int s = 0; s < N; ++s) {
            check(cudaEventCreate(&start_[s]), "cudaEventCreate");
            check(cudaEventCreate(&stop_[s]), "cudaEventCreate");
        }
    }
    StageTimers(const StageTimers&) = delete;
    StageTimers& operator=(const StageTimers&) = delete;
    ~StageTimers() {
        for (int s = 0; s < N; ++s) {
            cudaEventDestroy(start_[s]);
            cudaEventDestroy(stop_[s]);
        }
    }
    void begin(int s, cudaStream_t stream) { check(cudaEventRecord(start_[s], stream), "cudaEventRecord"); }
    void end(int s, cudaStream_t stream) {
        check(cudaEventRecord(stop_[s], stream), "cudaEventRecord");
        recorded_[s] = true;
    }
    cudaEvent_t stop(int s) const { return stop_[s]; }
    void collect(std::map<std::string, double>& seconds) {
        for (int s = 0; s < N; ++s) {
            if (!recorded_[s]) continue;
            if (cudaEventQuery(stop_[s]) != cudaSuccess) {
                (void)cudaGetLastError();  // not ready is not an error
                continue;
            }
            float ms = 0.0f;
            check(cudaEventElapsedTime(&ms, start_[s], stop_[s]), "cudaEventElapsedTime");
            seconds[names_[s]] += 1e-3 * ms;
            recorded_[s] = false;
        }
    }

private:
    const char* const (&names_)[N];
    cudaEvent_t start_[N] = {}, stop_[N] = {};
    bool recorded_[N] = {};
};

}  // namespace mdcore::gpu
