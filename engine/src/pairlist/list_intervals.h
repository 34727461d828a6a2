#pragma once
// Default pair-search and pruning intervals, after GROMACS' increaseNstlist and
// setupDynamicPairlistPruning, for CPU and GPU nonbondeds. With dynamic pruning the kernel runs
// on the inner list, whose cost hardly depends on nstlist, so nstlist may grow as
// long as the outer list (search and pruning cost) grows by at most a set factor
// over the list a 10-step interval would need; the pruning interval is the longest
// one whose inner list needs no buffer at all.
#include "pairlist/verlet_buffer.h"

namespace mdcore {

// Radius increase a cluster pair list behaves as beyond rlist (GROMACS'
// nbnxn_get_rlist_effective_inc): 60 % of the clusters' size.
double cluster_rlist_increase(int cluster_i, int cluster_j, double atom_density);

// The largest of 20, 25, 40, 50, 80, 100 whose estimated rlist stays within the
// list-size factor (CPU nonbondeds 1.25, GPU 1.4; the next may reach 0.1 more) of
// nstlist 10's and below max_rlist; 20 when even 20 does not qualify.
int default_nstlist(const VerletBufferParams& params, double atom_density, double max_rlist, bool gpu_nonbonded = false);

// The longest pruning interval from 4 up to nstlist - 2 whose inner list needs no
// buffer (rlist_inner == rc); nstlist (no pruning) when the inner list would not
// be at least 1 % shorter (radius plus cluster increase) than the outer one.
int default_nstprune(const VerletBufferParams& params, int nstlist, double rlist, double atom_density);

}  // namespace mdcore
