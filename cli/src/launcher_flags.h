#pragma once
// The launcher prefix of `mdtune sweep`: --launcher "mpirun -np 2 -x 'A=b c'" (split
// like a shell would, never run by one) followed by each --launcher-arg ARG, verbatim.
#include <optional>
#include <string>
#include <vector>

namespace mdtune::cli {

// The launcher words: --launcher split (InputError naming the flag on an
// unbalanced quote), then the --launcher-arg values.
std::vector<std::string> launcher_words(const std::optional<std::string>& launcher,
                                        const std::vector<std::string>& launcher_args);

}  // namespace mdtune::cli
