#include "domdec/pme_rank_service.h"

namespace mdcore {

bool pme_rank_service_linked() {
#ifdef MDCORE_HAVE_MPI
    return &run_pme_rank != nullptr;
#else
    return false;
#endif
}

}  // namespace mdcore
