#pragma once
// Small systems for engine tests.
#include <cmath>
#include <random>

#include "mdcore/generators.h"
#include "mdcore/system.h"

namespace mdcore::testing {

// Argon-unit LJ fluid of natoms atoms (uneven counts allowed) at reduced density rho,
// lattice sites jittered by `jitter` nm.
inline System lj_system(long natoms, double rho = 0.8442, double jitter = 0.03, std::uint64_t seed = 7,
                        double temperature = 120.0) {
    LjFluidSpec spec = lj_spec();
    spec.natoms = natoms;
    spec.reduced_density = rho;
    spec.jitter = jitter;
    spec.seed = seed;
    spec.temperature = temperature;
    return make_lj_fluid(spec);
}

// Two LJ types combined with Lorentz-Berthelot, which the geometric kernels
// cannot express: exercises the table-gather kernels.
inline System two_type_lb_system(long natoms, std::uint64_t seed = 3) {
    System sys = lj_system(natoms, 0.8, 0.03, seed);
    AtomType a = sys.atom_types[0];
    AtomType b;
    b.name = "B";
    b.sigma = 0.30;
    b.epsilon = 0.5;
    b.c6 = 4 * b.epsilon * std::pow(b.sigma, 6);
    b.c12 = 4 * b.epsilon * std::pow(b.sigma, 12);
    sys.atom_types = {a, b};
    sys.lj = make_lj_matrix(sys.atom_types, CombinationRule::LorentzBerthelot);
    for (std::size_t i = 0; i < sys.natoms(); i += 3) sys.type[i] = 1;
    return sys;
}

// Squared minimum-image distance of atoms a and b.
inline double min_image_r2(const System& sys, int a, int b) {
    double r2 = 0;
    for (int k = 0; k < 3; ++k) {
        double d = sys.positions[a][k] - sys.positions[b][k];
        d -= sys.box.lengths[k] * std::round(d / sys.box.lengths[k]);
        r2 += d * d;
    }
    return r2;
}

}  // namespace mdcore::testing
