#pragma once
// B-spline stencils (weights, derivatives, grid indices) of many atoms at once: the
// recursion runs over kPmeSplineLanes atoms side by side so it fills SIMD registers.
// One instance per compiled SIMD level (pme_spline_<level>.cpp, built with only its
// flags and without FMA contraction), so every level gives exactly the values of the
// one-atom bspline() the reference path uses.
#include <cstddef>

#include "mdcore/run_config.h"
#include "pme/bspline.h"

namespace mdcore {

inline constexpr int kPmeSplineLanes = 8;

struct PmeSplineArgs {
    const double* pos[3] = {};  // coordinates, nm, any image
    double length[3] = {};      // box edges, nm
    int dims[3] = {};           // grid points per dimension
    int order = 4;
    AtomStencil* stencils = nullptr;
};

// Fills stencils[begin..end) (every atom, charged or not).
using PmeSplineKernel = void (*)(const PmeSplineArgs& args, std::size_t begin, std::size_t end);

// Throws std::invalid_argument for a level that is not compiled in (Auto is not a level).
PmeSplineKernel pme_spline_kernel(SimdLevel level);

}  // namespace mdcore
