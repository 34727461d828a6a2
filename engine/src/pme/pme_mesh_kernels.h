#pragma once
// The optimised PME particle-mesh kernels, one instance per compiled SIMD level
// (pme_mesh_<level>.cpp, each built with only its flags and without FMA contraction,
// so every level gives bit-identical results):
//   splines  float B-spline stencils of many atoms at once (lanes side by side);
//   spread   a list of atoms' order^3 blocks into a thread's padded slab, where no
//            index wraps and every z-run is one contiguous piece of a line;
//   gather   -q grad phi from the (unpadded) potential grid.
// The stencil of atom i in dimension d is its base, the grid index of its highest point,
// and the weights th (derivatives dth) of the points base - j, j < order; stored in
// blocks of kPmeStencilLanes atoms, lane-major, so the spline kernel writes whole
// vectors (the accessors below say where each value lies).
#include <cstddef>

#include "mdcore/run_config.h"

namespace mdcore {

inline constexpr std::size_t kPmeStencilLanes = 16;

struct PmeMeshStencils {
    int* base = nullptr;  // pme_stencil_ints(n) values
    float* th = nullptr;  // pme_stencil_floats(n, order) values each
    float* dth = nullptr;
};

inline std::size_t pme_stencil_blocks(std::size_t n) { return (n + kPmeStencilLanes - 1) / kPmeStencilLanes; }
inline std::size_t pme_stencil_ints(std::size_t n) { return pme_stencil_blocks(n) * 3 * kPmeStencilLanes; }
inline std::size_t pme_stencil_floats(std::size_t n, int order) { return pme_stencil_ints(n) * order; }
// Index of atom i's base in dimension d, and of its weight j in dimension d.
inline std::size_t pme_base_index(std::size_t i, int d) {
    return (i / kPmeStencilLanes * 3 + d) * kPmeStencilLanes + i % kPmeStencilLanes;
}
inline std::size_t pme_weight_index(std::size_t i, int d, int j, int order) {
    return ((i / kPmeStencilLanes * 3 + d) * order + j) * kPmeStencilLanes + i % kPmeStencilLanes;
}

struct PmeSplineInput {
    const double* pos[3] = {};  // coordinates, nm, any image
    double length[3] = {};      // box edges, nm
    int dims[3] = {};           // grid points per dimension
    int order = 4;
};

// A thread's spread slab: grid planes [x0 - (order-1), x1) in x, and the y and z lines
// padded by order-1 points below (local index = grid index + order - 1, wrapping folded
// back when the slab is reduced onto the grid).
struct PmeSlab {
    float* data = nullptr;
    int x0 = 0;        // first grid plane the thread owns
    int ny_pad = 0;    // ny + order - 1
    int nz_pad = 0;    // nz + order - 1
};

struct PmeGatherInput {
    const float* phi = nullptr;  // potential, nx * ny * nz
    int dims[3] = {};
    double scale[3] = {};        // K_a / L_a: d u_a / d x_a
    int order = 4;
};

struct PmeMeshKernels {
    // Stencils of atoms [begin, end) (charged or not); begin a multiple of
    // kPmeStencilLanes. Whole blocks are written (lanes past end hold junk).
    void (*splines)(const PmeSplineInput& in, std::size_t begin, std::size_t end, const PmeMeshStencils& st);
    // Charges of the atoms listed in atoms[0..count) (uncharged ones skipped) onto the slab.
    void (*spread)(const PmeSlab& slab, int order, const int* atoms, std::size_t count, const double* q,
                   const PmeMeshStencils& st);
    // Forces of atoms [begin, end): f -= q grad phi (uncharged atoms skipped).
    void (*gather)(const PmeGatherInput& in, std::size_t begin, std::size_t end, const double* q,
                   const PmeMeshStencils& st, float* fx, float* fy, float* fz);
};

// Throws std::invalid_argument for a level that is not compiled in (Auto is not a level).
PmeMeshKernels pme_mesh_kernels(SimdLevel level);

}  // namespace mdcore
