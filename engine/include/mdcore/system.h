#pragma once
// The simulated system: everything about a run that is not a tunable.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "mdcore/interactions.h"
#include "mdcore/physical_settings.h"

namespace mdcore {

using Vec3 = std::array<double, 3>;

// Rectangular periodic box (nm).
struct Box {
    Vec3 lengths{0.0, 0.0, 0.0};
    double volume() const { return lengths[0] * lengths[1] * lengths[2]; }
    double min_length() const;
};

enum class CombinationRule { Geometric, LorentzBerthelot };

// An LJ atom type: V(r) = c12/r^12 - c6/r^6 against itself.
struct AtomType {
    std::string name;
    double c6 = 0.0;   // kJ mol^-1 nm^6
    double c12 = 0.0;  // kJ mol^-1 nm^12
    double sigma = 0.0;
    double epsilon = 0.0;
};

// LJ parameters for every type pair, row-major ntypes x ntypes.
struct LjMatrix {
    int ntypes = 0;
    std::vector<double> c6;
    std::vector<double> c12;
    double c6_at(int a, int b) const { return c6[a * ntypes + b]; }
    double c12_at(int a, int b) const { return c12[a * ntypes + b]; }
    // True when c6_ab = sqrt(c6_aa c6_bb) and likewise c12 for all pairs, which lets
    // kernels use per-atom parameters instead of a table gather.
    bool is_geometric() const;
    // Per type: 1 when any of its pair parameters is non-zero (an atom of a type
    // without LJ, e.g. a water hydrogen, interacts through its charge only).
    std::vector<std::uint8_t> types_with_lj() const;
};

LjMatrix make_lj_matrix(const std::vector<AtomType>& types, CombinationRule rule);

// A rigid water (or any 3-site rigid molecule) constrained by SETTLE.
struct Settle {
    int o = 0, h1 = 0, h2 = 0;  // atom indices
    double d_oh = 0.1;          // nm
    double d_hh = 0.163299;     // nm
};

// Particles and topology, with the physical settings (rc, dt, temperature, ...)
// as its base. Positions are kept inside the box by the engine.
struct System : PhysicalSettings {
    std::string kind;  // generator or file it came from, e.g. "lj", "argon"
    Box box;
    std::vector<AtomType> atom_types;
    LjMatrix lj;
    std::vector<Vec3> positions;   // nm
    std::vector<Vec3> velocities;  // nm/ps
    std::vector<int> type;         // index into atom_types
    std::vector<double> charge;    // e
    std::vector<double> mass;      // amu
    // Excluded partners of each atom, sorted, listed from both sides (symmetric);
    // empty for simple fluids.
    std::vector<std::vector<int>> exclusions;
    // Rigid 3-site molecules; each removes 3 degrees of freedom.
    std::vector<Settle> settles;
    // Bonds, angles, dihedrals, 1-4 pairs, CMAP, restraints and distance constraints
    // (empty for fluids and water boxes).
    BondedInteractions bonded;
    // Names for .gro output (optional; empty means generic names are written).
    std::vector<std::string> atom_name;
    std::vector<std::string> residue_name;
    std::vector<int> residue_number;
    // Number of removed degrees of freedom (centre-of-mass motion and constraints).
    int removed_dof = 3;

    std::size_t natoms() const { return positions.size(); }
    double number_density() const { return natoms() / box.volume(); }
    double mass_density_g_cm3() const;  // g/cm^3
    int degrees_of_freedom() const { return 3 * static_cast<int>(natoms()) - removed_dof; }
    // Throws std::invalid_argument naming the first inconsistency found.
    void validate() const;
};

}  // namespace mdcore
