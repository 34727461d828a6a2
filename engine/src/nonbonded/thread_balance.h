#pragma once
// Shares of the nonbonded work per OpenMP thread, adapted from the last call's
// timings. The threads of one run do not always run at the same speed: on this
// VM one vCPU was up to 22 % slower than the other for minutes at a time, and an
// even split then left the faster thread waiting at the barrier (0.5-2.6 ms per
// step on water boxes of 24,000-96,000 atoms).
#include <vector>

namespace mdcore {

// Updates `shares` (summing to 1) from the work each thread did (j-entries) and
// the seconds it took: each thread's rate (work per second) proposes its share,
// and half of the difference is taken per call, so one preempted call moves the
// split only a little. When a thread had no work or no time the shares stay.
// Before the shares are normalised each is raised to at least a quarter of an
// even share, so no thread is starved of work. Allocates nothing.
void rebalance_shares(std::vector<double>& shares, const std::vector<double>& work, const std::vector<double>& seconds);

}  // namespace mdcore
