// Engine names, which tunables each has, and the factory.
#include "mdtune/tuner/engine.h"

#include "engines.h"
#include "mdtune/gromacs/gromacs_config.h"

namespace mdtune::tuner {

std::string_view engine_name(EngineKind kind) { return kind == EngineKind::Gromacs ? "gromacs" : "mdcore"; }

std::optional<EngineKind> parse_engine_name(std::string_view name) {
    if (name == "mdcore") return EngineKind::Mdcore;
    if (name == "gromacs") return EngineKind::Gromacs;
    return std::nullopt;
}

bool engine_has_tunable(EngineKind kind, Param p) { return kind == EngineKind::Mdcore || gromacs::has_tunable(p); }

std::string engine_tunable_names(EngineKind kind) {
    if (kind == EngineKind::Gromacs) return gromacs::tunable_names();
    std::string out;
    for (const ParamInfo& info : all_params()) out += (out.empty() ? "" : ", ") + std::string(info.name);
    return out;
}

std::unique_ptr<Engine> make_engine(const EngineSettings& settings, const std::string& default_mdcore) {
    if (settings.kind == EngineKind::Gromacs) return make_gromacs_engine(settings);
    return make_mdcore_engine(settings.program.empty() ? default_mdcore : settings.program);
}

}  // namespace mdtune::tuner
