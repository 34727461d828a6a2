#pragma once
// Reading a GROMACS box (.gro + a strict .top subset, and its .mdp) into a System:
// the public entry point mdcore run --gro/--top/--mdp uses and mdtune reads a
// user's system with.
#include <array>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "mdcore/run_config.h"
#include "mdcore/system.h"
#include "mdcore/tunables.h"

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

// A .mdp's PME settings: tunables, so a run's own value (a flag, a tuner's config)
// wins over each.
struct MdpPmeSettings {
    std::optional<double> spacing;           // fourierspacing, nm
    std::optional<int> order;                // pme-order
    std::optional<std::array<int, 3>> grid;  // fourier-nx/ny/nz

    // Sets each on `config` unless `given` says the run sets that tunable itself; a
    // grid also yields to a given spacing (the grid would override it). Returns the
    // tunables set.
    std::vector<Tunable> apply(RunConfig& config, const std::function<bool(Tunable)>& given) const;
};

// A .gro/.top/.mdp as `mdcore run --gro --top --mdp` reads them, before its flags.
struct GromacsRunInput {
    // The .top read with the .mdp's include, define and constraints; mdcore run's
    // physical settings for a file system with the .mdp's over them (dt, rc, ref-t,
    // verlet-buffer-tolerance, ewald-rtol, epsilon-r, lincs-*, comm-mode).
    System system;
    MdpPmeSettings pme;
    // RunControl{} with the .mdp's nsteps, tcoupl, tau-t, nstcalcenergy and ld-seed.
    RunControl control;
};

// `mdp` empty: no .mdp. `include_dirs` are searched before the .mdp's include
// (mdcore run's --include). Throws InputError naming FILE:LINE for a refused .mdp
// (mdcore run's own messages) and as read_gromacs_system does for the .gro/.top.
GromacsRunInput read_gromacs_run_input(const std::string& gro_path, const std::string& top_path,
                                       const std::string& mdp_path = "",
                                       const std::vector<std::string>& include_dirs = {});

}  // namespace mdcore
