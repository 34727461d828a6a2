#pragma once
#include <array>
#include <cstddef>

#include "pme/pme.h"

namespace mdcore {
struct MeshResult { double energy = 0; std::array<double, 9> virial{}; };
// Reciprocal-space part of PME over the PP ranks' home atoms. Collective: every PP
// rank calls compute() with its own home atoms (positions in the unit cell or any
// image); forces are ADDED to f for those atoms; energy/virial are the global sums,
// returned on every PP rank.
class MeshSolver {
public:
    virtual ~MeshSolver() = default;
    virtual MeshResult compute(std::size_t n, const double* x, const double* y, const double* z,
                               const double* q, float* fx, float* fy, float* fz) = 0;
    // Seconds this rank spent in each mesh stage so far (accumulated; the report's
    // pme_* tasks). Zero where the stages run elsewhere (PME-only ranks).
    virtual PmeStageTimes stage_times() const { return {}; }
    // Whether the next compute() must return the energy and virial (energy steps);
    // otherwise a solver may skip their sums and return zeros, as the serial Pme's
    // compute_forces() does.
    virtual void set_energy_wanted(bool /*wanted*/) {}
};
}
