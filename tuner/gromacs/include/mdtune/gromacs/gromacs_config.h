#pragma once
// How a config of the shared tunables becomes a GROMACS run: the .mdp settings
// grompp needs (cut-off and PME grid), the `gmx mdrun` flags (ranks, threads, PME
// ranks, DD grid, nstlist, offload), and the static rules GROMACS imposes on them.
// GROMACS has the tunables whose meaning it shares with mdcore; mdcore's own
// (cluster shape, SIMD level, list radius, prune interval) are not GROMACS knobs.
#include <string>
#include <string_view>
#include <vector>

#include "mdtune/core/config.h"
#include "mdtune/gromacs/gmx_build.h"
#include "mdtune/gromacs/mdp_edit.h"

namespace mdtune::gromacs {

// True when GROMACS has the tunable (mdrun or grompp takes it).
bool has_tunable(Param p);
// "threads, ranks, ...": the names GROMACS takes, for messages.
std::string tunable_names();

// The .mdp settings a config changes (empty: the system's .mdp as it is).
// pme_scale scales rcoulomb and the Fourier spacing together at constant
// ewald-rtol, as `gmx tune_pme` does; the base values come from `mdp`.
MdpSettings grompp_settings(const Config& config, std::string_view mdp);

// The mdrun flags of a config. With a thread-MPI build the ranks are -ntmpi;
// with an MPI build mpirun/srun starts them and no rank flag is given.
std::vector<std::string> mdrun_flags(const Config& config, bool thread_mpi);

// Why GROMACS cannot run this config with this build, or "" (checked before
// anything runs, beside the machine's limits).
std::string infeasible_reason(const Config& config, const GmxBuild& build, std::string_view mdp);

}  // namespace mdtune::gromacs
