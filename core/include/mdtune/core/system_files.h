#pragma once
// A user's own system: a GROMACS .gro + .top read with mdcore's reader (the same
// strict .top subset and errors as mdcore run --gro/--top), described for sweeps,
// predictions and tuning like a generated box: atoms, box, density, charges and
// constraints from the files (its summary, mdtune/core/feasibility.h), keyed by a
// digest of the two files' contents.
#include <string>

#include "mdtune/core/trial.h"

namespace mdtune::inline core {

// Reads both files once and remembers the system's summary for this process.
// Throws mdtune::InputError naming the file (and line and directive, from mdcore's
// reader) for a missing file, malformed or unsupported content. Files #included by
// the .top are read but not part of the digest.
SystemDescriptor describe_system_files(const std::string& gro, const std::string& top);

}  // namespace mdtune::core
