#include "timing/thread_waits.h"

#include <omp.h>

#include <algorithm>

namespace mdcore {

void ThreadWaits::reset(int threads) { slots_.assign(static_cast<std::size_t>(std::max(threads, 1)), Slot{}); }

void ThreadWaits::barrier(int t) {
    if (omp_get_num_threads() == 1) return;  // nobody to wait for
    if (!enabled_ || t < 0 || t >= static_cast<int>(slots_.size())) {
#pragma omp barrier
        return;
    }
    const auto arrived = std::chrono::steady_clock::now();
#pragma omp barrier
    slots_[static_cast<std::size_t>(t)].seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - arrived).count();
}

std::vector<double> ThreadWaits::seconds() const {
    std::vector<double> out;
    out.reserve(slots_.size());
    for (const Slot& s : slots_) out.push_back(s.seconds);
    return out;
}

void timed_barrier(ThreadWaits* waits, int thread) {
    if (waits) {
        waits->barrier(thread);
    } else if (omp_get_num_threads() > 1) {
#pragma omp barrier
    }
}

void timed_region_end(ThreadWaits* waits, int thread) {
    if (waits) waits->barrier(thread);
}

}  // namespace mdcore
