#pragma once
// Reading a GROMACS box (.gro + a strict .top subset) into a System: the public
// entry point mdcore run --gro/--top uses and mdtune reads a user's system with.
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "mdcore/system.h"

namespace mdcore {

// Thrown for malformed or unsupported input; what() names file, line and directive.
struct InputError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Which bonds become distance constraints (the .mdp's `constraints`).
enum class ConstraintMode { None, HBonds, AllBonds };

// How a .top is read: the preprocessor's include path and defines (grompp's -I and
// -D, the .mdp's `include` and `define`), and which bonds are constrained.
struct TopologyOptions {
    std::vector<std::string> include_dirs;                     // searched after the including file's folder
    std::vector<std::pair<std::string, std::string>> defines;  // name, value ("" for a bare -DNAME)
    ConstraintMode constraints = ConstraintMode::None;
};

// Builds a System from a .gro and a .top as grompp reads them: the preprocessor
// (#include searched in the including file's folder, options.include_dirs, GMXLIB,
// GMXDATA/top and /usr/share/gromacs/top; #define, #ifdef and friends), the force
// field's type directives with grompp's matching rules, and per molecule [ atoms ],
// [ bonds ], [ pairs ], [ angles ], [ dihedrals ], [ cmap ], [ constraints ],
// [ position_restraints ], [ settles ] and [ exclusions ] (exclusions generated to
// nrexcl bonds). Anything mdcore cannot simulate (virtual sites, free-energy
// B states, other function types) is an InputError naming the file, line and
// include chain. Atom names/count in the .gro must match the topology. Bonds
// become LINCS constraints as options.constraints says; removed_dof counts them,
// the SETTLEs and the centre of mass. Physical settings keep System's defaults.
System read_gromacs_system(const std::string& gro_path, const std::string& top_path,
                          const TopologyOptions& options = {});

}  // namespace mdcore
