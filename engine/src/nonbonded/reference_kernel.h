#pragma once
// The oracle for every optimised kernel: all atom pairs, minimum image, double
// precision, exact erfc. O(N^2): for tests only.
#include <vector>

#include "mdcore/physical_settings.h"
#include "mdcore/system.h"

namespace mdcore {

// What the reference evaluates: LJ with its modifier at rc, and Coulomb (none,
// Ewald real space or reaction field) with the system's charges and epsilon_r.
struct ReferenceInteraction {
    enum class Coulomb { None, Ewald, ReactionField };
    double rc = 1.0;
    VdwModifier vdw = VdwModifier::PotentialShift;
    double rvdw_switch = 0.0;
    Coulomb coulomb = Coulomb::None;
    double ewald_beta = 0.0;  // nm^-1
    double epsilon_rf = 1.0;  // 0: infinity
};

struct ReferenceResult {
    std::vector<Vec3> forces;  // input order
    double lj = 0.0;
    // Pairs within rc, excluded ones with their correction (Ewald: -qq erf(br)/r;
    // reaction field: qq (k_rf r^2 - c_rf)); the self term apart.
    double coulomb = 0.0;
    double coulomb_self = 0.0;
    long pairs_in_cutoff = 0;  // interacting (not excluded) pairs within rc
    // The scale of rounding errors: per atom the sum of its pairs' |F| (LJ and
    // Coulomb apart), and the sum of the pairs' c12/r^12 + c6/r^6.
    std::vector<double> force_abs;
    double lj_abs = 0.0;
};

ReferenceResult reference_forces(const System& system, const ReferenceInteraction& interaction);
// Potential-shifted LJ only.
ReferenceResult reference_lj_forces(const System& system, double rc);

// One pair's LJ (c6, c12 of V = c12/r^12 - c6/r^6) with the modifier, written
// from the GROMACS manual's forms: the potential and the force F = -dV/dr.
struct PairEnergyForce {
    double v = 0.0;
    double f = 0.0;
};
PairEnergyForce reference_lj_pair(double r, double c6, double c12, const ReferenceInteraction& interaction);

}  // namespace mdcore
