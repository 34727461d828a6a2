#include "pairlist/list_intervals.h"

#include <cmath>

namespace mdcore {

namespace {
constexpr int kReferenceNstlist = 10;
constexpr int kNstlistCandidates[] = {20, 25, 40, 50, 80, 100};
constexpr double kListSizeFactorCpu = 1.25;  // GROMACS' CPU value: search ~1.5x the kernel's cost per pair
constexpr double kListSizeFactorGpu = 1.4;   // GROMACS' GPU value: the CPU search is slow next to the GPU kernel
constexpr double kListSizeMargin = 0.1;
constexpr int kMinNstprune = 4;  // below it pruning costs more than it saves
constexpr int kFallbackNstlist = 20;
}  // namespace

double cluster_rlist_increase(int cluster_i, int cluster_j, double atom_density) {
    if (!(atom_density > 0)) return 0.0;
    return 0.6 * std::cbrt((cluster_i - 1) / atom_density + (cluster_j - 1) / atom_density);
}

int default_nstlist(const VerletBufferParams& params, double atom_density, double max_rlist, bool gpu_nonbonded) {
    const double factor = gpu_nonbonded ? kListSizeFactorGpu : kListSizeFactorCpu;
    const double inc = cluster_rlist_increase(params.cluster_i, params.cluster_j, atom_density);
    const double reference = estimate_rlist(params, kReferenceNstlist - 1) + inc;
    const double rlist_ok = reference * std::cbrt(factor) - inc;
    const double rlist_max = reference * std::cbrt(factor + kListSizeMargin) - inc;
    int chosen = kFallbackNstlist;
    for (int nstlist : kNstlistCandidates) {
        const double rlist = estimate_rlist(params, nstlist - 1);
        if (rlist >= max_rlist || rlist > rlist_max) break;
        chosen = nstlist;
        if (rlist >= rlist_ok) break;
    }
    return chosen;
}

int default_nstprune(const VerletBufferParams& params, int nstlist, double rlist, double atom_density) {
    if (nstlist - 1 <= kMinNstprune) return nstlist;
    int nstprune = kMinNstprune;
    // The next interval's inner list is unbuffered when its drift at rc is within
    // the tolerance (estimate_rlist would return rc): one estimate, not a bisection.
    while (nstprune + 1 < nstlist - 1 && estimate_verlet_drift(params, nstprune, params.rc) <= params.drift_tolerance)
        ++nstprune;
    const double inner = estimate_rlist(params, nstprune - 1);
    const double inc = cluster_rlist_increase(params.cluster_i, params.cluster_j, atom_density);
    return inner + inc < 0.99 * (rlist + inc) ? nstprune : nstlist;
}

}  // namespace mdcore
