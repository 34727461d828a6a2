// `auto`: cross-validated regret decides.
#include "mdtune/models/selection.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

namespace mdtune::models {

void require_enough_samples(const std::vector<Sample>& samples, const std::string& source) {
    if (samples.size() >= kMinTrials) return;
    throw ModelError("need at least " + std::to_string(kMinTrials) + " ok trials to fit a model, found " +
                     std::to_string(samples.size()) + " in " + source +
                     " (run `mdtune sweep SPACE.toml --db " + source + "` first)");
}

KindSummary summarise(const Selection& s, ModelKind kind) {
    KindSummary k;
    std::vector<double> regrets;
    double ape_sum = 0, cover_sum = 0;
    std::size_t n = 0;
    for (const CvResult& cv : s.cv) {
        if (cv.kind != kind) continue;
        ape_sum += cv.overall.mape * static_cast<double>(cv.overall.n);
        cover_sum += cv.overall.coverage * static_cast<double>(cv.overall.n);
        n += cv.overall.n;
        for (const auto& r : cv.overall.regrets) regrets.push_back(r.regret);
    }
    k.mape = n ? ape_sum / static_cast<double>(n) : 0.0;
    k.coverage = n ? cover_sum / static_cast<double>(n) : 0.0;
    k.regret_median = median_of(regrets);
    k.regret_max = regrets.empty() ? 0.0 : *std::max_element(regrets.begin(), regrets.end());
    k.systems = regrets.size();
    return k;
}

Selection select_model(const std::vector<Sample>& samples, std::optional<ModelKind> only) {
    Selection sel;
    std::set<std::string> buckets, machines;
    for (const Sample& s : samples) {
        buckets.insert(size_bucket(s.features.natoms));
        machines.insert(s.hardware_id);
    }
    std::vector<Grouping> groupings;
    if (buckets.size() >= 2) groupings.push_back(Grouping::BySize);
    if (machines.size() >= 2) groupings.push_back(Grouping::ByHardware);
    if (!leave_one_value_out(samples).empty()) groupings.push_back(Grouping::ByTunable);
    std::vector<ModelKind> kinds = only ? std::vector<ModelKind>{*only}
                                        : std::vector<ModelKind>(kModelKinds.begin(), kModelKinds.end());
    for (ModelKind k : kinds)
        for (Grouping g : groupings) sel.cv.push_back(cross_validate(k, samples, g));

    if (only) {
        sel.chosen = *only;
        sel.reason = "requested with --model " + std::string(to_string(*only));
        return sel;
    }
    if (groupings.empty()) {
        sel.chosen = ModelKind::Cost;
        sel.reason = "one system size and one machine: nothing to cross-validate on, using the cost model";
        return sel;
    }
    // Lowest median regret; within 0.1 percentage point, the lower worst regret,
    // then the lower MAPE (regret ties are common: several models find the best).
    std::optional<ModelKind> best;
    KindSummary bs;
    for (ModelKind k : kinds) {
        const KindSummary s = summarise(sel, k);
        if (s.systems == 0 && s.mape == 0) continue;
        const bool better = !best || s.regret_median < bs.regret_median - 1e-3 ||
                            (std::abs(s.regret_median - bs.regret_median) <= 1e-3 &&
                             (s.regret_max < bs.regret_max - 1e-3 ||
                              (std::abs(s.regret_max - bs.regret_max) <= 1e-3 && s.mape < bs.mape)));
        if (better) {
            best = k;
            bs = s;
        }
    }
    sel.chosen = best.value_or(ModelKind::Cost);
    char line[256];
    std::snprintf(line, sizeof line, "lowest cross-validated median regret (%.2f %%, worst %.2f %%, MAPE %.1f %%)",
                  100 * bs.regret_median, 100 * bs.regret_max, 100 * bs.mape);
    sel.reason = line;
    return sel;
}

}  // namespace mdtune::models
