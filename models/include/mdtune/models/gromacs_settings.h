#pragma once
// How a recommended config reads for the user: the `mdcore run` command line and
// the GROMACS settings that correspond (nstlist, cut-offs and Fourier spacing for
// a PME balance, threads), with notes where there is no counterpart.
#include <string>
#include <utility>
#include <vector>

#include "mdtune/models/features.h"

namespace mdtune::models {

struct GromacsSettings {
    std::vector<std::pair<std::string, std::string>> mdp;  // key = value lines
    std::string mdrun;                                     // gmx mdrun flags
    std::vector<std::string> notes;
};

GromacsSettings gromacs_settings(const SystemFeatures& sys, const mdcore::EffectiveConfig& eff);

// "mdcore run --system water --nwater 16000 --seed 1 --cluster 8x4 ..."
std::string mdcore_command(const SystemDescriptor& system, const Config& config);

}  // namespace mdtune::models
