// The PME accuracy rule (pme_accuracy.h).
#include "pme/pme_accuracy.h"

#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>

#include "pme/pme_error.h"
#include "util/format.h"

namespace mdcore {
namespace {

// The estimate sums over the whole grid (milliseconds at 54^3, seconds near 256^3),
// and the tuner resolves many configs of one system that share a few PME settings:
// remember each distinct (box, settings, charges) once per process.
double cached_force_error(const Box& box, const EwaldSettings& s, const ChargeMoments& q) {
    using Key = std::tuple<double, double, double, double, double, int, int, int, int, std::size_t, double, double,
                           double>;
    static std::mutex mutex;
    static std::map<Key, double> cache;
    const Key key{box.lengths[0], box.lengths[1], box.lengths[2], s.rc, s.beta, s.grid.nx, s.grid.ny, s.grid.nz,
                  s.order, q.n, q.sum_q2, q.sum_q4, q.prefactor};
    {
        const std::lock_guard<std::mutex> lock(mutex);
        if (const auto it = cache.find(key); it != cache.end()) return it->second;
    }
    const double error = ewald_force_error(box, s, q);
    const std::lock_guard<std::mutex> lock(mutex);
    if (cache.size() > 4096) cache.clear();  // bounded: a long-lived process sees many systems
    cache.emplace(key, error);
    return error;
}

}  // namespace

void require_pme_accuracy(const SystemSummary& system, const RunConfig& config, EffectiveConfig& eff) {
    const ChargeMoments charges = charge_moments(system.classes, system.epsilon_r);
    const PmeGrid grid{eff.pme_grid[0], eff.pme_grid[1], eff.pme_grid[2]};
    eff.pme_force_error = cached_force_error(system.box, {eff.rc, eff.ewald_beta, grid, eff.pme_order}, charges);

    const int target_order = RunConfig{}.pme_order;
    const EwaldSettings target_settings{system.rc, ewald_beta(system.rc, system.ewald_rtol),
                                        pme_nominal_grid(system.box, config.pme_spacing, target_order), target_order};
    const double target = cached_force_error(system.box, target_settings, charges);
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
