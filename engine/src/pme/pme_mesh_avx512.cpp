// The PME mesh kernels compiled for AVX512 (flags in engine/CMakeLists.txt).
#include "pme/pme_mesh_kernel_impl.h"

namespace mdcore {

PmeMeshKernels pme_mesh_kernels_avx512() { return kMeshKernels; }

}  // namespace mdcore
