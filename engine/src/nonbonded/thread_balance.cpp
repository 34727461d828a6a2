#include "nonbonded/thread_balance.h"

#include <algorithm>

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
