#pragma once
// mdtune subcommands. Each returns the process exit code; usage errors throw
// mdcore::cli::UsageError (exit 2).
#include <string>
#include <vector>

namespace mdtune::cli {

using Args = std::vector<std::string>;

int sweep_command(const Args& args);
int show_command(const Args& args);
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

}  // namespace mdtune::cli
