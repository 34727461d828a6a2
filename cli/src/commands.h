#pragma once
// mdtune subcommands on CLI11. Each add_*_command registers its subcommand, its
// flags and a callback that runs it and sets `exit_code`. Bad input throws
// InputError (one line naming the flag, exit 2); runtime failures throw others.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "mdtune/core/hardware.h"
#include "mdtune/tuner/space.h"

namespace mdtune::cli {

using Args = std::vector<std::string>;

void add_sweep_command(CLI::App& app, int& exit_code);
void add_show_command(CLI::App& app, int& exit_code);
// after_double_dash: the words after `--` (mdtune sweep options of submit --mpi).
void add_submit_command(CLI::App& app, int& exit_code, const Args& after_double_dash);  // submit_command.cpp
void add_status_command(CLI::App& app, int& exit_code);
void add_db_command(CLI::App& app, int& exit_code);
void add_hw_command(CLI::App& app, int& exit_code);
void add_model_commands(CLI::App& app, int& exit_code);  // fit, predict, compare: model_commands.cpp
void add_tune_command(CLI::App& app, int& exit_code);    // tune_command.cpp
void add_bench_command(CLI::App& app, int& exit_code);   // performance regression: bench_command.cpp

void add_mpi_command(CLI::App& app, int& exit_code);    // MPI collective tuning: mpi_command.cpp

// The mdcore executable next to this one, or "mdcore" on PATH.
std::string default_mdcore_path();
// This mdtune executable's absolute path (for batch scripts).
std::string self_executable();
// What this machine offers to the space's constraints.
HardwareCaps machine_caps(const HardwareInfo& hw);

}  // namespace mdtune::cli
