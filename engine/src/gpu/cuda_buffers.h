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

// Named stages timed by CUDA events on one stream. Each stage alternates between
// two event pairs, so a step may start the stage again while the last sample is
// still running; a sample is added once its stop event has completed, and one
// that would be overwritten is waited for first, so no sample is lost.
template <int N>
class StageTimers {
public:
    explicit StageTimers(const char* const (&names)[N]) : names_(names) {
        for (int s = 0; s < N; ++s)
            for (int k = 0; k < kSlots; ++k) {
                check(cudaEventCreate(&start_[s][k]), "cudaEventCreate");
                check(cudaEventCreate(&stop_[s][k]), "cudaEventCreate");
            }
    }
    StageTimers(const StageTimers&) = delete;
    StageTimers& operator=(const StageTimers&) = delete;
    ~StageTimers() {
        for (int s = 0; s < N; ++s)
            for (int k = 0; k < kSlots; ++k) {
                cudaEventDestroy(start_[s][k]);
                cudaEventDestroy(stop_[s][k]);
            }
    }
    void begin(int s, cudaStream_t stream) {
        int& k = current_[s];
        k = (k + 1) % kSlots;
        if (pending_[s][k]) {  // two samples behind: wait, then keep it
            check(cudaEventSynchronize(stop_[s][k]), "cudaEventSynchronize");
            add(s, k);
        }
        check(cudaEventRecord(start_[s][k], stream), "cudaEventRecord");
    }
    void end(int s, cudaStream_t stream) {
        check(cudaEventRecord(stop_[s][current_[s]], stream), "cudaEventRecord");
        pending_[s][current_[s]] = true;
    }
    // The stop event of the stage's latest sample.
    cudaEvent_t stop(int s) const { return stop_[s][current_[s]]; }
    // Adds the completed samples to `seconds`.
    void collect(std::map<std::string, double>& seconds) {
        for (int s = 0; s < N; ++s)
            for (int k = 0; k < kSlots; ++k) {
                if (!pending_[s][k]) continue;
                if (cudaEventQuery(stop_[s][k]) != cudaSuccess) {
                    (void)cudaGetLastError();  // not ready is not an error
                    continue;
                }
                add(s, k);
            }
        for (int s = 0; s < N; ++s)
            if (done_[s] > 0.0) {
                seconds[names_[s]] += done_[s];
                done_[s] = 0.0;
            }
    }

private:
    static constexpr int kSlots = 2;
    void add(int s, int k) {
        float ms = 0.0f;
        check(cudaEventElapsedTime(&ms, start_[s][k], stop_[s][k]), "cudaEventElapsedTime");
        done_[s] += 1e-3 * ms;
        pending_[s][k] = false;
    }
    const char* const (&names_)[N];
    cudaEvent_t start_[N][kSlots] = {}, stop_[N][kSlots] = {};
    bool pending_[N][kSlots] = {};
    int current_[N] = {};
    double done_[N] = {};
};

}  // namespace mdcore::gpu
