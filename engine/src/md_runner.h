#pragma once
// The MD pipeline on sorted cluster order: search (grid + outer list), pruning to
// the inner list, nonbonded forces, leap-frog update. Internal to libmdcore; tests
// use it to inspect lists and forces step by step.
#include <memory>

#include "integrate/leapfrog.h"
#include "mdcore/run_report.h"
#include "mdcore/system.h"
#include "nonbonded/nonbonded_force.h"
#include "pairlist/cluster_grid.h"
#include "pairlist/cluster_pair_search.h"
#include "pairlist/pair_list.h"

namespace mdcore {

class MdRunner {
public:
    MdRunner(System& system, const EffectiveConfig& config);

    // Wraps positions into the box, re-sorts the state onto a new grid and builds
    // the outer list (and the inner one by pruning when dual lists are on).
    void search();
    void prune();
    // Forces at the current positions into state().fx/fy/fz.
    NonbondedEnergies compute_forces(EnergyOutput energy);
    // Writes positions and velocities back to the System in input order.
    void scatter_to_system();
    // Forces in input order (after compute_forces).
    std::vector<Vec3> forces_in_input_order() const;

    SortedState& state() { return state_; }
    const PairList& outer_list() const { return outer_; }
    const PairList& inner_list() const { return dual_ ? inner_ : outer_; }
    const ClusterGrid& grid() const { return grid_; }
    bool dual_list() const { return dual_; }

private:
    void update_float_coordinates();

    System& system_;
    EffectiveConfig config_;
    bool dual_;
    ClusterGrid grid_;
    PairList outer_, inner_;
    PairSearchWork search_work_;
    NonbondedForce nonbonded_;
    SortedState state_;
    std::vector<int> order_;
};

}  // namespace mdcore
