#pragma once
// A search space is data: the systems to run, the parameters to sweep and the
// measurement settings, read from TOML with sections [system], [space], [measure]
// (a list means "sweep these values"). Constraints are checked before anything runs.
#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "mdtune/core/config.h"
#include "mdtune/core/feasibility.h"
#include "mdtune/core/trial.h"
#include "mdtune/tuner/engine_settings.h"

namespace mdtune::tuner {

// Bad space files: the message names the source, the key and the problem.
struct SpaceError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Counts and indices of space points are 64-bit; a space must stay below this.
inline constexpr std::uint64_t kMaxSpacePoints = std::uint64_t{1} << 63;

// One point of a space, decoded from its index: systems outermost, then configs.
struct SpacePoint {
    std::size_t system = 0;  // index into SearchSpace::systems
    Config config;
};

// Points found infeasible, counted by their reason (infeasible_reason's text).
struct InfeasibleTally {
    std::uint64_t examined = 0, dropped = 0;
    std::map<std::string, std::uint64_t> by_reason;  // at most kMaxReasons; the rest under "other reasons"
    bool complete = false;                            // every point of the space was examined
    static constexpr std::size_t kMaxReasons = 1000;
    void add(const std::string& reason);             // "" = feasible
    // "12 of 48 (system, config) points dropped as infeasible: threads = 4096 exceeds ... (12)";
    // "" when nothing was dropped.
    std::string summary(std::size_t max_reasons = 8) const;
};

// How trials are launched ([launch]). A trial's MPI ranks are its `ranks` tunable
// ([space] ranks = [1, 2, 4]): mpirun -np R, or srun --ntasks R inside Slurm.
// `ranks` here is the most any trial uses (the Slurm allocation's tasks).
struct LaunchSettings {
    int nodes = 1;
    int ranks = 1;
    bool oversubscribe = false;  // ranks x threads may exceed the cores (mpirun --oversubscribe)
};

struct SearchSpace {
    std::string source;   // file name (for messages)
    std::string text;     // the TOML as given
    std::vector<SystemDescriptor> systems;                         // [system]: kind x natoms list
    std::vector<std::pair<Param, std::vector<ParamValue>>> dims;   // [space], in file order
    MeasureSettings measure;                                       // [measure]
    LaunchSettings launch;                                         // [launch]
    EngineSettings engine;                                         // [engine]: mdcore unless named
    // The engine's own rules (Engine::infeasible_reason), set once its program is
    // identified; checked after the machine's limits.
    std::function<std::string(const SystemDescriptor&, const Config&)> engine_rules;

    // Cartesian product of dims (empty dims: one default config). Builds every
    // config: for small spaces; sweeps decode points by index instead.
    std::vector<Config> configs() const;
    // Product of the domain sizes, and systems x that, saturated at kMaxSpacePoints
    // (parse_space refuses such spaces). Nothing is materialised.
    std::uint64_t config_count() const;
    std::uint64_t size() const;
    // configs()[k] without building the others: mixed radix, last dim fastest.
    Config config_at(std::uint64_t k) const;
    // Point k of size(): system k / config_count(), config k % config_count().
    SpacePoint point_at(std::uint64_t k) const;
    // Why (system, config) can't run here, or "" when feasible: the one
    // feasibility check (mdtune/feasibility.h).
    std::string infeasible_reason(const SystemDescriptor& system, const Config& config, const HardwareCaps& hw) const;
};

// Parses and validates; throws SpaceError for malformed TOML (with line), unknown
// sections or keys, wrong value types, empty lists, an empty space, a space of
// kMaxSpacePoints points or more.
SearchSpace parse_space(const std::string& toml_text, const std::string& source);
SearchSpace load_space(const std::string& path);

}  // namespace mdtune::tuner
