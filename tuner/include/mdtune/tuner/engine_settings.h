#pragma once
// Which engine a space's trials run ([engine] name, program) and the tunables
// each engine has; the engine itself is mdtune/tuner/engine.h.
#include <optional>
#include <string>
#include <string_view>

#include "mdtune/core/params.h"

namespace mdtune::tuner {

enum class EngineKind { Mdcore, Gromacs };
std::string_view engine_name(EngineKind kind);
std::optional<EngineKind> parse_engine_name(std::string_view name);
inline constexpr const char* kEngineNames = "mdcore, gromacs";

// [engine] of a space.
struct EngineSettings {
    EngineKind kind = EngineKind::Mdcore;
    std::string program;     // "" = the engine's default: mdcore beside mdtune, `gmx`
    int grompp_maxwarn = 0;  // GROMACS: grompp -maxwarn (a net charge warns, for one)
};

// True when the engine has the tunable. mdcore has every tunable of the table.
bool engine_has_tunable(EngineKind kind, Param p);
// The tunables an engine has, for messages: "threads, ranks, ...".
std::string engine_tunable_names(EngineKind kind);

}  // namespace mdtune::tuner
