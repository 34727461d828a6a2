#include "util/thread_count.h"

#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace mdcore {

int hardware_thread_count() {
    const unsigned n = std::thread::hardware_concurrency();
    return n > 0 ? static_cast<int>(n) : std::max(1, omp_get_num_procs());
}

int default_thread_count() {
    static const int threads = [] {
        const int requested = omp_get_max_threads();
        const int hardware = hardware_thread_count();
        if (requested <= hardware) return requested;
        const char* env = std::getenv("OMP_NUM_THREADS");
        std::fprintf(stderr,
                     "mdcore: OMP_NUM_THREADS=%s asks for %d threads, more than the %d hardware threads of this "
                     "machine; using %d\n",
                     env ? env : "(unset)", requested, hardware, hardware);
        omp_set_num_threads(hardware);
        return hardware;
    }();
    return threads;
}

}  // namespace mdcore
