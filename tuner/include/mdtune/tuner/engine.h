#pragma once
// The MD program a space's trials measure. An engine is what the tuner needs of
// a program: the tunables it has, its own feasibility rules, its identity (part of
// every trial key), a runner that launches one trial and reads its output into the
// typed report, and the command line a user runs a chosen config with. The rest of
// the tuner (rounds, verdicts, the store, fit/predict) sees only configs and reports.
// mdcore is the default engine; GROMACS (`gmx mdrun`, with grompp preparing each
// distinct input once) is the second. docs/developer/adding-an-engine.md says what
// a third one touches.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mdtune/core/feasibility.h"
#include "mdtune/tuner/engine_settings.h"
#include "mdtune/tuner/launch.h"
#include "mdtune/tuner/measurement_identity.h"
#include "mdtune/tuner/runner.h"

namespace mdtune::tuner {

class Engine {
public:
    virtual ~Engine() = default;
    virtual EngineKind kind() const = 0;
    // What trials measured with this program are keyed by (the binary, its build,
    // the launcher, the environment). Throws MdcoreNotFound (a usage error) when
    // the program cannot be found or is not the engine it should be.
    virtual MeasurementIdentity identity(const std::vector<std::string>& launcher, const char* const* envp) = 0;
    // Why (system, config) cannot run with this program, beyond the machine's
    // limits; "" when it can. identity() first.
    virtual std::string infeasible_reason(const SystemDescriptor& system, const Config& config) const = 0;
    // Launches trials (identity() first).
    virtual std::unique_ptr<Runner> runner(const LaunchPolicy& launch) const = 0;
    // The command a user runs the config with ("mdcore run ...", "gmx mdrun ...").
    virtual std::string command_line(const SystemDescriptor& system, const Config& config) const = 0;
};

// settings.program, or the default (default_mdcore for mdcore).
std::unique_ptr<Engine> make_engine(const EngineSettings& settings, const std::string& default_mdcore);

}  // namespace mdtune::tuner
