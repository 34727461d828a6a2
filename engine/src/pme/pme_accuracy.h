#pragma once
// The PME accuracy rule of resolve_config: a configuration runs when its estimated
// RMS Coulomb force error (pme_error.h) is within kPmeErrorTolerance of the target,
// the estimate for the same system with the unscaled cut-off (beta from ewald_rtol),
// a grid at the requested --pme-spacing (0.12 nm by default) and the default order 4.
#include "mdcore/run_config.h"
#include "mdcore/run_report.h"
#include "mdcore/system_summary.h"

namespace mdcore {

// 1.5: what a grid about 10% coarser than the target's costs at order 4 (the error
// goes as spacing^4). GROMACS' fourierspacing 0.125 nm (the 6.26 nm water box on a
// 52^3 grid) is about 1.15x the 0.12 nm target.
inline constexpr double kPmeErrorTolerance = 1.5;

// Sets eff.pme_force_error; throws std::invalid_argument naming the grid, the
// estimate and the limit when the estimate is above it. eff's rc, ewald_beta,
// pme_grid and pme_order must be resolved.
void require_pme_accuracy(const SystemSummary& system, const RunConfig& config, EffectiveConfig& eff);

}  // namespace mdcore
