#pragma once
// Reading a GROMACS box (.gro + a strict .top subset) into a System: the public
// entry point mdcore run --gro/--top uses and mdtune reads a user's system with.
#include <stdexcept>
#include <string>

#include "mdcore/system.h"

namespace mdcore {

// Thrown for malformed or unsupported input; what() names file, line and directive.
struct InputError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Builds a System from a .gro and a .top. Supported .top subset: [ defaults ]
// (nbfunc 1, comb-rule 1, 2, 3), [ atomtypes ], [ moleculetype ], [ atoms ],
// [ settles ], [ exclusions ], [ system ], [ molecules ], ';' comments and
// #include "file" relative to the including file. Anything else is an InputError
// naming the file, line and directive. Atom names/count in the .gro must match
// the topology. Fills types (one per atomtype used), charges, masses, symmetric
// exclusions (all intramolecular pairs of a settled molecule plus [ exclusions ]),
// settles (d_oh, d_hh from the directive), removed_dof = 3 + 3 * settles.
// Physical settings (rc 1.0 nm, dt 0.002 ps, 300 K, ...) keep System's defaults,
// which are mdcore run's for a file system; the caller may set them.
System read_gromacs_system(const std::string& gro_path, const std::string& top_path);

}  // namespace mdcore
