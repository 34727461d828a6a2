#include "guard_rail_flags.h"

#include "cli_options.h"

namespace mdtune::cli {

void add_guard_rail_flags(CLI::App& cmd, GuardRailOptions& options) {
    add_value(cmd, "--min-cpu-share", options.min_cpu_share,
              "A repeat whose CPU time is below this share of its threads' is starved: run again, then marked noisy")
        ->check(real_in(0.0, 1.0))
        ->capture_default_str();
    add_value(cmd, "--reruns", options.reruns, "How often a starved repeat is run again before it is marked noisy")
        ->check(integer_in(0, 10))
        ->capture_default_str();
}

void apply_guard_rails(const GuardRailOptions& options, tuner::RoundSettings& rounds) {
    rounds.min_cpu_share = options.min_cpu_share;
    rounds.reruns = static_cast<int>(options.reruns);
}

}  // namespace mdtune::cli
