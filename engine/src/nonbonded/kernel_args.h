#pragma once
// Plain argument structs shared by the kernel instantiations and the dispatcher.
#include <cstddef>
#include <cstdint>

#include "mdcore/physical_settings.h"
#include "pairlist/pair_list.h"

namespace mdcore {

enum class LjCombination { Geometric, Table };
// Coulomb in the cluster kernels: none; Ewald real space (erfc-screened,
// potential-shifted at rc, with the erf correction for excluded pairs); or
// reaction field (excluded pairs within rc get its r^2 and shift terms, as in
// GROMACS' Verlet scheme). The LJ form at rc is a VdwModifier.
enum class KernelCoulomb { None, Ewald, ReactionField };

struct KernelInput {
    // Sorted, padded atom data (SoA, 64-byte aligned, padding slots far away).
    const float* x;
    const float* y;
    const float* z;
    // Geometric combination: per-atom sqrt(6 c6) and sqrt(12 c12).
    const float* c6s;
    const float* c12s;
    // Table combination: per-atom type and ntypes x ntypes tables of 6 c6 and 12 c12.
    const std::int32_t* type;
    const float* c6_table;
    const float* c12_table;
    int ntypes;
    // Per type: 1 when any LJ parameter of the type is non-zero (table combination;
    // null means every type has LJ). Lets the kernels skip LJ for i-atoms without it.
    const std::uint8_t* type_has_lj = nullptr;
    LjCombination combination;
    // Charges times sqrt(kCoulomb / epsilon_r), so q_i q_j is the prefactor.
    const float* q;
    float ewald_beta;
    float ewald_shift;  // erfc(beta rc) / rc
    const float (*shift)[3];
    const PairList* list;
    float rc2;
    // LJ potential at rc: 6 C6 (r^-6 - rc_inv6) / 6 and likewise for 12. With
    // force-switch these are -cpot of the switched forms, with potential-switch 0.
    float rc_inv6;
    float rc_inv12;
    // Force- and potential-switch (interaction_modifiers.h) from rvdw_switch;
    // the force-switch terms per unit of 6 C6 and 12 C12.
    float rvdw_switch = 0.0f;
    float fsw6_a = 0.0f, fsw6_b = 0.0f, fsw12_a = 0.0f, fsw12_b = 0.0f;
    float psw_c3 = 0.0f, psw_c4 = 0.0f, psw_c5 = 0.0f;
    // Reaction field: V = qq (1/r + k_rf r^2 - c_rf).
    float k_rf = 0.0f;
    float c_rf = 0.0f;
};

// Where slot s's first copy sits in a force buffer of `copies` copies for
// j-clusters of m slots (KernelOutput).
constexpr std::size_t force_buffer_index(std::size_t s, std::size_t m, int copies) {
    return copies == 1 ? s : s / m * (static_cast<std::size_t>(copies) * m) + s % m;
}

// The force buffers are tracked in blocks of 2^kTouchedBlockShift j-clusters:
// a kernel flags each block it writes, so the buffer's owner clears and the
// reduction reads only those (a thread writes its own region and the halo the
// half list reaches from it, not the whole buffer).
inline constexpr int kTouchedBlockShift = 5;
constexpr std::size_t touched_blocks(std::size_t j_clusters) {
    return (j_clusters + (std::size_t{1} << kTouchedBlockShift) - 1) >> kTouchedBlockShift;
}

// Whether a kernel flags the blocks it writes (NonbondedForce flags every block
// for those that do not). The Ewald kernels do not: the flags changed their
// register-bound code and cost them 1-3 % (water-24k MD, bench_nonbonded SPC/E
// 3,000 4x8), more than two threads save on water, where a thread's halo is most
// of the box.
// The reaction-field kernels follow the Ewald ones (not measured apart).
constexpr bool kernel_flags_blocks(KernelCoulomb coulomb) { return coulomb == KernelCoulomb::None; }

// Per-thread output: force buffers, energies and pair counts. With one copy
// (KernelSet::j_force_copies) fx[slot]; with two, cluster c = slot / M owns
// fx[2Mc, 2Mc + 2M): the i-forces and one copy of the j-forces in the first M
// floats, the other copy in the second M.
struct KernelOutput {
    float* fx;
    float* fy;
    float* fz;
    // touched[c >> kTouchedBlockShift] = 1 for every j-cluster c whose slots the
    // kernel writes (where kernel_flags_blocks; the kernel sets flags, never clears
    // them). Not a char or int type: a char store may alias anything, an int one
    // the list entries, and either would make the kernel reload them after each flag.
    std::uint16_t* touched;
    double e_lj = 0.0;
    double e_coul = 0.0;
    double pairs_in_cutoff = 0.0;
};

enum class EnergyOutput { No, Yes };

}  // namespace mdcore
