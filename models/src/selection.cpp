// `auto`: cross-validated regret on unseen systems and machines decides.
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

KindSummary summarise(const Selection& s, ModelKind kind, std::optional<std::vector<Grouping>> only) {
    KindSummary k;
    std::vector<double> regrets;
    double ape_sum = 0, cover_sum = 0;
    std::size_t n = 0;
    for (const CvResult& cv : s.cv) {
        if (cv.kind != kind) continue;
        if (only && std::find(only->begin(), only->end(), cv.grouping) == only->end()) continue;
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

ModelKind choose_kind(const Selection& sel, const std::vector<ModelKind>& kinds, std::string* reason) {
    // What `predict` is asked: a system (or machine) not in the training data,
    // with tunable values that were (candidates outside them are marked
    // extrapolated and ranked last). So the size and hardware groupings decide.
    // Pooled with them, the tunable grouping would outvote them by its group
    // count (one per tunable value, each scored on every system); it breaks ties
    // instead, and decides alone only when it is the one grouping there is.
    std::vector<Grouping> primary, present;
    for (const CvResult& cv : sel.cv)
        if (std::find(present.begin(), present.end(), cv.grouping) == present.end()) present.push_back(cv.grouping);
    for (Grouping g : present)
        if (g != Grouping::ByTunable) primary.push_back(g);
    const bool tunable = std::find(present.begin(), present.end(), Grouping::ByTunable) != present.end();
    if (primary.empty() && tunable) primary.push_back(Grouping::ByTunable);
    if (primary.empty()) {
        if (reason) *reason = "one system size and one machine: nothing to cross-validate on, using the cost model";
        return ModelKind::Cost;
    }
    const std::vector<Grouping> tie_break{Grouping::ByTunable};
    // Lowest median regret; within 0.1 percentage point the lower worst regret,
    // then the tunable grouping's median regret, then the lower MAPE (regret ties
    // are common: several models find the best).
    auto close = [](double a, double b) { return std::abs(a - b) <= 1e-3; };
    std::optional<ModelKind> best;
    KindSummary bs, bt;
    for (ModelKind k : kinds) {
        const KindSummary s = summarise(sel, k, primary);
        if (s.systems == 0 && s.mape == 0) continue;
        const KindSummary t = tunable ? summarise(sel, k, tie_break) : KindSummary{};
        const bool better =
            !best || s.regret_median < bs.regret_median - 1e-3 ||
            (close(s.regret_median, bs.regret_median) &&
             (s.regret_max < bs.regret_max - 1e-3 ||
              (close(s.regret_max, bs.regret_max) &&
               (t.regret_median < bt.regret_median - 1e-3 ||
                (close(t.regret_median, bt.regret_median) && s.mape < bs.mape)))));
        if (better) {
            best = k;
            bs = s;
            bt = t;
        }
    }
    if (reason) {
        std::string names;
        for (Grouping g : primary) names += (names.empty() ? "" : " and ") + std::string(to_string(g));
        char line[320];
        std::snprintf(line, sizeof line,
                      "lowest cross-validated median regret holding out %s (%.2f %%, worst %.2f %%, MAPE %.1f %%)",
                      names.c_str(), 100 * bs.regret_median, 100 * bs.regret_max, 100 * bs.mape);
        *reason = line;
    }
    return best.value_or(ModelKind::Cost);
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
    sel.chosen = choose_kind(sel, kinds, &sel.reason);
    return sel;
}

}  // namespace mdtune::models
