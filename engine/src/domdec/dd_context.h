#pragma once
// How this process takes part in a decomposed run. MPI_COMM_WORLD splits into
// PP ranks (the first ranks - npme) and PME-only ranks (the last npme): rank 0,
// which writes the report, is always a PP rank, and the PP ranks keep
// consecutive ranks, as mpirun places them on cores and nodes (GROMACS' default
// -ddorder interleave mixes them; its -ddorder pp_pme is this order).
#include <mpi.h>

#include <memory>

#include "domdec/dd_layout.h"
#include "domdec/mesh_solver.h"
#include "mdcore/run_report.h"
#include "mdcore/system.h"

namespace mdcore {

class DdContext {
public:
    DdContext(const System& system, const EffectiveConfig& config);
    ~DdContext();
    DdContext(const DdContext&) = delete;
    DdContext& operator=(const DdContext&) = delete;

    const DdLayout& layout() const { return layout_; }
    bool pme_only() const { return pme_only_; }
    MPI_Comm pp_comm() const { return pp_comm_; }
    // PME-only ranks: serves the PP ranks' mesh requests until they say stop.
    void serve_pme() const;
    // PP ranks: the mesh of this layout (null for a system without charges).
    std::unique_ptr<MeshSolver> make_mesh() const;

private:
    const System& system_;
    const EffectiveConfig& config_;
    DdLayout layout_;
    bool pme_only_ = false;
    MPI_Comm pp_comm_ = MPI_COMM_NULL, pme_comm_ = MPI_COMM_NULL;
};

// The layout an EffectiveConfig resolved to.
DdLayout dd_layout_of(const EffectiveConfig& config);

}  // namespace mdcore
