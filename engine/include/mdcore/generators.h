#pragma once
// Builders for the systems mdcore can run without input files.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

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

namespace mdcore {

struct WaterSpec {
    long nwater = 1000;
    double density = 0.997;       // g/cm^3 of the whole box
    double temperature = 300.0;   // K
    double nacl_molar = 0.0;      // NaCl concentration, mol/L (ion pairs replace waters)
    double rc = 1.0;              // nm
    double dt = 0.002;            // ps
    std::uint64_t seed = 1;
    int relax_steps = 200;        // seam relaxation steps (0: none)
    int threads = 0;              // for the relaxation run (0: all cores)
};

// SPC/E water (Berendsen et al. 1987: O sigma 0.316557 nm, epsilon 0.650194
// kJ/mol, q_O -0.8476, q_H +0.4238, rigid by SETTLE with d_OH 0.1, d_HH 0.163299)
// with optional NaCl using the Joung & Cheatham (J. Phys. Chem. B 112, 9020 (2008))
// SPC/E-compatible ion parameters, Lorentz-Berthelot combination. The box is cut
// from periodic copies of an equilibrated 1000-molecule cell shipped with mdcore
// (engine/data), its origin shifted by the seed; where copies meet (and around
// ions) relax_steps of MD at 0.5 fs with strong v-rescale coupling relax the
// contacts, so the box starts near equilibrium at 300 K.
System make_water_system(const WaterSpec& spec);

// Removes velocity components along constraints, zeroes total momentum and scales
// the kinetic temperature (with the constrained degrees of freedom) to exactly T.
void assign_constrained_velocities(System& system, double temperature, std::uint64_t seed);

}  // namespace mdcore

namespace mdcore {
// The generated systems by name, as `mdcore run --system KIND` builds them.
enum class SystemKind { Lj, Argon, LammpsLj, Water, WaterIons };
std::string_view to_string(SystemKind kind);
std::optional<SystemKind> parse_system_kind(std::string_view text);
std::string system_kind_names();  // "lj, argon, lammps-lj, water, water-ions"
constexpr bool is_water(SystemKind kind) { return kind == SystemKind::Water || kind == SystemKind::WaterIons; }
// The default physics of a kind: LJ parameters (LJ kinds) or the water spec
// (water kinds; water-ions at 0.15 mol/L NaCl). Throws std::invalid_argument
// when asked for the other family.
LjFluidSpec lj_spec_of(SystemKind kind);
WaterSpec water_spec_of(SystemKind kind);

// lj, argon, lammps-lj (natoms atoms) or water, water-ions (natoms / 3
// molecules) with default physics. The text overload throws std::invalid_argument
// for an unknown kind.
System make_named_system(SystemKind kind, long natoms, std::uint64_t seed, int threads = 0);
System make_named_system(const std::string& kind, long natoms, std::uint64_t seed, int threads = 0);
}  // namespace mdcore
