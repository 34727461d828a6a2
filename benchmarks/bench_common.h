#pragma once
// Shared set-up for the Google Benchmark suites: equilibrated LJ systems (built
// once per kind and size, fixed seeds), MdRunner fixtures and naming helpers.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "md_runner.h"
#include "mdcore/engine.h"
#include "mdcore/generators.h"
#include "mdcore/run_config.h"

namespace mdbench {

using mdcore::ClusterShape;
using mdcore::SimdLevel;

inline const std::vector<ClusterShape>& all_shapes() {
    static const std::vector<ClusterShape> s{ClusterShape::k4x4, ClusterShape::k4x8, ClusterShape::k8x4,
                                             ClusterShape::k1x1};
    return s;
}

// (shape, level) pairs that are distinct kernels: 1x1 is the plain particle list,
// whose kernel is the same scalar code at every SIMD level, so it is listed once
// (as "none").
inline std::vector<std::pair<ClusterShape, SimdLevel>> kernel_variants() {
    std::vector<std::pair<ClusterShape, SimdLevel>> v;
    const auto levels = mdcore::available_simd_levels();
    for (ClusterShape s : all_shapes()) {
        if (s == ClusterShape::k1x1) {
            v.emplace_back(s, SimdLevel::None);
            continue;
        }
        for (SimdLevel l : levels) v.emplace_back(s, l);
    }
    return v;
}

// Sizes from $MDT_BENCH_SIZES ("4000,32000"), else the given defaults.
inline std::vector<long> sizes_from_env(std::vector<long> defaults) {
    const char* env = std::getenv("MDT_BENCH_SIZES");
    if (!env || !*env) return defaults;
    std::vector<long> out;
    std::stringstream ss(env);
    std::string item;
    while (std::getline(ss, item, ','))
        if (!item.empty()) out.push_back(std::stol(item));
    return out.empty() ? defaults : out;
}

// An equilibrated fluid, made once per (kind, natoms) and cached:
//  water:     SPC/E from mdcore's generator (lattice start relaxed by the generator);
//  lammps-lj: in.lj start (fcc, T* 3) then 200 NVE steps, as in.lj itself melts;
//  argon:     Rahman's state point, melted at 300 K and v-rescaled to 94.4 K over
//             300 steps, then the reference temperature set back to 94.4 K.
// Fixed seeds and one thread, so every run of the suite sees the same coordinates.
inline const mdcore::System& equilibrated_system(const std::string& kind, long natoms) {
    static std::map<std::pair<std::string, long>, std::unique_ptr<mdcore::System>> cache;
    auto& slot = cache[{kind, natoms}];
    if (slot) return *slot;

    const auto t0 = std::chrono::steady_clock::now();
    if (kind == "water") {
        // SPC/E with PME and SETTLE: the generator relaxes its lattice start.
        mdcore::WaterSpec water;
        water.nwater = natoms / 3;
        water.seed = 1987;
        water.threads = 1;
        slot = std::make_unique<mdcore::System>(mdcore::make_water_system(water));
        return *slot;
    }
    mdcore::LjFluidSpec spec;
    mdcore::RunControl control;
    double final_temperature = 0.0;
    if (kind == "lammps-lj") {
        spec = mdcore::lammps_lj_spec();
        spec.seed = 87287;  // in.lj's velocity seed (the generator's RNG differs from LAMMPS')
        control.steps = 200;
        control.thermostat = mdcore::Thermostat::None;
        final_temperature = spec.temperature;
    } else if (kind == "argon") {
        spec = mdcore::argon_spec();
        spec.seed = 1964;
        spec.jitter = 0.02;
        final_temperature = spec.temperature;
        spec.temperature = 300.0;
        control.steps = 300;
        control.thermostat = mdcore::Thermostat::VRescale;
        control.tau_t = 0.1;
    } else {
        throw std::invalid_argument("unknown benchmark system '" + kind + "'");
    }
    spec.natoms = natoms;
    control.seed = 11;
    control.nstcalcenergy = 100;
    auto sys = std::make_unique<mdcore::System>(mdcore::make_lj_fluid(spec, kind.c_str()));
    if (kind == "argon") sys->temperature = final_temperature;  // thermostat target
    mdcore::RunConfig cfg;
    cfg.threads = 1;
    mdcore::run(*sys, cfg, control);
    sys->temperature = final_temperature;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::fprintf(stderr, "[setup] %s %ld atoms: %ld equilibration steps in %.2f s\n", kind.c_str(), natoms,
                 control.steps, s);
    slot = std::move(sys);
    return *slot;
}

// A private copy of a system plus an MdRunner on it with the config resolved exactly
// as `mdcore run` would (Verlet-buffer rlist, nstlist 10, dual list pruned every 5).
struct Fixture {
    std::unique_ptr<mdcore::System> system;
    mdcore::EffectiveConfig config;
    std::unique_ptr<mdcore::MdRunner> md;

    // shape unset: the run's default for the CPU (as mdcore run without --cluster).
    Fixture(const mdcore::System& source, std::optional<ClusterShape> shape, SimdLevel level, int threads,
            bool dual_list = true)
        : system(std::make_unique<mdcore::System>(source)) {
        mdcore::RunConfig rc;
        rc.cluster = shape;
        rc.simd = level;
        rc.threads = threads;
        mdcore::RunControl control;
        control.steps = 0;
        config = mdcore::resolve_config(*system, rc, control);
        if (!dual_list) {
            config.nstprune = config.nstlist;
            config.rlist_inner = config.rlist;
        }
        md = std::make_unique<mdcore::MdRunner>(*system, config);
    }
};

inline std::string str(std::string_view v) { return std::string(v); }

inline void add_context() {
    std::string levels;
    for (SimdLevel l : mdcore::available_simd_levels()) {
        if (!levels.empty()) levels += ',';
        levels += to_string(l);
    }
    benchmark::AddCustomContext("mdcore_version", mdcore::engine_version());
    benchmark::AddCustomContext("mdcore_compiler", mdcore::build_compiler());
    benchmark::AddCustomContext("mdcore_flags", mdcore::build_flags());
    benchmark::AddCustomContext("mdcore_simd_available", levels);
}

// Test-only: build with -DMDT_INJECT_SLOWDOWN_PERCENT=P (e.g. through
// CMAKE_CXX_FLAGS) and BM_LeapFrog runs its kernel on P % more atoms than its
// name says: a known slowdown of one kernel, in wall time and in instructions,
// for measuring the gate's detection rate (scripts/ci_perf.sh, docs/user/bench.md). Every
// suite of such a build says so in its JSON context.
#ifdef MDT_INJECT_SLOWDOWN_PERCENT
inline constexpr double kInjectedSlowdown = MDT_INJECT_SLOWDOWN_PERCENT / 100.0;
#else
inline constexpr double kInjectedSlowdown = 0.0;
#endif

// The main() of every suite: context (SIMD levels, injected slowdown), then the
// suite's registrations, then Google Benchmark.
inline int run_benchmarks(int argc, char** argv, void (*register_all)()) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    add_context();
    if (kInjectedSlowdown > 0)
        benchmark::AddCustomContext("mdt_injected_slowdown_percent", std::to_string(100.0 * kInjectedSlowdown));
    register_all();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}

inline benchmark::Counter rate(double per_iteration) {
    return benchmark::Counter(per_iteration, benchmark::Counter::kIsIterationInvariantRate,
                              benchmark::Counter::kIs1000);
}

}  // namespace mdbench
