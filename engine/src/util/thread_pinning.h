#pragma once
// Thread pinning (docs/user/mdcore-run.md, "Threads, pinning and waits"), after mdrun -pin: the
// OpenMP threads of a run each bound to one CPU, so the OS does not move them
// between cores (and their caches) mid-step.
#include <string>
#include <vector>

#include "mdcore/run_config.h"
#include "mdcore/run_report.h"

namespace mdcore {

// Where this process stands on its node.
struct PinContext {
    std::vector<int> allowed;  // CPUs this process may run on, ascending (sched_getaffinity)
    int online = 0;            // CPUs of the node
    int local_rank = 0;        // this process among the node's MPI ranks
    int local_ranks = 1;
};

// The plan, no system call: thread t goes to allowed[base + t]. A mask narrower
// than the node means a launcher (mpirun, srun, taskset) gave this process its
// own CPUs: the threads share those, and the local rank shifts nothing. With the
// whole node, rank r of the node starts at offset + r x threads.
// auto pins only when the threads fill every CPU they may use (offset 0);
// on pins whenever they fit; a --pin on that does not fit throws
// std::invalid_argument naming the CPUs needed and those available.
ThreadStats plan_pinning(PinMode mode, int threads, int offset, const PinContext& where);

// This process: its affinity mask as it started, the node's CPUs, and its local rank from the
// launcher's environment (Open MPI's OMPI_COMM_WORLD_LOCAL_RANK/_SIZE, Slurm's
// SLURM_LOCALID/SLURM_NTASKS_PER_NODE).
PinContext this_process();

// Binds each of the plan's threads (one OpenMP region of cpus.size() threads);
// a thread the OS refuses leaves the run unpinned, said in pin_note. An unpinned
// plan frees a team of `threads` a previous run of this process had pinned.
void apply_pinning(ThreadStats& plan, int threads);

}  // namespace mdcore
