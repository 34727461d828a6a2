#include <stdexcept>

#include "mdcore/generators.h"

namespace mdcore {

System make_named_system(const std::string& kind, long natoms, std::uint64_t seed, int threads) {
    if (kind == "lj" || kind == "argon" || kind == "lammps-lj") {
        LjFluidSpec spec = kind == "lj" ? lj_spec() : kind == "argon" ? argon_spec() : lammps_lj_spec();
        spec.natoms = natoms;
        spec.seed = seed;
        return make_lj_fluid(spec, kind.c_str());
    }
    if (kind == "water" || kind == "water-ions") {
        WaterSpec spec;
        spec.nwater = natoms / 3;
        spec.nacl_molar = kind == "water-ions" ? 0.15 : 0.0;
        spec.seed = seed;
        spec.threads = threads;
        return make_water_system(spec);
    }
    throw std::invalid_argument("unknown system kind '" + kind + "' (lj, argon, lammps-lj, water, water-ions)");
}

}  // namespace mdcore
