#pragma once
// The tunables of a run, defined once. Each entry of tunables() says what a
// tunable is called (TOML spaces, the trial database, the report), its mdcore
// flag, its value kind and valid range or choices, the documented default, how a
// typed value is set on a RunConfig and how the value a run used is read back
// from its EffectiveConfig. mdcore's command line, the tuner's parameter
// registry and space checks, the models' config resolution and the predictor's
// candidate grid all derive from this table.
//
// Adding a tunable: a field in RunConfig (and EffectiveConfig), an entry here
// (enum + tunables.cpp), and the engine code that uses it: docs/developer/adding-a-tunable.md.
#include <array>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>

#include "mdcore/run_config.h"
#include "mdcore/run_report.h"

namespace mdcore {

// Table order is the order of the database's canonical config text: new
// tunables go at the end.
enum class Tunable {
    Cluster, Nstlist, Nstprune, Rlist, PmeScale, PmeSpacing, PmeOrder, Threads, Simd, PmeGrid,
    // Offload (GROMACS' -nb/-pme/-update, CUDA): where the nonbonded, PME and update tasks run, and the device.
    NbOffload, PmeOffload, UpdateOffload, GpuId,
    // Domain decomposition (mpirun -np N): the PP cell grid and the PME-only ranks.
    Dd, Npme,
    // The MPI ranks of the run (mpirun -np N): mdcore checks it, the tuner launches it.
    Ranks,
};

enum class TunableKind {
    Integer,  // long, within [min, max]
    Real,     // double, within (min, max] (min exclusive)
    Choice,   // one of `choices` (a typed enum: ClusterShape, SimdLevel, Offload)
    Grid,     // NXxNYxNZ, positive sizes
};

// A typed value of a tunable.
using TunableValue = std::variant<long, double, ClusterShape, SimdLevel, std::array<int, 3>, Offload>;

// Bad value: the message names the tunable by its flag or name, as the caller chose.
struct TunableError : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

struct TunableInfo {
    Tunable id;
    std::string_view name;         // "cluster", "pme_scale": TOML key, database column text
    std::string_view flag;         // "--cluster"
    TunableKind kind;
    std::string_view placeholder;  // usage text: "N", "NM", "4x4|4x8|8x4|1x1"
    double min = 0, max = 0;       // Integer: [min, max]; Real: (min, max]
    // The machine bounds the value further (threads: the cores a host has; a GPU
    // offload: a GPU); the feasibility check, not the value check, judges that.
    bool machine_bound = false;
    std::span<const std::string_view> choices;  // Choice: accepted text, in order
    std::string_view default_doc;  // the default and its heuristic, for usage and docs/user/tunables.md
    std::string_view help;         // one line for --help
    void (*set)(RunConfig&, const TunableValue&);
    TunableValue (*used)(const EffectiveConfig&);  // the value a run resolved to
    // "auto" is also accepted: a Grid reads it as 0x0x0, an Integer as -1
    // (format_tunable writes a 0x0x0 grid back as "auto").
    bool accepts_auto = false;
};

std::span<const TunableInfo> tunables();
const TunableInfo& tunable_info(Tunable t);
std::optional<Tunable> tunable_by_name(std::string_view name);

// Parses text as a user writes it ("4x8", "20", "1.2", "52x52x52") and checks
// the range; throws TunableError "<label>: <problem>" quoting the text as given.
// `label` defaults to the flag.
TunableValue parse_tunable(Tunable t, std::string_view text, std::string_view label = {});
// Checks a typed value's kind and range, the same rules parse_tunable applies;
// throws TunableError naming `label` (default: the flag).
void check_tunable(Tunable t, const TunableValue& value, std::string_view label = {});
// Canonical text: integers plain, reals %.6g, choices by name, grids NXxNYxNZ.
std::string format_tunable(const TunableValue& value);
// "4x4, 4x8, 8x4, 1x1": the accepted texts of a Choice tunable.
std::string tunable_choices(Tunable t);

// Sets a checked value on a config (check_tunable first).
void set_tunable(RunConfig& config, Tunable t, const TunableValue& value);

// mdcore's default cluster shape for a SIMD level on the CPU, for a system without
// charges: 8x4 with AVX-512 (two 16-lane registers per cluster pair), 4x4 otherwise
// (fastest per level on the in.lj benchmark).
ClusterShape default_cluster_shape(SimdLevel resolved);
// The default for a system: with charges (PME) and AVX-512, 4x8, GROMACS' 2xMM layout
// (a register holds two i-atoms, so the per-register LJ skip of hydrogen-only pairs
// applies more often; 16 % less nonbonded time than 8x4 on the water-24k box); with the
// nonbonded task on the GPU, 8x4 whatever the level (the GPU pair list is built from the
// 8x4 search; docs/user/gpu.md).
ClusterShape default_cluster_shape(SimdLevel resolved, Offload nb, bool charged);

}  // namespace mdcore
