#pragma once
// The launcher prefix of `mdtune sweep`: --launcher "mpirun -np 2 -x 'A=b c'" (split
// like a shell would, never run by one) followed by each --launcher-arg ARG, verbatim.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"

namespace mdtune::cli {

// Removes every `--NAME VALUE` / `--NAME=VALUE` of a repeatable flag from args
// and returns the values in order. `takes_value` are the other flags (as for
// ArgMap), so a value that looks like the flag is not mistaken for it.
std::vector<std::string> take_repeated_flag(Args& args, const std::string& name,
                                            const std::map<std::string, bool>& takes_value);

// The launcher words: --launcher split (UsageError naming the flag on an
// unbalanced quote), then the --launcher-arg values.
std::vector<std::string> launcher_words(const std::optional<std::string>& launcher,
                                        const std::vector<std::string>& launcher_args);

}  // namespace mdtune::cli
