#pragma once
// Verlet-buffer estimate (GROMACS calc_verletbuf, Páll & Hess 2013; GROMACS 2020
// paper sec. "Algorithmic work efficiency and pair-list buffers"): the pair-list
// radius rlist = rc + buffer such that the energy error from pairs that move from
// outside rlist to inside rc during a list's lifetime stays below a drift tolerance.
#include <vector>

#include "mdcore/physical_settings.h"

namespace mdcore {

// One class of atoms that share mass, LJ type and charge.
struct BufferAtomClass {
    double mass = 0.0;    // amu
    double count = 0.0;   // number of atoms of this class in the system
    int lj_type = 0;      // index into the LJ parameter matrices
    double charge = 0.0;  // e
    // The heaviest atom this class is constrained to (SETTLE: O for H, H for O) and
    // the constraint length; 0 for none. An atom constrained to one heavier than
    // 0.4x its own mass moves as a rotation about the pair's centre of mass plus
    // that centre's motion (GROMACS' verletbuf), far less than a free atom.
    double constraint_mass = 0.0;    // amu
    double constraint_length = 0.0;  // nm
};

struct VerletBufferParams {
    std::vector<BufferAtomClass> classes;
    int num_lj_types = 0;
    std::vector<double> c6;   // num_lj_types^2, kJ mol^-1 nm^6 (V = c12/r^12 - c6/r^6)
    std::vector<double> c12;  // num_lj_types^2, kJ mol^-1 nm^12
    double volume = 0.0;          // nm^3
    double temperature = 0.0;     // K (reference temperature)
    double dt = 0.0;              // ps
    double rc = 0.0;              // cut-off, nm
    VdwModifier vdw_modifier = VdwModifier::PotentialShift;  // LJ at rc
    double rvdw_switch = 0.0;     // nm, with force- or potential-switch
    double ewald_beta = 0.0;      // nm^-1; 0 means no Coulomb (unless reaction field)
    CoulombType coulomb_type = CoulombType::Pme;  // ReactionField: from epsilon_rf, not beta
    double epsilon_rf = 1.0;      // 0: infinity
    double epsilon_r = 1.0;
    double drift_tolerance = 0.005;  // kJ/mol/ps per atom
    int cluster_i = 4;            // i-cluster size of the pair list (1 for a plain Verlet list)
    int cluster_j = 4;            // j-cluster size
};

// -V'(rc), V''(rc) and -V'''(rc) of a pair potential, as the estimate expands
// the energy error of a pair that moves inside rc.
struct PotentialDerivatives {
    double md1 = 0.0;
    double d2 = 0.0;
    double md3 = 0.0;
};
// Those of the LJ dispersion -1/r^6 and repulsion 1/r^12 (per unit C6, C12) with
// the modifier, and of the Coulomb interaction per unit charge product
// (kCoulomb / epsilon_r included; -V' and V'' only, as GROMACS).
struct CutoffDerivatives {
    PotentialDerivatives dispersion, repulsion, coulomb;
};
CutoffDerivatives cutoff_derivatives(const VerletBufferParams& params);

// Estimated energy drift (kJ/mol/ps per atom) for a list with radius rlist used for
// list_lifetime_steps steps after it was built (GROMACS uses nstlist - 1).
// The error at the end of the lifetime is charged once per list period of
// (list_lifetime_steps + 1) * dt, as GROMACS does (nstlist * dt). rlist < rc is
// evaluated at rc; a lifetime of 0 steps gives 0.
double estimate_verlet_drift(const VerletBufferParams& params, int list_lifetime_steps,
                             double rlist);

// Smallest rlist >= rc (resolution 0.001 nm) whose estimated drift is below
// params.drift_tolerance for the given lifetime. A lifetime of 0 steps returns rc.
double estimate_rlist(const VerletBufferParams& params, int list_lifetime_steps);

}  // namespace mdcore
