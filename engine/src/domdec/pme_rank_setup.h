#pragma once
// What a PME-only rank needs to know, sent by construction on every rank.
#include "mdcore/system.h"
#include "pme/pme.h"
namespace mdcore {
struct PmeRankSetup {
    Box box;
    PmeGrid grid;
    int order = 4;
    double beta = 0;
    double epsilon_r = 1;
    int threads = 1;
    int n_pp_ranks = 1;
    SimdLevel simd = SimdLevel::None;  // of the mesh kernels
};
}  // namespace mdcore
