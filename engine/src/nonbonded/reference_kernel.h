#pragma once
// The oracle for every optimised kernel: all atom pairs, minimum image, double
// precision, potential-shifted LJ. O(N^2): for tests only.
#include <vector>

#include "mdcore/system.h"

namespace mdcore {

struct ReferenceResult {
    std::vector<Vec3> forces;  // input order
    double lj = 0.0;
    long pairs_in_cutoff = 0;
};

ReferenceResult reference_lj_forces(const System& system, double rc);

}  // namespace mdcore
