// Candidate enumeration, constraint filtering and ranking.
#include "mdtune/models/predictor.h"

#include <algorithm>
#include <stdexcept>

namespace mdtune::models {

std::vector<Config> CandidateGrid::configs(const SystemFeatures& sys, const HardwareFeatures& hw) const {
    if (!only.empty()) return only;
    std::vector<long> thread_counts = threads;
    if (thread_counts.empty()) {
        if (hw.cores <= 8) {
            for (long t = 1; t <= hw.cores; ++t) thread_counts.push_back(t);
        } else {
            for (long t = 1; t < hw.cores; t *= 2) thread_counts.push_back(t);
            thread_counts.push_back(hw.physical_cores);
            thread_counts.push_back(hw.cores);
            std::sort(thread_counts.begin(), thread_counts.end());
            thread_counts.erase(std::unique(thread_counts.begin(), thread_counts.end()), thread_counts.end());
        }
    }
    // Layouts: R ranks x cores/R threads (one rank keeps the thread counts above, keyed without ranks).
    std::vector<std::pair<long, long>> layouts;  // (ranks, threads); ranks 1: unset
    for (long t : thread_counts) layouts.emplace_back(1, t);
    std::vector<long> rank_counts = ranks;
    if (rank_counts.empty())
        for (long r = 2; r <= hw.cores; r *= 2) rank_counts.push_back(r);
    for (long r : rank_counts)
        if (r > 1 && r <= hw.cores) layouts.emplace_back(r, hw.cores / r);
    const bool charged = sys.charged_fraction > 0;
    const std::vector<double> scales = charged ? pme_scales : std::vector<double>{0.0};  // 0: leave unset
    std::vector<Config> out;
    for (const auto& cluster : clusters)
        for (long nstlist : nstlists)
            for (double scale : scales)
                for (const auto& [r, t] : layouts) {
                    Config c;
                    c.set(Param::Cluster, param_value(cluster));
                    c.set(Param::Nstlist, nstlist);
                    if (scale > 0) c.set(Param::PmeScale, scale);
                    c.set(Param::Threads, t);
                    if (r > 1) c.set(Param::Ranks, r);
                    out.push_back(std::move(c));
                }
    return out;
}

double ns_per_day(double dt_ps, double ms_per_step) { return ms_per_step > 0 ? dt_ps * 86400.0 / ms_per_step : 0.0; }

std::string rejection_reason(const SystemModel& sys, const SystemDescriptor& d, const Config& c,
                             const HardwareFeatures& hw, const std::set<std::string>& invalid) {
    // The one feasibility check: machine limits and mdcore's own resolve_config
    // (half-box rule, PME accuracy target, rlist limits) on the system summary.
    (void)sys;
    std::string reason = infeasible_reason(d, c, hw.caps());
    if (!reason.empty()) return reason;
    if (invalid.count(c.canonical())) return "recorded as invalid (energy drift above the tolerance) on this machine";
    return "";
}

RankedConfig score_config(const Model& model, const SystemModel& sys, const HardwareFeatures& hw, const Config& c) {
    RankedConfig r;
    r.config = c;
    r.effective = sys.resolve(c, hw);
    r.features = compute_features(hw, sys.features(), r.effective);
    r.prediction = model.predict(r.features);
    const double dt = sys.features().dt;
    r.ns_per_day = ns_per_day(dt, r.prediction.ms);
    r.ns_lo = ns_per_day(dt, r.prediction.hi);
    r.ns_hi = ns_per_day(dt, r.prediction.lo);
    return r;
}

Ranking rank_configs(const Model& model, const SystemDescriptor& system, const HardwareFeatures& hw,
                     const CandidateGrid& grid, const std::set<std::string>& invalid) {
    const SystemModel sys(system);
    Ranking out;
    out.system = system;
    out.system_features = sys.features();
    out.hardware = hw;
    for (const Config& c : grid.configs(sys.features(), hw)) {
        const std::string why = rejection_reason(sys, system, c, hw, invalid);
        if (!why.empty()) {
            out.rejected.push_back({c, why});
            continue;
        }
        out.ranked.push_back(score_config(model, sys, hw, c));
    }
    std::stable_sort(out.ranked.begin(), out.ranked.end(), [](const RankedConfig& a, const RankedConfig& b) {
        return ranks_before(a.prediction, b.prediction);
    });
    if (rejection_reason(sys, system, Config{}, hw, {}).empty()) out.default_config = score_config(model, sys, hw, Config{});
    return out;
}

}  // namespace mdtune::models
