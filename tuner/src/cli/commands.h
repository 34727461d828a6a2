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

// The mdcore executable next to this one, or "mdcore" on PATH.
std::string default_mdcore_path();

}  // namespace mdtune::cli
