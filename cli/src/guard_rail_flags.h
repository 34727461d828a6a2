#pragma once
// The guard-rail flags of the commands that measure in rounds (sweep, tune): how
// little of its threads' CPU time a repeat may get before it counts as starved, and
// how often a starved repeat is run again before it is kept and marked noisy.
#include <CLI/CLI.hpp>

#include "mdtune/tuner/rounds.h"

namespace mdtune::cli {

struct GuardRailOptions {
    double min_cpu_share = tuner::RoundSettings{}.min_cpu_share;
    long reruns = tuner::RoundSettings{}.reruns;
};

void add_guard_rail_flags(CLI::App& cmd, GuardRailOptions& options);
void apply_guard_rails(const GuardRailOptions& options, tuner::RoundSettings& rounds);

}  // namespace mdtune::cli
