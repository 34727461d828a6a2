#pragma once
// Prediction for a system on a machine without running MD: enumerate candidate
// configs (a default grid: cluster shape x list lifetime x PME balance x threads,
// and MPI ranks x threads filling the node),
// drop every one that cannot run or would break the accuracy target (the search
// space's constraints, mdcore's own checks, configs recorded as invalid), score
// the rest with a model and rank them by predicted speed.
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "mdtune/models/model.h"

namespace mdtune::models {

struct CandidateGrid {
    // The SIMD cluster shapes (1x1 is a reference list, never a recommendation).
    std::vector<mdcore::ClusterShape> clusters{mdcore::ClusterShape::k4x4, mdcore::ClusterShape::k4x8,
                                               mdcore::ClusterShape::k8x4};
    std::vector<long> nstlists{10, 20, 40, 80};
    std::vector<double> pme_scales{1.0, 1.1, 1.2, 1.3};  // systems with charges only
    // Empty: 1..cores, or on more than 8 cores the powers of two, the physical cores and all cores.
    std::vector<long> threads;
    // MPI ranks above one, each filling the node (threads per rank = cores / ranks, the
    // layout and PME ranks mdcore's auto choice). Empty: the powers of two up to the cores.
    std::vector<long> ranks;
    // Non-empty: exactly these configs (a user's search space) instead of the grid above.
    std::vector<Config> only;
    // Every combination (or `only`); rlist is never set, so the Verlet-buffer estimate keeps the drift target.
    std::vector<Config> configs(const SystemFeatures& sys, const HardwareFeatures& hw) const;
};

struct RankedConfig {
    Config config;
    mdcore::EffectiveConfig effective;
    Features features;
    Prediction prediction;
    double ns_per_day = 0, ns_lo = 0, ns_hi = 0;  // from the interval's ends
};

struct RejectedConfig {
    Config config;
    std::string reason;
};

struct Ranking {
    SystemDescriptor system;
    SystemFeatures system_features;
    HardwareFeatures hardware;
    std::vector<RankedConfig> ranked;            // fastest predicted first
    std::optional<RankedConfig> default_config;  // mdcore's defaults, for the speed-up
    std::vector<RejectedConfig> rejected;
};

// ns/day of a step time: dt (ps) x steps per day / 1000.
double ns_per_day(double dt_ps, double ms_per_step);

// Why a config cannot be recommended for the system on the machine, "" when it can.
std::string rejection_reason(const SystemModel& sys, const SystemDescriptor& d, const Config& c,
                             const HardwareFeatures& hw, const std::set<std::string>& invalid);

RankedConfig score_config(const Model& model, const SystemModel& sys, const HardwareFeatures& hw, const Config& c);

// `invalid`: canonical texts of configs recorded invalid for this system kind and machine.
Ranking rank_configs(const Model& model, const SystemDescriptor& system, const HardwareFeatures& hw,
                     const CandidateGrid& grid = {}, const std::set<std::string>& invalid = {});

}  // namespace mdtune::models
