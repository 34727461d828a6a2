#pragma once
// A search space is data: the systems to run, the parameters to sweep and the
// measurement settings, read from TOML with sections [system], [space], [measure]
// (a list means "sweep these values"). Constraints are checked before anything runs.
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "mdtune/config.h"
#include "mdtune/trial.h"

namespace mdtune {

// Bad space files: the message names the source, the key and the problem.
struct SpaceError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// What the machine offers, for constraints (GPU-only choices, thread counts).
struct HardwareCaps {
    int cores = 1;             // hardware threads usable
    bool has_gpu = false;
    std::vector<std::string> simd_levels;  // e.g. {"none","avx2","avx512"}
};

// How each trial is launched inside a Slurm allocation ([launch] nodes, ranks):
// `srun --nodes N --ntasks R mdcore ...`.
struct LaunchSettings {
    int nodes = 1;
    int ranks = 1;
};

struct SearchSpace {
    std::string source;   // file name (for messages)
    std::string text;     // the TOML as given
    std::vector<SystemDescriptor> systems;                         // [system]: kind x natoms list
    std::vector<std::pair<Param, std::vector<ParamValue>>> dims;   // [space], in file order
    MeasureSettings measure;                                       // [measure]
    LaunchSettings launch;                                         // [launch]

    // Cartesian product of dims (empty dims: one default config).
    std::vector<Config> configs() const;
    std::size_t size() const { return systems.size() * configs().size(); }
    // Why (system, config) can't run here, or "" when feasible: rc x pme_scale
    // below half the box, PME order 4-6, threads <= cores, SIMD levels the CPU has,
    // GPU-only choices only with a GPU, nstprune <= nstlist.
    std::string infeasible_reason(const SystemDescriptor& system, const Config& config, const HardwareCaps& hw) const;
};

// Parses and validates; throws SpaceError for malformed TOML (with line), unknown
// sections or keys, wrong value types, empty lists, an empty space.
SearchSpace parse_space(const std::string& toml_text, const std::string& source);
SearchSpace load_space(const std::string& path);

}  // namespace mdtune
