#pragma once
#include <array>
#include <cstddef>
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
};
}
