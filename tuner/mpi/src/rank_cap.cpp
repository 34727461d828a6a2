#include "mdtune/mpi/rank_cap.h"

#include <algorithm>

namespace mdtune::mpi {

RankCap rank_cap(const LaunchContext& ctx, int slurm_tasks) {
    if (ctx.kind == LauncherKind::Srun)
        return slurm_tasks > 0 ? RankCap{slurm_tasks, "the Slurm allocation's " + std::to_string(slurm_tasks) + " task(s)"}
                               : RankCap{};
    if (!ctx.hostfile.empty()) return {};
    const int cores = std::max(1, ctx.local_cores);
    return {cores * kRanksPerCore, "this machine's " + std::to_string(cores) + " core(s) (" +
                                       std::to_string(kRanksPerCore) + " ranks per core)"};
}

std::vector<int> within_cap(const std::vector<int>& ranks, const RankCap& cap, std::vector<int>& dropped) {
    std::vector<int> kept;
    for (int r : ranks) (cap.most > 0 && r > cap.most ? dropped : kept).push_back(r);
    return kept;
}

}  // namespace mdtune::mpi
