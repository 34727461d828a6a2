#include "domdec/mpi_world.h"

#include <cstdlib>
#include <initializer_list>
#include <string>

#ifdef MDCORE_HAVE_MPI
#include <mpi.h>
#endif

namespace mdcore {
namespace {

// Variables the common launchers set in each process they start: Open MPI's
// mpirun, PMIx (srun --mpi=pmix, prterun) and PMI/PMI-2 (MPICH's Hydra, srun).
bool launched_by_mpi_launcher() {
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
        if (std::getenv(name)) return true;
    return false;
}

#if defined(MDCORE_HAVE_MPI) && defined(OMPI_MAJOR_VERSION)
// Open MPI's shared-memory transport (vader, "sm" from 5.0) names its
// single-copy mechanism here.
constexpr const char* kSingleCopyVariable = OMPI_MAJOR_VERSION >= 5 ? "OMPI_MCA_btl_sm_single_copy_mechanism"
                                                                    : "OMPI_MCA_btl_vader_single_copy_mechanism";
#endif

}  // namespace

std::string shared_memory_copy() {
#if defined(MDCORE_HAVE_MPI) && defined(OMPI_MAJOR_VERSION)
    const char* value = std::getenv(kSingleCopyVariable);
    return std::string(kSingleCopyVariable) + "=" + (value ? value : "(Open MPI's default)");
#else
    return "";
#endif
}

MpiSession::MpiSession([[maybe_unused]] int* argc, [[maybe_unused]] char*** argv) {
#ifdef MDCORE_HAVE_MPI
    if (!launched_by_mpi_launcher() || mpi_active()) return;
#ifdef OMPI_MAJOR_VERSION
    // Messages above the eager limit (the halo, the PME planes) go by one
    // kernel-assisted copy (CMA) by default; on this VM its page pinning cost more
    // than copying through the shared segment (water-24k 2x1x1: halo x + f 0.186
    // -> 0.141 ms/step, the step at 0.945-0.979 of CMA's). Only where the user
    // has not chosen.
    setenv(kSingleCopyVariable, "none", 0);
#endif
    int provided = 0;
    MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
    started_ = true;
#endif
}

MpiSession::~MpiSession() {
#ifdef MDCORE_HAVE_MPI
    if (started_ && mpi_active()) MPI_Finalize();
#endif
}

bool mpi_active() {
#ifdef MDCORE_HAVE_MPI
    int initialised = 0, finalised = 0;
    MPI_Initialized(&initialised);
    MPI_Finalized(&finalised);
    return initialised && !finalised;
#else
    return false;
#endif
}

int world_rank() {
#ifdef MDCORE_HAVE_MPI
    if (!mpi_active()) return 0;
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
#else
    return 0;
#endif
}

int world_size() {
#ifdef MDCORE_HAVE_MPI
    if (!mpi_active()) return 1;
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return size;
#else
    return 1;
#endif
}

int first_failed_rank(bool failed) {
#ifdef MDCORE_HAVE_MPI
    if (mpi_active()) {
        const int mine = failed ? world_rank() : world_size();
        int first = mine;
        MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        return first;
    }
#endif
    return failed ? 0 : 1;
}

void abort_world(int code) {
#ifdef MDCORE_HAVE_MPI
    if (mpi_active()) MPI_Abort(MPI_COMM_WORLD, code);
#endif
    std::exit(code);
}

int node_rank_count() {
#ifdef MDCORE_HAVE_MPI
    if (!mpi_active()) return 1;
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int size = 1;
    MPI_Comm_size(node, &size);
    MPI_Comm_free(&node);
    return size;
#else
    return 1;
#endif
}

}  // namespace mdcore
