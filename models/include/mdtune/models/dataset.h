#pragma once
// Trials as training samples: the Ok trials of the database, one per (hardware,
// system, config), with their features computed from the effective settings
// mdcore recorded.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "mdtune/models/features.h"
#include "mdtune/db/store.h"

namespace mdtune::models {

struct Sample {
    long trial_id = 0;
    std::string hardware_id;
    SystemDescriptor system;
    Config config;
    long steps = 0;
    Features features;
    double ms = 0;      // median ms per step
    double ms_min = 0, ms_max = 0;
    // Per-round ratios to the round's reference (the default) of the clean repeats;
    // empty for trials not measured in rounds.
    std::vector<double> ratios;
    std::map<std::string, double> timings;  // task -> seconds per step (TrialResult::timings)
};

// mdcore's Ok trials with a positive time (another engine's, such as GROMACS', are
// left out), deduplicated per (hardware, system, config):
// the longest measurement wins (a successive-halving rung is a short one), then
// the latest. `hardware` maps every hardware id of the trials to its features;
// a missing id throws std::invalid_argument naming it. Trials of a user's box
// (--gro/--top) count only when this process has read its files (describe_system_files).
std::vector<Sample> make_samples(const std::vector<db::StoredTrial>& trials,
                                 const std::map<std::string, HardwareFeatures>& hardware);

// Features of every hardware id that appears in `trials`, from the hardware table.
std::map<std::string, HardwareFeatures> hardware_of(const db::Store& store, const std::vector<db::StoredTrial>& trials);

// All Ok trials of a database as samples.
std::vector<Sample> load_samples(const db::Store& store);

// Configs (canonical text) recorded Invalid (energy drift above the tolerance)
// for a system kind on a hardware: never recommended. A config counts as invalid
// when its longest measurement there (a longer run estimates the drift better)
// is invalid; an Ok run at least as long as every invalid one clears it.
std::set<std::string> invalid_configs(const std::vector<db::StoredTrial>& trials, const std::string& hardware_id,
                                      mdcore::SystemKind system_kind);

}  // namespace mdtune::models
