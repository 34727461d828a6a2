// The PME mesh kernels compiled without SIMD flags (flags in engine/CMakeLists.txt).
#include "pme/pme_mesh_kernel_impl.h"

namespace mdcore {

PmeMeshKernels pme_mesh_kernels_none() { return kMeshKernels; }

}  // namespace mdcore
