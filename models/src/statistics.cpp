#include "mdtune/models/statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

namespace mdtune::models::stats {
namespace {

// Null distribution of U for sizes (m, n), as probabilities, by the recurrence on
// the largest observation: it is from the first sample with probability
// m/(m+n) and then beats all n of the second (U gains n).
std::vector<double> exact_pmf(int m, int n) {
    std::vector<std::vector<double>> prev(static_cast<std::size_t>(n) + 1, std::vector<double>{1.0});  // m = 0
    for (int i = 1; i <= m; ++i) {
        std::vector<std::vector<double>> cur(static_cast<std::size_t>(n) + 1);
        cur[0] = {1.0};
        for (int j = 1; j <= n; ++j) {
            std::vector<double> p(static_cast<std::size_t>(i) * j + 1, 0.0);
            const double wx = static_cast<double>(i) / (i + j), wy = static_cast<double>(j) / (i + j);
            const auto& from_x = prev[j];  // (i-1, j), shifted by j
            for (std::size_t u = 0; u < from_x.size(); ++u) p[u + j] += wx * from_x[u];
            const auto& from_y = cur[j - 1];  // (i, j-1)
            for (std::size_t u = 0; u < from_y.size(); ++u) p[u] += wy * from_y[u];
            cur[j] = std::move(p);
        }
        prev = std::move(cur);
    }
    return prev[n];
}

}  // namespace

double mann_whitney_exact_cdf(int n1, int n2, double u) {
    if (n1 <= 0 || n2 <= 0) return 1.0;
    if (u < 0) return 0.0;
    const std::vector<double> pmf = exact_pmf(n1, n2);
    const auto top = std::min<std::size_t>(pmf.size() - 1, static_cast<std::size_t>(std::floor(u + 1e-9)));
    double c = 0.0;
    for (std::size_t k = 0; k <= top; ++k) c += pmf[k];
    return std::min(1.0, c);
}

MannWhitney mann_whitney_u(std::span<const double> a, std::span<const double> b) {
    MannWhitney r;
    const std::size_t n1 = a.size(), n2 = b.size();
    if (n1 == 0 || n2 == 0) return r;
    const std::size_t n = n1 + n2;

    // Mid-ranks over the pooled sample; tie groups feed the variance correction.
    std::vector<std::pair<double, bool>> pooled;  // (value, from a)
    pooled.reserve(n);
    for (double x : a) pooled.emplace_back(x, true);
    for (double x : b) pooled.emplace_back(x, false);
    std::sort(pooled.begin(), pooled.end(), [](const auto& l, const auto& r) { return l.first < r.first; });
    double rank_sum_a = 0.0, tie_term = 0.0;
    for (std::size_t i = 0; i < n;) {
        std::size_t j = i;
        while (j < n && pooled[j].first == pooled[i].first) ++j;
        const double t = static_cast<double>(j - i);
        const double mid_rank = 0.5 * static_cast<double>(i + 1 + j);  // ranks i+1 .. j
        for (std::size_t k = i; k < j; ++k)
            if (pooled[k].second) rank_sum_a += mid_rank;
        if (t > 1) {
            r.ties = true;
            tie_term += t * t * t - t;
        }
        i = j;
    }
    const double m1 = static_cast<double>(n1), m2 = static_cast<double>(n2);
    r.u = rank_sum_a - m1 * (m1 + 1) / 2;
    const double mu = m1 * m2 / 2;

    if (!r.ties && static_cast<long>(n1 * n2) <= kMannWhitneyExactMaxProduct) {
        r.exact = true;
        const std::vector<double> pmf = exact_pmf(static_cast<int>(n1), static_cast<int>(n2));
        // Symmetric distribution: the tail beyond |U - mu| on either side.
        const double lo = std::min(r.u, m1 * m2 - r.u);
        double tail = 0.0;
        for (std::size_t k = 0; k < pmf.size() && static_cast<double>(k) <= lo + 1e-9; ++k) tail += pmf[k];
        r.p_value = std::min(1.0, 2.0 * tail);
        return r;
    }
    const double nn = static_cast<double>(n);
    const double var = m1 * m2 / 12.0 * ((nn + 1) - tie_term / (nn * (nn - 1)));
    if (!(var > 0)) {  // every value tied: no evidence of a difference
        r.p_value = 1.0;
        return r;
    }
    const double z = std::max(0.0, std::abs(r.u - mu) - 0.5) / std::sqrt(var);
    r.p_value = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
    return r;
}

// ---- order statistics, normal quantile, Holm -----------------------------------

double normal_two_sided_quantile(double alpha) {
    if (!(alpha > 0 && alpha < 1)) throw std::invalid_argument("alpha must be in (0, 1)");
    double lo = 0, hi = 40;  // erfc(z / sqrt 2) falls monotonically from 1
    for (int i = 0; i < 200; ++i) {
        const double mid = 0.5 * (lo + hi);
        (std::erfc(mid / std::sqrt(2.0)) > alpha ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
}

double quantile(std::vector<double> v, double q) {
    if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
    std::sort(v.begin(), v.end());
    const double pos = q * static_cast<double>(v.size() - 1);
    const auto i = static_cast<std::size_t>(std::floor(pos));
    if (i + 1 >= v.size()) return v.back();
    return v[i] + (pos - static_cast<double>(i)) * (v[i + 1] - v[i]);
}

double median(std::span<const double> values) { return quantile({values.begin(), values.end()}, 0.5); }

double relative_spread(std::span<const double> values) {
    if (values.size() < 2) return 0.0;
    const std::vector<double> v(values.begin(), values.end());
    const double m = quantile(v, 0.5);
    if (!(m > 0)) return std::numeric_limits<double>::infinity();
    return (quantile(v, 0.75) - quantile(v, 0.25)) / m;
}

double mann_whitney_min_p(std::size_t n1, std::size_t n2) {
    double log_choose = std::lgamma(static_cast<double>(n1 + n2) + 1) - std::lgamma(static_cast<double>(n1) + 1) -
                        std::lgamma(static_cast<double>(n2) + 1);
    return std::min(1.0, 2.0 * std::exp(-log_choose));
}

std::vector<double> holm_adjust(std::span<const double> p_values) {
    std::vector<std::size_t> order(p_values.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p_values[a] < p_values[b]; });
    const std::size_t m = order.size();
    std::vector<double> adjusted(m);
    double running = 0;
    for (std::size_t i = 0; i < m; ++i) {
        running = std::max(running, std::min(1.0, static_cast<double>(m - i) * p_values[order[i]]));
        adjusted[order[i]] = running;
    }
    return adjusted;
}

}  // namespace mdtune::models::stats
