#pragma once
// LINCS (Hess et al., J. Comput. Chem. 18, 1463 (1997)) with the P-LINCS threading
// of Hess, JCTC 4, 116 (2008), following GROMACS' lincs-order / lincs-iter semantics:
// one solve with a matrix expansion of `order` terms, then `iterations` corrections
// for rotational lengthening, each with the same expansion. Constraints that are
// part of a triangle of coupled constraints (all-bonds plus angle constraints) get
// `order` extra expansion terms over their triangle couplings, as in GROMACS.
//
// Constraints are reordered once so that coupled ones (connected components) are
// contiguous, then split into one contiguous range per thread. When the ranges
// fall on component boundaries the threads never wait on each other; otherwise
// (a large molecule with all-bond constraints) they share the right-hand sides and
// synchronise with barriers between the expansion steps. Position corrections are
// gathered per atom in a fixed order, so results do not depend on the thread count.
#include <array>
#include <string>
#include <vector>

#include "mdcore/interactions.h"

namespace mdcore {

struct LincsSettings {
    int order = 4;       // lincs-order: terms of the matrix expansion
    int iterations = 1;  // lincs-iter: corrections for rotational lengthening
    double warn_angle_deg = 30.0;
};

struct LincsResult {
    // Relative constraint deviations |r - d|/d after constraining; filled when
    // apply() was asked for them or when a rotation warning was raised.
    double max_relative_deviation = 0.0;
    double rms_relative_deviation = 0.0;
    int rotation_warnings = 0;  // constraints that rotated more than warn_angle_deg this step
    // GROMACS-like text listing the rotated pairs (0-based input atom indices, first
    // in input constraint order first); empty when none.
    std::string warning;
};

class Lincs {
public:
    // constraints in input (atom) indices; inv_mass per atom in input order (its size is
    // the atom count). Throws std::invalid_argument on a constraint with length <= 0, an
    // atom index out of range, a constraint of an atom with itself, a negative or
    // non-finite inverse mass, or a constraint between two massless atoms.
    Lincs(const std::vector<DistanceConstraint>& constraints, const std::vector<double>& inv_mass,
          const LincsSettings& settings, int num_threads);

    // slot_of[atom]: the atom's index in the arrays apply() gets. Identity until called.
    void set_slots(const std::vector<int>& slot_of);

    // x: positions at the start of the step (constraint directions), xp: unconstrained
    // new positions (corrected in place), v: velocities corrected by the position
    // correction times invdt when v[0] != nullptr. Slot-ordered SoA arrays; inv_mass per
    // slot. box: rectangular edges for the minimum image of constraint vectors (0: not
    // periodic in that dimension). The same as take_directions(x, box) then constrain().
    LincsResult apply(const std::array<const double*, 3>& x, const std::array<double*, 3>& xp,
                      const std::array<double*, 3>& v, const double* inv_mass_slot, const std::array<double, 3>& box,
                      double invdt, bool compute_deviation);

    // The two halves of apply(), so an MD step needs no copy of the start-of-step
    // positions: the constraint vectors are taken before the update moves the atoms.
    void take_directions(const std::array<const double*, 3>& x, const std::array<double, 3>& box);
    LincsResult constrain(const std::array<double*, 3>& xp, const std::array<double*, 3>& v,
                          const double* inv_mass_slot, const std::array<double, 3>& box, double invdt,
                          bool compute_deviation);

    // Largest relative deviation |r - d| / d of the constraints in x now (NaN when
    // one is not finite).
    double max_relative_deviation(const std::array<const double*, 3>& x, const std::array<double, 3>& box) const;
    // Change of sum m v^2 (twice the kinetic energy) the last constrain() made by
    // correcting velocities; 0 when it corrected none.
    double twice_kinetic_energy_change() const { return twice_ke_change_; }
    // Slots of the constrained atoms: the only ones constrain() moves.
    const std::vector<int>& constrained_slots() const { return upd_slot_; }

    // Constraint virial of the last apply(), 3x3 row-major, kJ/mol, in the engine's
    // (and GROMACS') convention -0.5 sum_i x_i (x) F_i = -0.5 sum_pairs r_ij (x) f_ij,
    // with r_ij the constrained length along the start-of-step direction and
    // f_ij = the constraint displacement times m / dt^2 (needs invdt > 0).
    const std::array<double, 9>& virial() const { return virial_; }

    int num_constraints() const { return nc_; }
    int num_tasks() const { return ntask_; }
    // True when thread ranges split coupled constraints (barriers between steps).
    bool tasks_dependent() const { return dependent_; }
    // Constraints that are part of a triangle of coupled constraints.
    int num_triangle_constraints() const { return static_cast<int>(tri_con_.size()); }

private:
    void run_tasks(const std::array<double*, 3>& xp, const std::array<double*, 3>& v, const double* inv_mass_slot,
                   const std::array<double, 3>& box, double invdt, bool& prefilter_hit);
    LincsResult check(const std::array<double*, 3>& xp, const std::array<double, 3>& box) const;

    LincsSettings settings_;
    int natoms_ = 0;
    int nc_ = 0;
    int ntask_ = 1;
    bool dependent_ = false;
    std::vector<int> task_begin_;  // ntask_ + 1 constraint offsets (LINCS order)

    // Per constraint, LINCS order.
    std::vector<int> input_index_;  // index into the constructor's list
    std::vector<int> atom1_, atom2_;  // input atom indices
    std::vector<int> slot1_, slot2_;
    std::vector<double> len_, blc_;  // length, 1/sqrt(invm1 + invm2)

    // Coupling matrix (CSR): for constraint b, entries [blnr_[b], blnr_[b+1]) list the
    // coupled constraint blbnb_ and the mass-only factor blmf_.
    std::vector<int> blnr_, blbnb_;
    std::vector<double> blmf_;
    // Triangle constraints (ascending, never split across tasks) with their couplings
    // inside triangles as entries into the matrix above.
    std::vector<int> tri_con_, tri_nr_, tri_entry_;
    std::vector<int> task_tri_begin_;  // ntask_ + 1 offsets into tri_con_

    // Atom-wise update: atoms grouped by task; each lists its constraints and the
    // sign of the correction (-1 on the first atom, +1 on the second).
    std::vector<int> task_atom_begin_;
    std::vector<int> upd_atom_, upd_slot_, upd_nr_, upd_con_;
    std::vector<double> upd_sign_;

    // Work arrays, reused every step: the start-of-step constraint vectors (ox, for
    // the rotation check) and their directions (rx), then the solve's.
    std::vector<double> ox_, oy_, oz_, rx_, ry_, rz_, rhs1_, rhs2_, sol_, blcc_, mlambda_, blc_sol_;
    std::vector<std::array<double, 9>> task_virial_;
    std::vector<double> task_twice_ke_change_;
    std::array<double, 9> virial_{};
    double twice_ke_change_ = 0.0;
};

}  // namespace mdcore
