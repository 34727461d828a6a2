// The many-atom B-spline stencil kernel compiled for AVX-512 (flags in engine/CMakeLists.txt).
#include "pme/pme_spline_kernel.h"

namespace mdcore {

void pme_spline_avx512(const PmeSplineArgs& args, std::size_t begin, std::size_t end) {
    pme_spline_range(args, begin, end);
}

}  // namespace mdcore
