#pragma once
// Reading and changing a GROMACS .mdp as text, as grompp reads it: "key = value",
// ';' starts a comment, '-' and '_' in keys are the same character.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mdtune::gromacs {

using MdpSettings = std::vector<std::pair<std::string, std::string>>;

// The value the .mdp gives `key` (the last one, as text), or nullopt.
std::optional<std::string> mdp_value(std::string_view mdp, std::string_view key);

// The .mdp with `settings` applied: every line setting one of their keys is
// commented out (grompp refuses a key set twice), then the settings appended.
std::string apply_mdp_settings(std::string_view mdp, const MdpSettings& settings);

}  // namespace mdtune::gromacs
