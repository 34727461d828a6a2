// Picks the many-atom B-spline kernel of a SIMD level.
#include "pme/pme_spline.h"

#include <stdexcept>
#include <string>

namespace mdcore {

void pme_spline_none(const PmeSplineArgs& args, std::size_t begin, std::size_t end);
#ifdef MDT_SIMD_AVX2
void pme_spline_avx2(const PmeSplineArgs& args, std::size_t begin, std::size_t end);
#endif
#ifdef MDT_SIMD_AVX512
void pme_spline_avx512(const PmeSplineArgs& args, std::size_t begin, std::size_t end);
#endif

PmeSplineKernel pme_spline_kernel(SimdLevel level) {
    switch (level) {
#ifdef MDT_SIMD_AVX512
        case SimdLevel::Avx512:
            return pme_spline_avx512;
#endif
#ifdef MDT_SIMD_AVX2
        case SimdLevel::Avx2:
            return pme_spline_avx2;
#endif
        case SimdLevel::None:
            return pme_spline_none;
        default:
            throw std::invalid_argument("PME splines: SIMD level " + std::string(to_string(level)) + " is not compiled in");
    }
}

}  // namespace mdcore
