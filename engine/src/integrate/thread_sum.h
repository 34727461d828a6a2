#pragma once
// sum_over_threads(): one OpenMP region, per-thread partials in a fixed-size
// stack buffer (padded against false sharing), summed in thread order; the
// threads' wait at the region's end goes to `waits` when given.
#include <omp.h>

#include <algorithm>

#include "timing/thread_waits.h"

namespace mdcore {

template <class Body>
double sum_over_threads(int num_threads, Body body, ThreadWaits* waits = nullptr) {
    constexpr int kMaxThreads = 256;
    constexpr int kStride = 8;  // one 64-byte line per thread
    alignas(64) double partial[kMaxThreads * kStride];
    const int requested = std::clamp(num_threads, 1, kMaxThreads);
    int used = 1;
#pragma omp parallel num_threads(requested)
    {
        const int t = omp_get_thread_num();
        const int nt = omp_get_num_threads();
        if (t == 0) used = nt;
        partial[t * kStride] = body(t, nt);
        if (waits) waits->barrier(t);
    }
    double sum = 0.0;
    for (int t = 0; t < used; ++t) sum += partial[t * kStride];
    return sum;
}

}  // namespace mdcore
