#pragma once
// How many ranks one launch may start where mdtune runs: a Slurm allocation's
// tasks under srun; on one machine without a hostfile, a few ranks per core (small
// counts oversubscribe on purpose, to learn the layouts of larger nodes, but tens
// of thousands of processes would only exhaust the machine); no cap with a
// hostfile, which says where the ranks go.
#include <string>
#include <vector>

#include "mdtune/mpi/sweep.h"

namespace mdtune::mpi {

// Ranks per usable core that one machine runs at the most (the default rank
// lists, up to 8 ranks, fit a 2-core machine).
inline constexpr int kRanksPerCore = 4;

struct RankCap {
    int most = 0;        // 0: no cap
    std::string where;   // "this machine's 2 cores (4 ranks per core)", "the Slurm allocation's 4 tasks"
};

// `slurm_tasks`: $SLURM_NTASKS under srun (0 when unknown).
RankCap rank_cap(const LaunchContext& ctx, int slurm_tasks);

// The rank counts within the cap; those above it are listed in `dropped`.
std::vector<int> within_cap(const std::vector<int>& ranks, const RankCap& cap, std::vector<int>& dropped);

}  // namespace mdtune::mpi
