#pragma once
// The simplest MeshSolver: every PP rank gathers all home coordinates and
// charges, runs the serial Pme on all atoms and keeps its own atoms' forces.
// It does no less work per rank than one rank does, so it does not scale; it is
// the reference the distributed mesh is tested against.
#include <mpi.h>

#include <vector>

#include "domdec/mesh_solver.h"
#include "pme/pme.h"

namespace mdcore {

class ReplicatedMesh : public MeshSolver {
public:
    ReplicatedMesh(const Box& box, PmeGrid grid, int order, double beta, double epsilon_r, int threads, SimdLevel simd,
                   MPI_Comm pp_comm);
    MeshResult compute(std::size_t n, const double* x, const double* y, const double* z, const double* q, float* fx,
                       float* fy, float* fz) override;
    PmeStageTimes stage_times() const override { return pme_.stage_times(); }

private:
    Pme pme_;
    MPI_Comm comm_;
    std::vector<int> counts_, displs_;
    std::vector<double> mine_, all_;
    std::vector<double> x_, y_, z_, q_;
    std::vector<float> fx_, fy_, fz_;
};

}  // namespace mdcore
