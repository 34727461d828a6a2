#include "util/thread_balance.h"

#include <algorithm>
#include <cmath>

namespace mdcore {

void rebalance_shares(std::vector<double>& shares, const std::vector<double>& work, const std::vector<double>& seconds) {
    const std::size_t n = shares.size();
    if (n < 2 || work.size() != n || seconds.size() != n) return;
    double total_rate = 0.0;
    for (std::size_t t = 0; t < n; ++t) {
        if (!(work[t] > 0.0) || !(seconds[t] > 0.0)) return;
        total_rate += work[t] / seconds[t];
    }
    const double floor = 0.25 / static_cast<double>(n);
    double sum = 0.0;
    for (std::size_t t = 0; t < n; ++t) {
        shares[t] = std::max(floor, 0.5 * shares[t] + 0.5 * (work[t] / seconds[t]) / total_rate);
        sum += shares[t];
    }
    for (double& s : shares) s /= sum;
}

}  // namespace mdcore

namespace mdcore {

void ThreadShares::reset(int threads, bool adapt) {
    const int n = std::max(threads, 1);
    shares_.assign(n, 1.0 / n);
    work_.assign(n, 0.0);
    seconds_.assign(n, 0.0);
    adapt_ = adapt;
}

std::size_t ThreadShares::boundary(int t, int team, std::size_t n, std::size_t granule) const {
    if (t <= 0) return 0;
    if (t >= team) return n;
    granule = std::max<std::size_t>(granule, 1);
    const std::size_t units = (n + granule - 1) / granule;
    if (!adapt_ || team != threads()) return std::min(n, units * t / team * granule);
    double upto = 0.0;
    for (int u = 0; u < t; ++u) upto += shares_[u];
    return std::min(n, static_cast<std::size_t>(std::llround(static_cast<double>(units) * upto)) * granule);
}

std::pair<std::size_t, std::size_t> ThreadShares::range(int t, int team, std::size_t n, std::size_t granule) const {
    return {boundary(t, team, n, granule), boundary(t + 1, team, n, granule)};
}

}  // namespace mdcore
