#pragma once
// libmdcore's entry points: System + RunConfig (+ RunControl) -> RunReport.
#include <string>
#include <vector>

#include "mdcore/run_config.h"
#include "mdcore/run_report.h"
#include "mdcore/system.h"

namespace mdcore {

// Resolves the heuristics of a RunConfig for a system; throws std::invalid_argument
// naming the parameter when a value is impossible (e.g. rc above half the box).
EffectiveConfig resolve_config(const System& system, const RunConfig& config,
                               const RunControl& control);

// Runs MD in place on `system` (positions and velocities advance).
RunReport run(System& system, const RunConfig& config, const RunControl& control);

// Forces (kJ/mol/nm, per atom in input order) and energies of the current state.
struct ForceResult {
    std::vector<Vec3> forces;
    double lj = 0.0;
    double coulomb_sr = 0.0;
    double coulomb_recip = 0.0;
    double potential = 0.0;
    EffectiveConfig config;
};
ForceResult compute_forces(const System& system, const RunConfig& config);

std::string engine_version();
std::string build_compiler();
std::string build_flags();
// SIMD levels this binary has kernels for and the CPU supports, narrowest first.
std::vector<SimdLevel> available_simd_levels();

}  // namespace mdcore
