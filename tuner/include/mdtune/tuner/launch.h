#pragma once
// How a trial's mdcore process is started. One rank: mdcore itself. More ranks
// (the config's `ranks`): `mpirun -np R`, bound one rank to its threads' cores, or
// `srun --ntasks R` inside a Slurm allocation; never a launcher of mdtune's own.
// A --launcher the user gives replaces this for every trial, verbatim.
#include <string>
#include <vector>

#include "mdtune/core/config.h"

namespace mdtune::tuner {

struct LaunchPolicy {
    std::vector<std::string> fixed;  // the user's --launcher words: every trial, as given
    bool oversubscribe = false;      // [launch] oversubscribe: more ranks x threads than cores, unbound
    bool in_slurm = false;           // inside an allocation (SLURM_JOB_ID): srun starts the ranks
    bool root = false;               // Open MPI refuses root unless told (--allow-run-as-root)
    int cores = 1;                   // hardware threads of a node: threads per rank by default
    int nodes = 1;                   // [launch] nodes, for srun
};

// The policy of this process: the environment decides Slurm and root.
LaunchPolicy local_launch_policy(std::vector<std::string> fixed, bool oversubscribe, int nodes, int cores);

// The words in front of `mdcore run ...` for a config (empty: run mdcore directly).
std::vector<std::string> launch_prefix(const LaunchPolicy& policy, const Config& config);

}  // namespace mdtune::tuner
