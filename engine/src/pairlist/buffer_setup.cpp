#include "pairlist/buffer_setup.h"

#include <map>
#include <tuple>

namespace mdcore {

VerletBufferParams verlet_buffer_params(const System& system, ClusterShape shape, double rc, double ewald_beta) {
    VerletBufferParams p;
    // Atoms with equal mass, type and charge move and interact alike: one class.
    std::map<std::tuple<double, int, double>, double> counts;
    for (std::size_t a = 0; a < system.natoms(); ++a) counts[{system.mass[a], system.type[a], system.charge[a]}] += 1.0;
    for (const auto& [key, count] : counts) {
        BufferAtomClass c;
        c.mass = std::get<0>(key);
        c.lj_type = std::get<1>(key);
        c.charge = std::get<2>(key);
        c.count = count;
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
    p.epsilon_r = system.epsilon_r;
    p.drift_tolerance = system.drift_tolerance;
    p.cluster_i = cluster_i_size(shape);
    p.cluster_j = cluster_j_size(shape);
    return p;
}

}  // namespace mdcore
