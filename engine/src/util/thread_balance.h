#pragma once
// Shares of a threaded task's work per OpenMP thread, adapted from the last
// call's timings. The threads of one run do not always run at the same speed: on
// this VM one vCPU was up to 22 % slower than the other for minutes at a time
// (more in memory-bound tasks), and an even split then left the faster thread
// waiting at the barrier (0.5-2.6 ms per step on water boxes of 24,000-96,000
// atoms).
#include <cstddef>
#include <utility>
#include <vector>

namespace mdcore {

// Updates `shares` (summing to 1) from the work each thread did and the seconds
// it took: each thread's rate (work per second) proposes its share, and half of
// the difference is taken per call, so one preempted call moves the split only a
// little. When a thread had no work or no time the shares stay. Before the
// shares are normalised each is raised to at least a quarter of an even share,
// so no thread is starved of work. Allocates nothing.
void rebalance_shares(std::vector<double>& shares, const std::vector<double>& work, const std::vector<double>& seconds);

// One task's shares and the timings of its last call. Without adapting, the
// split is the even one (n t / nt), so results that depend on the split (sums
// over a thread's items) are reproducible run to run.
class ThreadShares {
public:
    ThreadShares() { reset(1, false); }
    void reset(int threads, bool adapt);
    int threads() const { return static_cast<int>(shares_.size()); }
    bool adapting() const { return adapt_; }
    const std::vector<double>& shares() const { return shares_; }
    // Thread t's items [begin, end) of n in a team of `team` threads; inner
    // boundaries on multiples of `granule`. A team of another size than the
    // shares' gets the even split.
    std::pair<std::size_t, std::size_t> range(int t, int team, std::size_t n, std::size_t granule = 1) const;
    // Thread t's work and seconds in this call (each thread its own slot; a
    // thread beyond the shares' count is not recorded).
    void record(int t, double work, double seconds) {
        if (t >= threads()) return;
        work_[t] = work;
        seconds_[t] = seconds;
    }
    // After the threads' region: moves the shares when adapting.
    void rebalance() {
        if (adapt_) rebalance_shares(shares_, work_, seconds_);
    }

private:
    std::size_t boundary(int t, int team, std::size_t n, std::size_t granule) const;
    std::vector<double> shares_, work_, seconds_;
    bool adapt_ = false;
};

}  // namespace mdcore
