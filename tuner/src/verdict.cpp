// Verdicts: the best config, the ones indistinguishable from it, and whether it
// is distinguishable from the default (see verdict.h).
#include "mdtune/tuner/verdict.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "mdtune/tuner/rounds.h"

namespace mdtune::tuner {
namespace {

namespace stats = models::stats;

// The valid, not noisy observations of a system at its longest steps.
std::vector<const Observation*> finalists(const std::vector<Observation>& history, const SystemDescriptor& system,
                                          std::size_t& noisy) {
    const std::string sys = system.canonical();
    long steps = 0;
    for (const Observation& o : history)
        if (o.proposal.system.canonical() == sys && o.result.status == TrialStatus::Ok)
            steps = std::max(steps, o.proposal.measure.steps);
    std::vector<const Observation*> out;
    for (const Observation& o : history) {
        if (o.proposal.system.canonical() != sys || o.result.status != TrialStatus::Ok) continue;
        if (o.proposal.measure.steps != steps) continue;
        if (is_noisy(o.result)) {
            ++noisy;
            continue;
        }
        out.push_back(&o);
    }
    return out;
}

}  // namespace

std::vector<const Observation*> ranked_finalists(const std::vector<Observation>& history,
                                                 const SystemDescriptor& system, std::size_t* noisy) {
    std::size_t dropped = 0;
    std::vector<const Observation*> cands = finalists(history, system, dropped);
    if (noisy) *noisy = dropped;
    std::vector<const TrialResult*> results;
    for (const Observation* o : cands) results.push_back(&o->result);
    const auto score = rank_scores(results, all_have_ratios(results));
    // Best first; ties by canonical text, so the order never depends on the history's.
    std::sort(cands.begin(), cands.end(), [&score](const Observation* x, const Observation* y) {
        const double sx = score.at(&x->result), sy = score.at(&y->result);
        if (sx != sy) return sx < sy;
        return x->proposal.config.canonical() < y->proposal.config.canonical();
    });
    return cands;
}

namespace {

stats::Interval inverse(const stats::Interval& r) { return {1.0 / r.estimate, 1.0 / r.hi, 1.0 / r.lo}; }

}  // namespace

bool significantly_slower(const TrialResult& a, const TrialResult& b, double confidence) {
    const std::vector<double> ra = clean_ratios(a), rb = clean_ratios(b);
    if (ra.size() >= 2 && rb.size() >= 2) return stats::bootstrap_median_ratio(ra, rb, confidence).lo > 1.0;
    return a.ms_min > b.ms_max;
}

double rank_score(const TrialResult& r, bool by_ratio) {
    if (!by_ratio) return r.ms_median;
    return stats::median(clean_ratios(r));
}

std::unordered_map<const TrialResult*, double> rank_scores(const std::vector<const TrialResult*>& trials,
                                                           bool by_ratio) {
    std::unordered_map<const TrialResult*, double> scores;
    for (const TrialResult* t : trials) scores.emplace(t, rank_score(*t, by_ratio));
    return scores;
}

bool all_have_ratios(const std::vector<const TrialResult*>& trials) {
    return std::all_of(trials.begin(), trials.end(), [](const TrialResult* t) { return !clean_ratios(*t).empty(); });
}

std::optional<Verdict> judge(const std::vector<Observation>& history, const SystemDescriptor& system,
                             double confidence) {
    Verdict v;
    v.confidence = confidence;
    const std::vector<const Observation*> cands = ranked_finalists(history, system, &v.noisy);
    if (cands.empty()) return std::nullopt;
    v.best = *cands.front();
    for (std::size_t i = 1; i < cands.size(); ++i)
        if (!significantly_slower(cands[i]->result, v.best.result, confidence)) v.tied.push_back(*cands[i]);
    v.best_is_default = v.best.proposal.config.canonical().empty();
    const std::vector<double> ratios = clean_ratios(v.best.result);
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    v.ratio_to_default = ratios.empty() ? stats::Interval{nan, nan, nan} : stats::bootstrap_median(ratios, confidence);
    v.speedup = inverse(v.ratio_to_default);
    if (v.best_is_default) {
        v.indistinguishable_from_default = true;
    } else if (!ratios.empty()) {
        v.indistinguishable_from_default = ratios.size() < 2 || v.ratio_to_default.hi >= 1.0;
    } else {
        // No rounds: the default is a tie when it is among the indistinguishable ones,
        // and nothing can be claimed against a default that was not measured alike.
        const bool default_measured = std::any_of(cands.begin(), cands.end(), [](const Observation* o) {
            return o->proposal.config.canonical().empty();
        });
        v.indistinguishable_from_default =
            !default_measured || std::any_of(v.tied.begin(), v.tied.end(), [](const Observation& o) {
                return o.proposal.config.canonical().empty();
            });
    }
    return v;
}

}  // namespace mdtune::tuner
