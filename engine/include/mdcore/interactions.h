#pragma once
// Bonded interactions of a system with their parameters resolved per interaction,
// in GROMACS' units (nm, rad, kJ/mol, e). Atom indices are 0-based, in input
// order. The .top reader fills them; the bonded kernels evaluate them.
#include <array>
#include <string>
#include <vector>

namespace mdcore {

// V = kb/2 (r - b0)^2  (bonds type 1)
struct HarmonicBond {
    std::array<int, 2> atoms{};
    double b0 = 0.0, kb = 0.0;
};

// V = kb/4 (r^2 - b0^2)^2  (bonds type 2, GROMOS-96)
struct G96Bond {
    std::array<int, 2> atoms{};
    double b0 = 0.0, kb = 0.0;
};

// V = k/2 (theta - theta0)^2, theta0 in rad  (angles type 1)
struct HarmonicAngle {
    std::array<int, 3> atoms{};
    double theta0 = 0.0, k = 0.0;
};

// V = k/2 (cos theta - cos theta0)^2  (angles type 2, GROMOS-96)
struct G96Angle {
    std::array<int, 3> atoms{};
    double cos_theta0 = 0.0, k = 0.0;
};

// Harmonic angle plus a harmonic 1-3 distance term  (angles type 5)
struct UreyBradley {
    std::array<int, 3> atoms{};
    double theta0 = 0.0, k_theta = 0.0;  // rad, kJ mol^-1 rad^-2
    double r13 = 0.0, k_ub = 0.0;        // nm, kJ mol^-1 nm^-2
};

// V = k (1 + cos(n phi - phi0)), phi0 in rad  (dihedrals 1, 9 and 4; one term each)
struct PeriodicDihedral {
    std::array<int, 4> atoms{};
    double phi0 = 0.0, k = 0.0;
    int multiplicity = 0;
};

// V = k/2 (xi - xi0)^2 with xi - xi0 wrapped into [-pi, pi)  (dihedrals type 2)
struct HarmonicImproper {
    std::array<int, 4> atoms{};
    double xi0 = 0.0, k = 0.0;
};

// V = sum_n c[n] cos^n(psi), psi = phi - pi  (dihedrals type 3, Ryckaert-Bellemans)
struct RyckaertBellemans {
    std::array<int, 4> atoms{};
    std::array<double, 6> c{};
};

// 1-4 pair: LJ c12/r^12 - c6/r^6 plus plain Coulomb qq/(4 pi eps0 eps_r r), no cut-off.
// qq already holds fudgeQQ q_i q_j.
struct Pair14 {
    std::array<int, 2> atoms{};
    double c6 = 0.0, c12 = 0.0, qq = 0.0;
};

// A CMAP correction on the two backbone dihedrals (atoms 0-3 and 1-4).
struct CmapTorsion {
    std::array<int, 5> atoms{};
    int grid = 0;  // index into BondedInteractions::cmap_grids
};

// A grid of spacing 360/n degrees over phi, psi in [-180, 180), kJ/mol; values
// row-major with phi the slow index, as [ cmaptypes ] lists them.
struct CmapGrid {
    int n = 0;
    std::vector<double> values;
};

// A fixed distance (nm) between two atoms, kept by LINCS.
struct DistanceConstraint {
    std::array<int, 2> atoms{};
    double length = 0.0;
};

// V = sum_d k[d]/2 (x_d - ref_d)^2 (position_restraints type 1)
struct PositionRestraint {
    int atom = 0;
    std::array<double, 3> reference{};
    std::array<double, 3> k{};
};

struct BondedInteractions {
    std::vector<HarmonicBond> bonds;
    std::vector<G96Bond> g96_bonds;
    std::vector<HarmonicAngle> angles;
    std::vector<G96Angle> g96_angles;
    std::vector<UreyBradley> urey_bradley;
    std::vector<PeriodicDihedral> proper_dihedrals;    // types 1 and 9
    std::vector<PeriodicDihedral> periodic_impropers;  // type 4
    std::vector<HarmonicImproper> impropers;           // type 2
    std::vector<RyckaertBellemans> rb_dihedrals;       // type 3
    std::vector<Pair14> pairs;
    std::vector<CmapTorsion> cmap;
    std::vector<CmapGrid> cmap_grids;
    std::vector<PositionRestraint> position_restraints;
    // Kept by LINCS, not by a force; each removes one degree of freedom.
    std::vector<DistanceConstraint> constraints;
    double fudge_qq = 1.0;  // recorded for the report; already folded into Pair14::qq
    // Relative dielectric constant of the plain 1-4 Coulomb term; the MD loop sets it
    // from the System's epsilon_r (the .mdp's epsilon-r).
    double epsilon_r = 1.0;

    bool has_forces() const {
        return !bonds.empty() || !g96_bonds.empty() || !angles.empty() || !g96_angles.empty() ||
               !urey_bradley.empty() || !proper_dihedrals.empty() || !periodic_impropers.empty() ||
               !impropers.empty() || !rb_dihedrals.empty() || !pairs.empty() || !cmap.empty() ||
               !position_restraints.empty();
    }
    bool empty() const { return !has_forces() && constraints.empty(); }
};

// Energies of the bonded terms, one field per GROMACS energy term.
struct BondedEnergies {
    double bond = 0.0;               // "Bond"
    double g96_bond = 0.0;           // "G96Bond"
    double angle = 0.0;              // "Angle"
    double g96_angle = 0.0;          // "G96Angle"
    double urey_bradley = 0.0;       // "U-B"
    double proper_dihedral = 0.0;    // "Proper Dih."
    double periodic_improper = 0.0;  // "Per. Imp. Dih."
    double improper = 0.0;           // "Improper Dih."
    double rb = 0.0;                 // "Ryckaert-Bell."
    double cmap = 0.0;               // "CMAP Dih."
    double lj14 = 0.0;               // "LJ-14"
    double coulomb14 = 0.0;          // "Coulomb-14"
    double position_restraint = 0.0; // "Position Rest."

    double total() const {
        return bond + g96_bond + angle + g96_angle + urey_bradley + proper_dihedral + periodic_improper + improper +
               rb + cmap + lj14 + coulomb14 + position_restraint;
    }
    BondedEnergies& operator+=(const BondedEnergies& o) {
        bond += o.bond;
        g96_bond += o.g96_bond;
        angle += o.angle;
        g96_angle += o.g96_angle;
        urey_bradley += o.urey_bradley;
        proper_dihedral += o.proper_dihedral;
        periodic_improper += o.periodic_improper;
        improper += o.improper;
        rb += o.rb;
        cmap += o.cmap;
        lj14 += o.lj14;
        coulomb14 += o.coulomb14;
        position_restraint += o.position_restraint;
        return *this;
    }
};

}  // namespace mdcore
