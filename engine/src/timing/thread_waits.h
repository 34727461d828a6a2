#pragma once
// Per-thread barrier waits: how long each OpenMP thread sat at the barriers that
// end the step's threaded tasks (nonbonded, PME spread and gather, SETTLE +
// update) because another thread still had work. The sum over a run is the
// report's threads.wait; a spread between threads is load imbalance.
#include <chrono>
#include <vector>

namespace mdcore {

class ThreadWaits {
public:
    // Clears the sums for a team of up to `threads` threads.
    void reset(int threads);
    void set_enabled(bool on) { enabled_ = on; }
    // Called by every thread t of the team where a `#pragma omp barrier` would be:
    // the barrier itself, timed from arrival to release when enabled.
    void barrier(int t);
    std::vector<double> seconds() const;

private:
    struct alignas(64) Slot {
        double seconds = 0;
    };
    std::vector<Slot> slots_;
    bool enabled_ = false;
};

// A barrier of the enclosing team, timed into `waits` when it is not null.
void timed_barrier(ThreadWaits* waits, int thread);
// Just before a parallel region's own closing barrier: with `waits`, a timed
// barrier (the closing one then costs nothing); without, nothing extra.
void timed_region_end(ThreadWaits* waits, int thread);

}  // namespace mdcore
