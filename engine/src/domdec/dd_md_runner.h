#pragma once
// MdRunner over a spatial domain decomposition: the same steps the engine's
// loop drives on one rank (search, prune, forces, update), each a collective
// over the PP ranks. A rank runs the unchanged MdRunner on its local System
// (home atoms, then halo atoms that are massless copies); around it this class
// repartitions at searches, exchanges the halo every step, runs the mesh on
// home atoms and reduces energies, the kinetic energy and checks.
#include <mpi.h>

#include <chrono>
#include <memory>

#include "domdec/dd_cell.h"
#include "domdec/dd_layout.h"
#include "domdec/dd_load_balance.h"
#include "domdec/halo_exchange.h"
#include "domdec/local_atoms.h"
#include "domdec/mesh_solver.h"
#include "domdec/pme_rank_mesh.h"
#include "md_runner.h"
#include "mdcore/run_report.h"

namespace mdcore {

class DdMdRunner {
public:
    // `global`: the whole system, identical on every PP rank (positions and
    // velocities are read at the first search and written by scatter_to_system).
    DdMdRunner(System& global, const EffectiveConfig& config, const DdLayout& layout, MPI_Comm pp_comm,
               std::unique_ptr<MeshSolver> mesh);

    void search();
    void prune();
    ForceEnergies compute_nonbonded(EnergyOutput energy);
    double compute_pme(EnergyOutput energy);
    void finish_nonbonded(ForceEnergies&) {}  // the nonbonded forces are complete after compute_nonbonded
    ForceEnergies compute_forces(EnergyOutput energy);
    double update(double dt, double lambda);
    double twice_kinetic_energy();
    // All ranks' home atoms back into the global System, on every rank.
    void scatter_to_system();
    std::vector<Vec3> forces_in_input_order() const;
    bool dual_list() const { return md_.dual_list(); }
    const Pme* pme() const { return nullptr; }  // the mesh is the MeshSolver's:
    // its stage times on this rank (the report's pme_* tasks; the exchanges are in "other").
    PmeStageTimes mesh_stage_times() const { return mesh_ ? mesh_->stage_times() : PmeStageTimes{}; }
    double max_constraint_deviation() const;
    bool forces_finite() const;
    double list_pairs() const { return list_pairs_; }
    double outer_list_pairs() const { return outer_pairs_; }

    // Dynamic load balancing of the cell boundaries at searches (dd_load_balance.h).
    void set_dlb(DlbMode mode);
    void set_timing(bool on) { timing_ = on; }
    void reset_timing() { times_ = {}; }
    // Per-rank force times, atoms and the communication shares (collective).
    ParallelStats parallel_stats() const;

    const LocalAtoms& local_atoms() const { return local_; }
    const DdCell& cell() const { return cell_; }

private:
    struct Times {
        double force = 0, halo_x = 0, halo_f = 0, mesh = 0, reductions = 0, wait = 0;
    };
    using Clock = std::chrono::steady_clock;
    HomeGroups current_home_groups();
    void exchange_halo_coordinates();
    void return_halo_forces();
    void check_partition() const;
    void count_list_pairs();
    double allreduce_sum(double v) const;
    void add_time(double Times::*field, Clock::time_point since);
    void gather_mesh_input();
    void balance_cells();
    std::string dlb_summary() const;

    System& global_;
    EffectiveConfig config_;
    DdLayout layout_;
    MPI_Comm comm_;
    DdCell cell_;
    UpdateGroups groups_;
    std::vector<int> settle_of_atom_;
    std::vector<int> global_to_local_;
    System local_system_;
    MdRunner md_;
    std::unique_ptr<MeshSolver> mesh_;
    HaloExchange halo_;
    LocalAtoms local_;
    LocalAtomZones zones_;
    bool zone_filter_needed_ = true;  // zone_filter_needed() at the last search
    std::vector<int> slot_of_;  // per local atom
    std::vector<double> x_flat_;
    std::vector<float> f_flat_;
    std::vector<double> mesh_x_, mesh_y_, mesh_z_, mesh_q_;
    std::vector<float> mesh_fx_, mesh_fy_, mesh_fz_;
    PmeRankMesh* pme_ranks_ = nullptr;  // mesh_ when PME-only ranks compute it (--npme K)
    bool mesh_started_ = false;         // coordinates sent to the PME ranks this step
    bool searched_ = false;
    bool halo_current_ = false;
    bool ke_valid_ = false;
    double twice_ke_ = 0;
    double self_energy_ = 0, charged_energy_ = 0;
    double list_pairs_ = 0, outer_pairs_ = 0;
    double total_charge_ = 0;
    bool timing_ = true;
    Times times_;
    DlbMode dlb_mode_ = DlbMode::No;
    bool dlb_on_ = false;
    long dlb_on_at_search_ = -1;  // auto: the search that turned it on
    long searches_ = 0;
    long dlb_steps_ = 0;  // steps since the imbalance was last judged
    double dlb_force_time_ = 0;  // force time since the last balancing, warm-up included
};

}  // namespace mdcore
