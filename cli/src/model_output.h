#pragma once
// Text shared by the model commands' output (fit, predict, tune, compare).
#include <cstdio>
#include <optional>
#include <string>

#include "mdcore/engine.h"
#include "mdtune/core/config.h"
#include "mdtune/core/format_number.h"
#include "mdtune/models/features.h"
#include "mdtune/models/model.h"
#include "mdtune/models/predictor.h"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace mdtune::cli {

std::string pct(double v);  // "12.3 %"
std::string config_text(const std::string& canonical);  // "(defaults)" for the empty config
std::string config_text(const Config& c);

// The GROMACS .mdp settings and mdrun line matching an effective config.
void print_gromacs(const models::SystemFeatures& sys, const mdcore::EffectiveConfig& eff, const char* indent);

// --system KIND --natoms N, as every model command registers them.
struct SystemFlags {
    std::string kind;
    long natoms = 0;
    CLI::Option* natoms_option = nullptr;
    std::string space;  // --space SPACE.toml: candidates restricted to its [space]
    std::string gro, top;  // a user's box instead of --system/--natoms
    std::string topol;     // --topol, the former name of --top
    std::string mdp;       // and the .mdp it runs with
    // The generated system, or the user's box read from --gro/--top (and --mdp)
    // with mdcore's reader (errors name the file and line); InputError naming the flag.
    SystemDescriptor checked() const;
    // The default grid, or with --space exactly the space's configs (InputError
    // naming the file for a bad or too large space).
    models::CandidateGrid candidates() const;
};
void add_system_flags(CLI::App& cmd, SystemFlags& flags);

// --model KIND (with auto when allowed): nullopt for auto.
void add_model_flag(CLI::App& cmd, std::string& value, bool allow_auto);
std::optional<models::ModelKind> model_kind(const std::string& value);

}  // namespace mdtune::cli
