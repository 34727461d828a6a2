#include "mdtune/tuner/launch.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "mdtune/core/feasibility.h"

namespace mdtune::tuner {

LaunchPolicy local_launch_policy(std::vector<std::string> fixed, bool oversubscribe, int nodes, int cores) {
    LaunchPolicy p;
    p.fixed = std::move(fixed);
    p.oversubscribe = oversubscribe;
    const char* job = std::getenv("SLURM_JOB_ID");
    p.in_slurm = job && *job;
    p.root = geteuid() == 0;
    p.cores = std::max(1, cores);
    // Inside an allocation a job step gets the allocation's CPUs of a node, not all of them.
    if (const char* cpus = p.in_slurm ? std::getenv("SLURM_CPUS_ON_NODE") : nullptr)
        if (const int n = std::atoi(cpus); n > 0) p.cores = std::min(p.cores, n);
    p.nodes = std::max(1, nodes);
    return p;
}

std::vector<std::string> launch_prefix(const LaunchPolicy& policy, const Config& config) {
    if (!policy.fixed.empty()) return policy.fixed;
    const int ranks = ranks_of(config);
    const int threads = threads_per_rank(config, policy.cores);
    if (policy.in_slurm) {
        // A job step of the allocation, also for one rank, so the step gets the CPUs it asks for.
        std::vector<std::string> words{"srun", "--nodes=" + std::to_string(std::min(policy.nodes, ranks)),
                                       "--ntasks=" + std::to_string(ranks),
                                       "--cpus-per-task=" + std::to_string(threads)};
        if (policy.oversubscribe) words.emplace_back("--overcommit");
        return words;
    }
    if (ranks <= 1) return {};
    std::vector<std::string> words{"mpirun", "-np", std::to_string(ranks)};
    if (policy.root) words.emplace_back("--allow-run-as-root");
    if (policy.oversubscribe) {
        // More ranks x threads than cores: binding would stack ranks on the same cores.
        words.insert(words.end(), {"--oversubscribe", "--bind-to", "none"});
    } else {
        // Each rank on its own threads' cores, as mdrun -pin on places them.
        words.insert(words.end(), {"--map-by", "slot:PE=" + std::to_string(threads), "--bind-to", "core"});
    }
    return words;
}

}  // namespace mdtune::tuner
