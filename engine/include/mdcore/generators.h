#pragma once
// Builders for the systems mdcore can run without input files.
#include <cstdint>
#include <optional>

#include "mdcore/system.h"

namespace mdcore {

struct LjFluidSpec {
    // Size: either natoms or a cubic box edge (nm); natoms wins when both are set.
    std::optional<long> natoms;
    std::optional<double> box_length;
    double reduced_density = 0.8442;  // rho* = rho sigma^3
    double sigma = 0.34;              // nm
    double epsilon = 0.996;           // kJ/mol
    double mass = 39.948;             // amu
    double temperature = 120.0;       // K, initial Maxwell-Boltzmann temperature
    double rc = 0.85;                 // nm (2.5 sigma)
    double dt = 0.005;                // ps
    bool fcc_lattice = true;          // fcc with jitter; false = random insertion on a jittered cubic grid
    double jitter = 0.0;              // nm, uniform random displacement of lattice sites
    std::uint64_t seed = 1;
};

// An LJ fluid: fcc lattice (atom count rounded to 4 n^3 only for exact fcc presets;
// otherwise the first natoms sites of the smallest lattice that holds them in a
// cubic box at the requested density), Maxwell-Boltzmann velocities scaled to
// exactly the requested temperature with zero total momentum.
System make_lj_fluid(const LjFluidSpec& spec, const char* kind = "lj");

// Liquid argon at Rahman's 1964 state point (94.4 K, 1.374 g/cm^3).
LjFluidSpec argon_spec();
// LAMMPS' bench/in.lj: fcc at rho* 0.8442, T* 3.0, rc 2.5 sigma, dt 0.005 tau, in
// argon units (tau = sigma sqrt(m/epsilon) = 2.153 ps).
LjFluidSpec lammps_lj_spec();
// Generic LJ fluid, argon parameters, rho* 0.8442, T* 1.0.
LjFluidSpec lj_spec();

// Velocities from Maxwell-Boltzmann at temperature T, centre-of-mass motion removed
// and scaled so the kinetic temperature is exactly T.
void assign_maxwell_boltzmann(System& system, double temperature, std::uint64_t seed);

}  // namespace mdcore
