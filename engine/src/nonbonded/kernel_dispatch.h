#pragma once
// The one dispatch table: (SIMD level, cluster shape) -> kernel instantiations.
#include "mdcore/run_config.h"
#include "nonbonded/kernel_args.h"
#include "pairlist/cluster_pair_search.h"

namespace mdcore {

using KernelFn = void (*)(const KernelInput&, int i_begin, int i_end, KernelOutput&);

// The kernel variants of one shape and level, chosen per run: LJ combination,
// LJ modifier, Coulomb, energy output (kernel_instance.cpp.in fills them all).
inline constexpr int kVdwModifiers = 3;  // VdwModifier
inline constexpr int kKernelCoulombs = 3;  // KernelCoulomb

struct KernelSet {
    // [LJ combination][LJ modifier][Coulomb][energy output]
    KernelFn fn[2][kVdwModifiers][kKernelCoulombs][2];
    PruneKernelFn prune;
    // Force-buffer floats per slot and dimension (KernelOutput): 2 where a
    // register holds copies of a j-cluster's atoms (W >= 2M) and the j-forces
    // are stored as two copies; the caller sums them.
    int j_force_copies = 1;
    KernelFn get(LjCombination l, VdwModifier v, KernelCoulomb c, EnergyOutput e) const {
        return fn[l == LjCombination::Table][static_cast<int>(v)][static_cast<int>(c)][e == EnergyOutput::Yes];
    }
};

// Throws std::invalid_argument when the level is not compiled in or the CPU lacks it.
const KernelSet& kernel_set(SimdLevel level, ClusterShape shape);
bool simd_level_compiled(SimdLevel level);
// Auto -> the widest level that is compiled and supported.
SimdLevel resolve_simd_level(SimdLevel requested);

}  // namespace mdcore
