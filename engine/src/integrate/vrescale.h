#pragma once
// Bussi, Donadio & Parrinello (2007) stochastic velocity rescaling.
#include <random>

namespace mdcore {

class VRescaleThermostat {
public:
    VRescaleThermostat(double reference_temperature, double tau_t, int degrees_of_freedom, unsigned long long seed);
    // Scaling factor lambda for kinetic energy `kinetic` over a step of length dt;
    // the energy taken out of the system is added to the conserved-energy integral.
    double scaling(double kinetic, double dt);
    double integral() const { return integral_; }

private:
    double kinetic_target_;
    double tau_t_;
    int dof_;
    std::mt19937_64 rng_;
    double integral_ = 0.0;
};

}  // namespace mdcore
