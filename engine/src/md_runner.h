#pragma once
// The MD pipeline on sorted cluster order: search (grid + outer list), pruning to
// the inner list, nonbonded forces, PME, leap-frog update with SETTLE. Internal to
// libmdcore; tests use it to inspect lists and forces step by step.
#include <array>
#include <functional>
#include <memory>

#include "bonded/bonded_force.h"
#include "constraints/lincs.h"
#include "gpu/gpu_device.h"
#include "gpu/gpu_nonbonded.h"
#include "gpu/gpu_pme.h"
#include "gpu/gpu_update.h"
#include "integrate/leapfrog.h"
#include "integrate/settle.h"
#include "integrate/settle_update.h"
#include "mdcore/run_report.h"
#include "mdcore/system.h"
#include "nonbonded/nonbonded_force.h"
#include "pairlist/cluster_grid.h"
#include "pairlist/cluster_pair_search.h"
#include "pairlist/pair_list.h"
#include "pme/pme.h"
#include "timing/thread_waits.h"

namespace mdcore {

struct ForceEnergies {
    double lj = 0.0;
    double coulomb_sr = 0.0;     // real space + exclusion corrections + self term
    double coulomb_recip = 0.0;  // mesh + net-charge background
    double pairs_in_cutoff = 0.0;
    BondedEnergies bonded;       // bonds, angles, dihedrals, 1-4 pairs, CMAP, restraints
    double potential() const { return lj + coulomb_sr + coulomb_recip + bonded.total(); }
};

// The constant Coulomb terms (GROMACS' convention): the self energy goes with the
// short-range Coulomb (Ewald -beta/sqrt(pi) f q^2, reaction field -c_rf/2 f q^2
// per atom), PME's neutralising background with the mesh.
struct CoulombConstants {
    double self = 0.0;
    double charged = 0.0;
};
CoulombConstants coulomb_constants(const System& system, const EffectiveConfig& config);

// The nonbonded kernels' interaction form of a config.
NonbondedModifiers nonbonded_modifiers(const EffectiveConfig& config);

class MdRunner {
public:
    // coulomb_constants false: the caller adds them (a rank's local System also
    // holds halo atoms).
    MdRunner(System& system, const EffectiveConfig& config, bool coulomb_constants = true);

    // Wraps positions into the box, re-sorts the state onto a new grid and builds
    // the outer list (and the inner one by pruning when dual lists are on).
    void search();
    void prune();
    // Makes the next search() read positions and velocities from the System
    // instead of the current state (the System's atoms were replaced).
    void discard_state() {
        order_.clear();
        settle_role_.clear();
    }
    // Chooses the grid's x/y columns on `whole` (the rule of the first search) for
    // every later search. A decomposed rank's atoms fill part of the box only, so
    // the rule on them would see a lower density and make wider, flatter clusters.
    void choose_grid_columns_for(const System& whole);
    // The eighth-shell zone of each atom of the System, for the grid (ClusterGrid::set_zones).
    void set_atom_zones(std::vector<std::uint8_t> zones) { grid_.set_zones(std::move(zones)); }
    // Called on the outer list right after each search, before pruning (domain
    // decomposition keeps only the pairs its rank computes).
    void set_list_filter(std::function<void(const ClusterGrid&, PairList&)> filter) { list_filter_ = std::move(filter); }
    // Nonbonded forces at the current positions into state().fx/fy/fz (overwritten).
    // With --nb gpu the forces are zeroed and the GPU task only launched: the
    // caller does CPU work (PME) and then finish_nonbonded() adds the GPU's part.
    ForceEnergies compute_nonbonded(EnergyOutput energy);
    // Waits for the GPU tasks (nonbonded, PME) and adds their forces and energies
    // (no-op on the CPU path).
    void finish_nonbonded(ForceEnergies& energies);
    // Adds the PME mesh forces; returns the reciprocal energy (0 without charges).
    // With --pme gpu it launches the GPU PME and returns the constant net-charge
    // term only: finish_nonbonded() adds the mesh forces and energy.
    double compute_pme(EnergyOutput energy);
    // Adds the bonded forces (bonds, angles, dihedrals, 1-4 pairs, ...); zero
    // energies for a system without them.
    BondedEnergies compute_bonded(EnergyOutput energy);
    // All of the above.
    ForceEnergies compute_forces(EnergyOutput energy);
    // Leap-frog with velocity scaling lambda, then SETTLE, fused in one pass that
    // also refreshes the kernels' float coordinates, then LINCS on the distance
    // constraints; returns 2 * kinetic energy.
    double update(double dt, double lambda);
    // 2 * kinetic energy of the current velocities: the last update's sum while
    // nothing else touched the state, else computed.
    double twice_kinetic_energy();
    // Writes positions and velocities back to the System in input order.
    void scatter_to_system();
    // Atom pairs the kernel evaluates per step (inner list) and in the outer list.
    double list_pairs() const { return inner_list().atom_pairs(); }
    double outer_list_pairs() const { return outer_.atom_pairs(); }
    // Forces in input order (after compute_forces).
    std::vector<Vec3> forces_in_input_order() const;

    // Mutable access: the caller may change positions or velocities, so the float
    // coordinates and the cached kinetic energy are recomputed when next needed.
    SortedState& state() {
        floats_current_ = false;
        twice_ke_valid_ = false;
        return state_;
    }
    const SortedState& state() const { return state_; }
    const PairList& outer_list() const { return outer_; }
    const PairList& inner_list() const { return dual_ ? inner_ : outer_; }
    const ClusterGrid& grid() const { return grid_; }
    bool dual_list() const { return dual_; }
    const Pme* pme() const { return pme_.get(); }
    // The GPU nonbonded task (--nb gpu), else null.
    const GpuNonbonded* gpu_nonbonded() const { return gpu_nb_.get(); }
    GpuNonbonded* gpu_nonbonded() { return gpu_nb_.get(); }
    const GpuPme* gpu_pme() const { return gpu_pme_.get(); }
    GpuPme* gpu_pme() { return gpu_pme_.get(); }
    // The GPU update (--update gpu), else null.
    const GpuUpdate* gpu_update() const { return gpu_update_.get(); }
    GpuUpdate* gpu_update() { return gpu_update_.get(); }
    // With --update gpu: brings the device's positions and velocities into state()
    // (a no-op when the host's copy is current, and without a GPU update).
    void sync_state_from_gpu();
    const GpuDevice& gpu_device() const { return gpu_device_; }
    double max_constraint_deviation() const;
    // The last LINCS step's result (deviations, rotation warnings); empty without LINCS.
    const LincsResult& lincs_result() const { return lincs_result_; }
    // Barrier waits per thread of the nonbonded, PME spread/gather and SETTLE tasks.
    ThreadWaits& thread_waits() { return waits_; }
    // The nonbonded task, PME's spread and gather, and the update split their work
    // by the threads' measured speeds (util/thread_balance.h) when on.
    void set_thread_balance(bool on);
    const EffectiveConfig& config() const { return config_; }
    // False when any force component is NaN or infinite (an O(N) sum; run() checks every step).
    bool forces_finite() const;

private:
    void update_float_coordinates();
    FloatCoordinates float_coordinates();

    System& system_;
    EffectiveConfig config_;
    bool dual_;
    ClusterGrid grid_;
    // x/y grid columns, chosen at the first search (the fewest list lanes among
    // the rules' candidates, pairlist/grid_columns.h); {0, 0} until then.
    std::array<int, 2> grid_columns_{0, 0};
    PairList outer_, inner_;
    PairSearchWork search_work_;
    NonbondedForce nonbonded_;
    std::unique_ptr<Pme> pme_;
    std::unique_ptr<BondedForce> bonded_;  // null without bonded interactions
    std::unique_ptr<Lincs> lincs_;         // null without distance constraints
    LincsResult lincs_result_;
    GpuDevice gpu_device_;
    std::unique_ptr<GpuNonbonded, void (*)(GpuNonbonded*)> gpu_nb_;
    std::unique_ptr<GpuPme, void (*)(GpuPme*)> gpu_pme_;
    std::unique_ptr<GpuUpdate, void (*)(GpuUpdate*)> gpu_update_;
    double self_energy_ = 0.0;
    double charged_energy_ = 0.0;
    SortedState state_;
    AlignedVector<double> charge_;  // per slot
    std::vector<int> order_;
    SettleParameters settle_params_;
    std::vector<int> settle_role_;   // per atom (settle_update.h), rebuilt when the System's atoms change
    SettleUpdateList settle_list_;   // slot indices, rebuilt at each search
    ThreadShares update_shares_;  // the molecules of leapfrog_settle_update per thread
    bool floats_current_ = false;    // nonbonded_ x/y/z match state_ (every slot)
    bool twice_ke_valid_ = false;
    double twice_ke_ = 0.0;
    std::function<void(const ClusterGrid&, PairList&)> list_filter_;
    ThreadWaits waits_;
};

// SETTLE parameters shared by all of a system's rigid molecules; throws when they differ.
SettleParameters settle_parameters(const System& system);

}  // namespace mdcore
