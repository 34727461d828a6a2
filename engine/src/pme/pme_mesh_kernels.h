#pragma once
// The optimised PME particle-mesh kernels, one instance per compiled SIMD level
// (pme_mesh_<level>.cpp, each built with only its flags and without FMA contraction,
// so every level gives bit-identical results):
//   splines  float B-spline stencils of many atoms at once (lanes side by side);
//   spread   a list of atoms' order^3 blocks into a thread's padded slab, where no
//            index wraps and every z-run is one contiguous piece of a line;
//   gather   -q grad phi from the (unpadded) potential grid.
// The stencil of atom i in dimension d is base[3i+d], the grid index of its highest
// point, and weights th[(3i+d)*P + j] (derivatives dth) of the points base - j.
#include <cstddef>

#include "mdcore/run_config.h"

namespace mdcore {

struct PmeMeshStencils {
    int* base = nullptr;  // 3 per atom
    float* th = nullptr;  // 3 * order per atom
    float* dth = nullptr;
};

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
    // Stencils of atoms [begin, end) (charged or not).
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
