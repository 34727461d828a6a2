#include "mdtune/bench/noise_floor.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "mdtune/bench/ingest.h"
#include "mdtune/models/statistics.h"

namespace mdtune::bench {

double drift_of(std::span<const double> label_medians) {
    if (label_medians.size() < kMinDriftLabels) return 0.0;
    std::vector<double> steps;
    for (std::size_t i = 1; i < label_medians.size(); ++i) {
        if (!(label_medians[i] > 0 && label_medians[i - 1] > 0)) return 0.0;
        steps.push_back(std::abs(std::log(label_medians[i] / label_medians[i - 1])));
    }
    return std::expm1(models::stats::quantile(steps, kDriftQuantile));
}

NoiseFloors historic_drift(const std::vector<db::BenchRunRow>& history) {
    std::vector<db::BenchRunRow> runs = history;
    std::sort(runs.begin(), runs.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
    // Labels in the order they were first measured, each with its runs.
    std::vector<std::string> order;
    std::map<std::string, std::vector<db::BenchRunRow>> by_label;
    for (db::BenchRunRow& r : runs) {
        if (!by_label.count(r.label)) order.push_back(r.label);
        by_label[r.label].push_back(std::move(r));
    }
    std::map<std::string, std::vector<double>> label_medians;  // benchmark -> one per label, oldest first
    for (const std::string& label : order)
        for (const auto& [name, medians] : run_medians_of(by_label[label]))
            label_medians[name].push_back(models::stats::median(medians));
    NoiseFloors floors;
    for (const auto& [name, medians] : label_medians) {
        const std::size_t n = std::min(medians.size(), kDriftLabels);
        const std::span<const double> recent(medians.data() + (medians.size() - n), n);
        if (n >= kMinDriftLabels) floors[name] = NoiseFloor{drift_of(recent), n};
    }
    return floors;
}

bool measured_interleaved(const std::vector<db::BenchRunRow>& a, const std::vector<db::BenchRunRow>& b) {
    if (a.empty() || b.empty()) return false;
    auto range = [](const std::vector<db::BenchRunRow>& v) {
        const auto [lo, hi] = std::minmax_element(v.begin(), v.end(), [](const auto& x, const auto& y) { return x.id < y.id; });
        return std::pair{lo->id, hi->id};
    };
    const auto [a_lo, a_hi] = range(a);
    const auto [b_lo, b_hi] = range(b);
    return a_lo < b_hi && b_lo < a_hi;
}

}  // namespace mdtune::bench
