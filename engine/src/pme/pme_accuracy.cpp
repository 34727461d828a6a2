// The PME accuracy rule (pme_accuracy.h).
#include "pme/pme_accuracy.h"

#include <stdexcept>
#include <string>

#include "pme/pme_error.h"
#include "util/format.h"

namespace mdcore {

void require_pme_accuracy(const System& system, const RunConfig& config, EffectiveConfig& eff) {
    const ChargeMoments charges = charge_moments(system.charge, system.epsilon_r);
    const PmeGrid grid{eff.pme_grid[0], eff.pme_grid[1], eff.pme_grid[2]};
    eff.pme_force_error = ewald_force_error(system.box, {eff.rc, eff.ewald_beta, grid, eff.pme_order}, charges);

    const int target_order = RunConfig{}.pme_order;
    const EwaldSettings target_settings{system.rc, ewald_beta(system.rc, system.ewald_rtol),
                                        pme_nominal_grid(system.box, config.pme_spacing, target_order), target_order};
    const double target = ewald_force_error(system.box, target_settings, charges);
    const double limit = kPmeErrorTolerance * target;
    if (eff.pme_force_error > limit)
        throw std::invalid_argument(
            "PME grid " + std::to_string(grid.nx) + "x" + std::to_string(grid.ny) + "x" + std::to_string(grid.nz) +
            " (order " + std::to_string(eff.pme_order) + ", rc " + format_g(eff.rc) +
            " nm): estimated RMS force error " + format_g(eff.pme_force_error) + " kJ/mol/nm is above the limit " +
            format_g(limit) + " (" + format_g(kPmeErrorTolerance) + " x the " + format_g(target) + " of spacing " +
            format_g(config.pme_spacing) + " nm, order " + std::to_string(target_order) +
            "); use a finer --pme-grid or a higher --pme-order");
}

}  // namespace mdcore
