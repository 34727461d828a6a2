#include "domdec/dd_context.h"

#include <stdexcept>

#include "domdec/pme_rank.h"
#include "domdec/pme_rank_mesh.h"
#include "domdec/replicated_mesh.h"
#include "pme/parallel_pme_mesh.h"

namespace mdcore {

DdLayout dd_layout_of(const EffectiveConfig& config) {
    DdLayout l;
    l.ranks = config.ranks;
    l.npme = config.npme;
    l.cells = config.dd;
    l.comm_distance = config.dd_comm_distance;
    l.reason = config.dd_reason;
    return l;
}

DdContext::DdContext(const System& system, const EffectiveConfig& config)
    : system_(system), config_(config), layout_(dd_layout_of(config)) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    pme_only_ = rank >= layout_.pp_ranks();
    MPI_Comm_split(MPI_COMM_WORLD, pme_only_ ? 1 : 0, rank, pme_only_ ? &pme_comm_ : &pp_comm_);
}

DdContext::~DdContext() {
    if (pp_comm_ != MPI_COMM_NULL) MPI_Comm_free(&pp_comm_);
    if (pme_comm_ != MPI_COMM_NULL) MPI_Comm_free(&pme_comm_);
}

void DdContext::serve_pme() const {
    PmeRankSetup setup;
    setup.box = system_.box;
    setup.grid = {config_.pme_grid[0], config_.pme_grid[1], config_.pme_grid[2]};
    setup.order = config_.pme_order;
    setup.beta = config_.ewald_beta;
    setup.epsilon_r = system_.epsilon_r;
    setup.threads = config_.threads;
    setup.simd = config_.simd;
    setup.n_pp_ranks = layout_.pp_ranks();
    run_pme_rank(MPI_COMM_WORLD, pme_comm_, setup);
}

std::unique_ptr<MeshSolver> DdContext::make_mesh() const {
    if (!config_.pme) return nullptr;
    // Separate PME ranks: the PP ranks send coordinates to them and wait for forces.
    if (layout_.npme > 0) return std::make_unique<PmeRankMesh>(MPI_COMM_WORLD, layout_.npme);
    const PmeGrid grid{config_.pme_grid[0], config_.pme_grid[1], config_.pme_grid[2]};
    // The PP ranks share the mesh in x-slabs; with more ranks than x or y planes the
    // slabs cannot be cut, and every rank runs the whole mesh instead.
    if (layout_.pp_ranks() <= std::min(grid.nx, grid.ny))
        return std::make_unique<ParallelPmeMesh>(pp_comm_, system_.box, grid, config_.pme_order, config_.ewald_beta,
                                                 system_.epsilon_r, config_.threads, config_.simd);
    return std::make_unique<ReplicatedMesh>(system_.box, grid, config_.pme_order, config_.ewald_beta, system_.epsilon_r,
                                            config_.threads, config_.simd, pp_comm_);
}

}  // namespace mdcore
