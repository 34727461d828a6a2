#pragma once
// A user's own system: a GROMACS .gro + .top, and optionally the .mdp it is run
// with, read with mdcore's reader (the same strict .top subset, .mdp rules and
// errors as mdcore run --gro/--top/--mdp), described for sweeps, predictions and
// tuning like a generated box: atoms, box, density, charges, constraints and
// physical settings from the files (its summary, mdtune/core/feasibility.h), keyed
// by a digest of the files' contents.
#include <string>

#include "mdtune/core/trial.h"

namespace mdtune::inline core {

// Reads the files once and remembers the system's summary (and the .mdp's PME
// settings, system_run_config) for this process. Throws mdtune::InputError naming
// the file (and line and directive or key, from mdcore's reader) for a missing
// file, malformed, refused or unsupported content. Files #included by the .top
// are read but not part of the digest; without an .mdp the digest is the one the
// .gro and .top had before .mdp files were taken.
SystemDescriptor describe_system_files(const std::string& gro, const std::string& top, const std::string& mdp = "");

}  // namespace mdtune::core
