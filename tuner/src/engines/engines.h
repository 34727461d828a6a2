#pragma once
// The engines' factories (engine.cpp picks one).
#include <memory>

#include "mdtune/gromacs/gmx_build.h"
#include "mdtune/tuner/engine.h"

namespace mdtune::tuner {

std::unique_ptr<Engine> make_mdcore_engine(const std::string& mdcore_path);
std::unique_ptr<Engine> make_gromacs_engine(const EngineSettings& settings);

// GROMACS trials: grompp once per distinct input (cached by content), then
// `gmx mdrun` in a scratch folder, md.log read into the report.
struct GromacsRunSettings {
    std::string program;         // resolved path of gmx / gmx_mpi
    gromacs::GmxBuild build;
    int grompp_maxwarn = 0;
    std::string cache_dir;       // prepared .tpr files, by content digest
    LaunchPolicy launch;
};
std::unique_ptr<Runner> make_gromacs_runner(GromacsRunSettings settings);

}  // namespace mdtune::tuner
