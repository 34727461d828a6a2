#include "pairlist/buffer_setup.h"


namespace mdcore {

VerletBufferParams verlet_buffer_params(const SystemSummary& system, ClusterShape shape, double rc, double ewald_beta) {
    VerletBufferParams p;
    // Atoms with equal mass, type and charge move and interact alike: one class.
    for (const AtomClass& a : system.classes) {
        BufferAtomClass c;
        c.mass = a.mass;
        c.lj_type = a.lj_type;
        c.charge = a.charge;
        c.count = a.count;
        c.constraint_mass = a.constraint_mass;
        c.constraint_length = a.constraint_length;
        p.classes.push_back(c);
    }
    p.num_lj_types = system.lj.ntypes;
    p.c6 = system.lj.c6;
    p.c12 = system.lj.c12;
    p.volume = system.box.volume();
    p.temperature = system.temperature;
    p.dt = system.dt;
    p.rc = rc;
    p.ewald_beta = ewald_beta;
    p.vdw_modifier = system.vdw_modifier;
    p.rvdw_switch = system.rvdw_switch;
    p.coulomb_type = system.coulomb_type;
    p.epsilon_rf = system.epsilon_rf;
    p.epsilon_r = system.epsilon_r;
    p.drift_tolerance = system.drift_tolerance;
    p.cluster_i = cluster_i_size(shape);
    p.cluster_j = cluster_j_size(shape);
    return p;
}

}  // namespace mdcore
