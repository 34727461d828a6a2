// The PME mesh kernels compiled for AVX2 (flags in engine/CMakeLists.txt).
#include "pme/pme_mesh_kernel_impl.h"

namespace mdcore {

PmeMeshKernels pme_mesh_kernels_avx2() { return kMeshKernels; }

}  // namespace mdcore
