#pragma once
// mdtune subcommands. Each returns the process exit code; usage errors throw
// mdcore::cli::UsageError (exit 2).
#include <string>
#include <vector>

#include "mdtune/hardware.h"
#include "mdtune/space.h"

namespace mdtune::cli {

using Args = std::vector<std::string>;

int sweep_command(const Args& args);
int show_command(const Args& args);
int submit_command(const Args& args);    // Slurm job arrays: submit_command.cpp
int status_command(const Args& args);
int db_command(const Args& args);
int hw_command(const Args& args);
int fit_command(const Args& args);       // models: model_commands.cpp
int predict_command(const Args& args);
int tune_command(const Args& args);
int compare_command(const Args& args);
int bench_command(const Args& args);     // performance regression: bench_command.cpp
int mpi_command(const Args& args);       // MPI collective tuning: mpi_command.cpp

// The mdcore executable next to this one, or "mdcore" on PATH.
std::string default_mdcore_path();
// This mdtune executable's absolute path (for batch scripts).
std::string self_executable();
// What this machine offers to the space's constraints.
HardwareCaps machine_caps(const HardwareInfo& hw);

}  // namespace mdtune::cli
