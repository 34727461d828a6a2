// Picks the PME mesh kernels of a SIMD level.
#include "pme/pme_mesh_kernels.h"

#include <stdexcept>
#include <string>

namespace mdcore {

PmeMeshKernels pme_mesh_kernels_none();
#ifdef MDT_SIMD_AVX2
PmeMeshKernels pme_mesh_kernels_avx2();
#endif
#ifdef MDT_SIMD_AVX512
PmeMeshKernels pme_mesh_kernels_avx512();
#endif

PmeMeshKernels pme_mesh_kernels(SimdLevel level) {
    switch (level) {
#ifdef MDT_SIMD_AVX512
        case SimdLevel::Avx512:
            return pme_mesh_kernels_avx512();
#endif
#ifdef MDT_SIMD_AVX2
        case SimdLevel::Avx2:
            return pme_mesh_kernels_avx2();
#endif
        case SimdLevel::None:
            return pme_mesh_kernels_none();
        default:
            throw std::invalid_argument("PME mesh kernels: SIMD level " + std::string(to_string(level)) +
                                        " is not compiled in");
    }
}

}  // namespace mdcore
