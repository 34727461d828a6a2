#include "integrate/vrescale.h"

#include <cmath>

#include "mdcore/units.h"

namespace mdcore {

VRescaleThermostat::VRescaleThermostat(double reference_temperature, double tau_t, int dof, unsigned long long seed)
    : kinetic_target_(0.5 * dof * units::kBoltzmann * reference_temperature), tau_t_(tau_t), dof_(dof), rng_(seed) {}

double VRescaleThermostat::scaling(double kinetic, double dt) {
    if (kinetic <= 0.0 || dof_ <= 0) return 1.0;
    const double c = tau_t_ > 0 ? std::exp(-dt / tau_t_) : 0.0;
    std::normal_distribution<double> normal(0.0, 1.0);
    const double r1 = normal(rng_);
    // Sum of dof-1 squared standard normals is chi^2(dof-1) = 2 Gamma((dof-1)/2, 1).
    double sum_r2 = 0.0;
    if (dof_ > 1) {
        std::gamma_distribution<double> gamma(0.5 * (dof_ - 1), 1.0);
        sum_r2 = 2.0 * gamma(rng_);
    }
    const double factor = kinetic_target_ / (kinetic * dof_);
    const double k_new = kinetic + (1.0 - c) * (kinetic_target_ * (r1 * r1 + sum_r2) / dof_ - kinetic) +
                         2.0 * r1 * std::sqrt(c * (1.0 - c) * kinetic * factor * kinetic);
    const double lambda2 = std::max(k_new / kinetic, 0.0);
    integral_ -= (lambda2 - 1.0) * kinetic;
    return std::sqrt(lambda2);
}

}  // namespace mdcore
