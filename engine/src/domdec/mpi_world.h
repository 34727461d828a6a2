#pragma once
// The process's place in MPI_COMM_WORLD. MPI is started only when a launcher
// (mpirun, srun) started the process, so `mdcore run` on its own stays a plain
// one-process program (no MPI start-up cost, no behaviour change); without MPI
// compiled in, every process is rank 0 of 1.
#include <string>

namespace mdcore {

// Starts MPI (MPI_THREAD_FUNNELED: OpenMP inside a rank, MPI from its master
// thread) when launched by mpirun/srun; finalises it when destroyed.
class MpiSession {
public:
    MpiSession(int* argc, char*** argv);
    ~MpiSession();
    MpiSession(const MpiSession&) = delete;
    MpiSession& operator=(const MpiSession&) = delete;

private:
    bool started_ = false;
};

// Open MPI's shared-memory single-copy setting as this process sees it
// ("VARIABLE=value"; mdcore sets "none" unless the user chose); "" for other MPIs.
std::string shared_memory_copy();
// Whether MPI is initialised (and not finalised) in this process.
bool mpi_active();
// Rank and size of MPI_COMM_WORLD; 0 and 1 when MPI is not active.
int world_rank();
int world_size();
// Ranks of MPI_COMM_WORLD on this node (sharing its memory); 1 when MPI is not active.
int node_rank_count();
// Called by every rank at the same point after a check that may fail on some ranks
// only (a rank's CPUs, a file missing on its node): the lowest rank whose `failed` is
// true, or world_size() when none failed. Collective over MPI_COMM_WORLD.
int first_failed_rank(bool failed);
// Ends every rank of MPI_COMM_WORLD with `code` (a failure one rank cannot share).
[[noreturn]] void abort_world(int code);

}  // namespace mdcore
