#pragma once
// Runs the cluster kernels over a pair list with OpenMP: each thread owns a force
// buffer over all sorted slots and a balanced contiguous block of i-entries; the
// buffers are then summed in parallel over slot ranges (no serial reduction),
// each block of j-clusters over the threads that wrote it (KernelOutput::touched).
#include <cstdint>
#include <vector>

#include "mdcore/run_config.h"
#include "mdcore/system.h"
#include "nonbonded/kernel_dispatch.h"
#include "pairlist/cluster_pair_search.h"
#include "timing/thread_waits.h"
#include "util/aligned_vector.h"
#include "util/thread_balance.h"

namespace mdcore {

struct NonbondedEnergies {
    double lj = 0.0;
    double coulomb = 0.0;  // Ewald or reaction field incl. exclusion corrections (not the self term)
    double pairs_in_cutoff = 0.0;
};

// The interaction's form besides rc and beta: the LJ modifier and
// the Coulomb method (EffectiveConfig's; the defaults are LJ potential-shift, Ewald).
struct NonbondedModifiers {
    VdwModifier vdw = VdwModifier::PotentialShift;
    double rvdw_switch = 0.0;  // nm
    CoulombType coulomb = CoulombType::Pme;
    double epsilon_rf = 1.0;
};

class NonbondedForce {
public:
    // rc and the Ewald beta come from the effective config (PME tuning scales rc).
    NonbondedForce(const System& system, ClusterShape shape, SimdLevel level, int num_threads, double rc,
                   double ewald_beta, const NonbondedModifiers& modifiers = {});

    // Per-slot parameters for a new sorted order (order[slot] = atom or -1).
    void set_order(const std::vector<int>& order);
    // Coordinates (sorted slot order, float) the kernels and pruning read.
    AlignedVector<float>& x() { return x_; }
    AlignedVector<float>& y() { return y_; }
    AlignedVector<float>& z() { return z_; }
    SortedCoordinates coordinates() const { return {x_.data(), y_.data(), z_.data(), shift_}; }
    void set_box(const Box& box);

    // Forces into fx/fy/fz (sorted slots, overwritten). Energies only when asked.
    NonbondedEnergies compute(const PairList& list, EnergyOutput energy, float* fx, float* fy, float* fz);

    // Barrier waits of compute()'s threads go to `waits` (null: not timed).
    void set_thread_waits(ThreadWaits* waits) { waits_ = waits; }
    // On (the default): each call splits the list over the threads by shares
    // adapted from the previous call's kernel times (thread_balance.h), so a
    // slower CPU gets less work; the forces then agree between runs to float
    // rounding only. Off: an even split by j-entries, bit-identical runs.
    void set_thread_balance(bool on);

    PruneKernelFn prune_kernel() const { return kernels_->prune; }
    SimdLevel simd_level() const { return level_; }
    LjCombination combination() const { return combination_; }
    KernelCoulomb coulomb() const { return coulomb_; }
    VdwModifier vdw_modifier() const { return vdw_; }

private:
    const System& system_;
    ClusterShape shape_;
    SimdLevel level_;
    int num_threads_;
    LjCombination combination_;
    VdwModifier vdw_;
    KernelCoulomb coulomb_;
    const KernelSet* kernels_;
    KernelInput constants_{};  // the per-run constants of the interaction; compute() adds the arrays
    AlignedVector<float> x_, y_, z_, c6s_, c12s_, q_;
    AlignedVector<std::int32_t> type_;
    std::vector<float> c6_table_, c12_table_;
    std::vector<std::uint8_t> type_has_lj_;
    float shift_[kNumShifts][3];
    std::vector<AlignedVector<float>> thread_f_;  // per thread: 3 x j_force_copies x padded slots
    std::vector<const float*> thread_f_pointers_;  // their data, for sum_force_buffers
    // Per thread: the blocks of its buffer the last call wrote (KernelOutput::touched);
    // every other block of the buffer is zero.
    std::vector<AlignedVector<std::uint16_t>> thread_touched_;
    std::vector<std::vector<const float*>> thread_sum_from_;  // per thread: scratch for the reduction
    std::vector<int> thread_bounds_;              // per call: each thread's block of i-entries
    ThreadShares shares_;                         // of the j-entries, with each call's kernel times
    std::vector<KernelOutput> thread_out_;        // per call: each thread's energies and force buffers
    ThreadWaits* waits_ = nullptr;
};

}  // namespace mdcore
