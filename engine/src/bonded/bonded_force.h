#pragma once
// The bonded forces of the MD loop. Every interaction list is sorted by its
// lowest atom (input order, so a protein chain stays in chain order) and cut
// into one contiguous chunk per thread at common atom boundaries chosen so each
// thread gets an equal share of the estimated cost. A thread works on compact
// local copies of just the atoms its chunks touch: it gathers their positions
// from the slot arrays, accumulates forces in double into its own buffer, and
// adds the atoms no other thread touches straight into the float forces; the few
// atoms shared between threads are summed over the threads afterwards. Each
// force is rounded to float once, and the split is fixed, so results do not
// depend on thread scheduling.
//
// Why local copies rather than buffers over slot ranges: after a pair search the
// slots are in spatial (grid column) order, and a chain's neighbours lie in
// other columns, so the slot range one thread's interactions touch spans nearly
// all slots of the system (measured: 26k of 26.5k slots for a 2.5k-atom chain in
// water); the local copies stay at about natoms / threads.
#include <array>
#include <vector>

#include "mdcore/interactions.h"
#include "mdcore/system.h"

namespace mdcore {

class BondedForce {
public:
    BondedForce(const BondedInteractions& terms, int num_threads);

    // slot_of[atom] = index of that atom in the arrays passed to compute(); called
    // after every pair search. Until then slots are the input order. Throws
    // std::invalid_argument when an atom of an interaction has no slot.
    void set_slots(const std::vector<int>& slot_of);

    // Adds forces into fx/fy/fz (slot order); positions in slot order. With
    // energies false the returned energies are zero.
    BondedEnergies compute(const double* x, const double* y, const double* z, const Box& box, float* fx, float* fy,
                           float* fz, bool energies);

    int num_threads() const { return num_threads_; }
    // Atoms in thread t's local copy, and atoms shared between threads (tests, tuning).
    int local_atoms(int t) const { return static_cast<int>(parts_[t].atoms.size()); }
    int shared_atoms() const { return static_cast<int>(shared_slot_.size()); }

    enum List { kBonds, kG96Bonds, kAngles, kG96Angles, kUreyBradley, kProper, kPeriodicImproper, kImproper, kRb,
                kPairs, kCmap, kPosres, kNumLists };

    // A periodic dihedral term with cos and sin of phi0 precomputed: the kernel
    // gets cos and sin of (n phi - phi0) from cos and sin of phi without trig calls.
    struct Torsion {
        std::array<int, 4> atoms{};
        double k = 0.0, cos_phi0 = 1.0, sin_phi0 = 0.0;
        int multiplicity = 0;
    };

private:
    struct CmapTable {
        int n = 0;
        std::vector<double> coeff;  // per cell (iphi * n + ipsi), 16 bicubic coefficients
    };
    struct alignas(64) Part {
        std::vector<int> atoms;      // input atoms of the local copy, ascending
        std::vector<int> slot;       // their slots
        std::vector<int> own;        // local atoms no other part touches
        std::vector<double> x;       // positions, xyz interleaved
        std::vector<double> f;       // forces, xyz interleaved
        BondedEnergies e;
    };
    struct SharedRef {
        int part, local;
    };

    template <bool kEnergies>
    void compute_part(int p, const double* x, const double* y, const double* z, const Box& box, float* fx, float* fy,
                      float* fz);
    void reduce_shared(int t, int nt, float* fx, float* fy, float* fz) const;

    int num_threads_;
    double coulomb_factor_;
    // Local atom indices (of the part whose chunk holds the interaction).
    std::vector<HarmonicBond> bonds_;
    std::vector<G96Bond> g96_bonds_;
    std::vector<HarmonicAngle> angles_;
    std::vector<G96Angle> g96_angles_;
    std::vector<UreyBradley> urey_bradley_;
    std::vector<Torsion> proper_;
    std::vector<Torsion> periodic_impropers_;
    std::vector<HarmonicImproper> impropers_;
    std::vector<RyckaertBellemans> rb_;
    std::vector<Pair14> pairs_;
    std::vector<CmapTorsion> cmap_;
    std::vector<PositionRestraint> posres_;
    std::vector<CmapTable> cmap_tables_;
    // bounds_[list][t] .. bounds_[list][t + 1]: thread t's chunk of that list
    std::array<std::vector<int>, kNumLists> bounds_;
    std::vector<Part> parts_;
    // Atoms touched by several parts: input atom, slot, and their parts' local
    // indices shared_refs_[shared_begin_[k] .. shared_begin_[k + 1]).
    std::vector<int> shared_atom_;
    std::vector<int> shared_slot_;
    std::vector<int> shared_begin_;
    std::vector<SharedRef> shared_refs_;
};

}  // namespace mdcore
