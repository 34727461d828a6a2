// mdcore: run MD on a generated system and print (or write) the RunReport.
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "mdcore/cli_args.h"
#include "mdcore/build_info.h"
#include "mdcore/engine.h"
#include "mdcore/generators.h"
#include "io/gromacs_io.h"
#include "mdcore/units.h"

namespace {

using mdcore::cli::ArgMap;
using mdcore::cli::UsageError;

constexpr const char* kUsage =
    "usage: mdcore --version [--json]\n"
    "       mdcore run --system lj|argon|lammps-lj|water|water-ions [--natoms N | --box L] [--nwater N]\n"
    "                  [--nacl MOLAR] [--gro FILE --top FILE] [--density G_PER_CM3]\n"
    "                  [--steps N] [--warmup N] [--dt PS] [--temperature K] [--seed S] [--rc NM]\n"
    "                  [--drift-tolerance X] [--cluster 4x4|4x8|8x4|1x1] [--nstlist N] [--rlist NM]\n"
    "                  [--nstprune N] [--threads N] [--simd auto|none|avx2|avx512]\n"
    "                  [--thermostat none|v-rescale] [--tau-t PS] [--nstcalcenergy N] [--json FILE|-]\n"
    "                  [--pme-spacing NM] [--pme-grid NXxNYxNZ] [--pme-order 4|5|6] [--pme-scale S]\n"
    "                  [--ewald-rtol X] [--out-gro FILE] [--dump-forces FILE]\n";

mdcore::System build_lj_system(const ArgMap& args, const std::string& kind) {
    mdcore::LjFluidSpec spec;
    if (kind == "lj") spec = mdcore::lj_spec();
    else if (kind == "argon") spec = mdcore::argon_spec();
    else spec = mdcore::lammps_lj_spec();
    if (const auto seed = args.integer("seed", 0, std::numeric_limits<long>::max())) spec.seed = *seed;
    if (const auto t = args.real("temperature", -1e-300, 1e5)) spec.temperature = *t;
    if (const auto dt = args.real("dt", 0.0, 1.0)) spec.dt = *dt;
    if (const auto rc = args.real("rc", 0.0, 1e3)) spec.rc = *rc;
    if (const auto d = args.real("density", 0.0, 1e3)) {
        const double number_density = *d / mdcore::units::kAmuPerNm3ToGPerCm3 / spec.mass;
        spec.reduced_density = number_density * spec.sigma * spec.sigma * spec.sigma;
    }
    if (args.has("natoms") && args.has("box")) throw UsageError("--natoms and --box exclude each other");
    if (const auto n = args.integer("natoms", 1, 100'000'000)) spec.natoms = *n;
    if (const auto L = args.real("box", 0.0, 1e4)) {
        spec.natoms.reset();
        spec.box_length = *L;
    }
    return mdcore::make_lj_fluid(spec, kind.c_str());
}

mdcore::System build_water_system(const ArgMap& args, const std::string& kind) {
    mdcore::WaterSpec spec;
    if (kind == "water-ions") spec.nacl_molar = 0.15;
    if (const auto n = args.integer("nwater", 1, 10'000'000)) spec.nwater = *n;
    if (const auto c = args.real("nacl", -1e-300, 10.0)) {
        if (kind != "water-ions") throw UsageError("--nacl needs --system water-ions");
        spec.nacl_molar = *c;
    }
    if (const auto seed = args.integer("seed", 0, std::numeric_limits<long>::max())) spec.seed = *seed;
    if (const auto t = args.real("temperature", 0.0, 1e5)) spec.temperature = *t;
    if (const auto dt = args.real("dt", 0.0, 0.01)) spec.dt = *dt;
    if (const auto rc = args.real("rc", 0.0, 1e3)) spec.rc = *rc;
    if (const auto d = args.real("density", 0.0, 10.0)) spec.density = *d;
    if (const auto t = args.integer("threads", 1, 4096)) spec.threads = static_cast<int>(*t);
    return mdcore::make_water_system(spec);
}

mdcore::System build_file_system(const ArgMap& args) {
    mdcore::System sys = mdcore::read_gromacs_system(*args.text("gro"), *args.text("top"));
    sys.rc = 1.0;
    sys.dt = 0.002;
    sys.temperature = 300.0;
    if (const auto t = args.real("temperature", 0.0, 1e5)) sys.temperature = *t;
    if (const auto dt = args.real("dt", 0.0, 0.01)) sys.dt = *dt;
    if (const auto rc = args.real("rc", 0.0, 1e3)) sys.rc = *rc;
    return sys;
}

mdcore::System build_system(const ArgMap& args) {
    if (args.has("gro") != args.has("top")) throw UsageError("--gro and --top must be given together");
    const bool from_files = args.has("gro");
    if (from_files && args.has("system")) throw UsageError("--system and --gro/--top exclude each other");
    const std::string kind = args.text("system").value_or(from_files ? "gro" : "lammps-lj");
    const bool lj = kind == "lj" || kind == "argon" || kind == "lammps-lj";
    const bool water = kind == "water" || kind == "water-ions";
    if (!from_files && !lj && !water)
        throw UsageError("--system: unknown system '" + kind + "' (lj, argon, lammps-lj, water, water-ions)");
    for (const char* flag : {"natoms", "box"})
        if (args.has(flag) && !lj) throw UsageError(std::string("--") + flag + " applies to LJ systems only");
    for (const char* flag : {"nwater", "nacl"})
        if (args.has(flag) && !water) throw UsageError(std::string("--") + flag + " applies to water systems only");
    mdcore::System sys = from_files ? build_file_system(args) : lj ? build_lj_system(args, kind) : build_water_system(args, kind);
    if (const auto tol = args.real("drift-tolerance", 0.0, 1e6)) sys.drift_tolerance = *tol;
    if (const auto rtol = args.real("ewald-rtol", 0.0, 0.1)) sys.ewald_rtol = *rtol;
    return sys;
}

std::array<int, 3> parse_grid(const std::string& text) {
    std::array<int, 3> g{};
    char x1 = 0, x2 = 0;
    int consumed = 0;
    if (std::sscanf(text.c_str(), "%d%c%d%c%d%n", &g[0], &x1, &g[1], &x2, &g[2], &consumed) != 5 || x1 != 'x' ||
        x2 != 'x' || consumed != static_cast<int>(text.size()) || g[0] <= 0 || g[1] <= 0 || g[2] <= 0)
        throw UsageError("--pme-grid: '" + text + "' is not NXxNYxNZ with positive sizes");
    return g;
}

// Test-only: MDCORE_TEST_FAULT=crash:nstlist=N[,hang:nstlist=M] aborts (or sleeps
// forever) when the run's --nstlist is N (M). Compiled only into the tests'
// mdcore_faulty (tests/CMakeLists.txt), never into the mdcore users run.
void inject_test_fault([[maybe_unused]] const mdcore::RunConfig& config) {
#ifdef MDT_TEST_FAULTS
    const char* env = std::getenv("MDCORE_TEST_FAULT");
    if (!env) return;
    std::string faults = env;
    for (std::size_t start = 0; start < faults.size();) {
        const std::size_t end = std::min(faults.find(',', start), faults.size());
        int nstlist = 0;
        char kind[16] = {};
        if (std::sscanf(faults.substr(start, end - start).c_str(), "%15[a-z]:nstlist=%d", kind, &nstlist) == 2 &&
            config.nstlist == nstlist) {
            if (std::string(kind) == "crash") std::abort();
            if (std::string(kind) == "hang")
                for (;;) pause();
        }
        start = end + 1;
    }
#endif
}

int run_command(const std::vector<std::string>& argv) {
    const ArgMap args(argv, {{"system", true},  {"natoms", true},      {"box", true},     {"density", true},
                             {"steps", true},   {"warmup", true},      {"dt", true},      {"temperature", true},
                             {"seed", true},    {"rc", true},          {"drift-tolerance", true},
                             {"cluster", true}, {"nstlist", true},     {"rlist", true},   {"nstprune", true},
                             {"threads", true}, {"simd", true},        {"thermostat", true}, {"tau-t", true},
                             {"nstcalcenergy", true}, {"json", true},  {"help", false},
                             {"nwater", true},  {"nacl", true},        {"gro", true},     {"top", true},
                             {"pme-spacing", true}, {"pme-grid", true}, {"pme-order", true}, {"pme-scale", true},
                             {"ewald-rtol", true}, {"out-gro", true},  {"dump-forces", true}});
    if (args.has("help")) {
        std::cout << kUsage;
        return 0;
    }
    mdcore::RunConfig config;
    mdcore::RunControl control;
    if (const auto c = args.text("cluster")) {
        const auto shape = mdcore::parse_cluster_shape(*c);
        if (!shape) throw UsageError("--cluster: unknown shape '" + *c + "' (4x4, 4x8, 8x4, 1x1)");
        config.cluster = *shape;
    }
    if (const auto s = args.text("simd")) {
        const auto level = mdcore::parse_simd_level(*s);
        if (!level) throw UsageError("--simd: unknown level '" + *s + "' (auto, none, avx2, avx512)");
        config.simd = *level;
    }
    if (const auto v = args.integer("nstlist", 1, 100000)) config.nstlist = static_cast<int>(*v);
    if (const auto v = args.integer("nstprune", 1, 100000)) config.nstprune = static_cast<int>(*v);
    if (const auto v = args.integer("threads", 1, 4096)) config.threads = static_cast<int>(*v);
    if (const auto v = args.real("rlist", 0.0, 1e3)) config.rlist = *v;
    if (const auto v = args.integer("steps", 0, 1'000'000'000)) control.steps = *v;
    if (const auto v = args.integer("warmup", 0, 1'000'000'000)) control.warmup = *v;
    if (const auto v = args.integer("nstcalcenergy", 1, 1'000'000)) control.nstcalcenergy = static_cast<int>(*v);
    if (const auto v = args.real("tau-t", 0.0, 1e6)) control.tau_t = *v;
    if (const auto t = args.text("thermostat")) {
        if (*t == "none") control.thermostat = mdcore::Thermostat::None;
        else if (*t == "v-rescale") control.thermostat = mdcore::Thermostat::VRescale;
        else throw UsageError("--thermostat: unknown thermostat '" + *t + "' (none, v-rescale)");
    }
    if (const auto v = args.integer("seed", 0, std::numeric_limits<long>::max())) control.seed = *v;
    if (const auto v = args.real("pme-spacing", 0.0, 10.0)) config.pme_spacing = *v;
    if (const auto v = args.text("pme-grid")) config.pme_grid = parse_grid(*v);
    if (const auto v = args.integer("pme-order", 4, 6)) config.pme_order = static_cast<int>(*v);
    if (const auto v = args.real("pme-scale", 0.0, 10.0)) config.pme_scale = *v;

    inject_test_fault(config);
    mdcore::System sys;
    try {
        sys = build_system(args);
        mdcore::resolve_config(sys, config, control);  // reject bad input before running
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    } catch (const mdcore::InputError& e) {
        throw UsageError(e.what());
    }
    if (const auto path = args.text("dump-forces")) {
        // Step-0 forces of the start configuration, in input order.
        mdcore::write_forces(*path, mdcore::compute_forces(sys, config).forces);
    }
    const mdcore::RunReport report = mdcore::run(sys, config, control);
    if (const auto path = args.text("out-gro")) mdcore::write_gro(*path, sys, "mdcore final state");
    const auto json_target = args.text("json");
    if (json_target && *json_target == "-") {
        std::cout << mdcore::run_report_to_json(report) << "\n";
    } else {
        std::cout << mdcore::run_report_to_text(report);
        if (json_target) {
            std::ofstream out(*json_target);
            if (!out) throw std::runtime_error("--json: cannot write '" + *json_target + "'");
            out << mdcore::run_report_to_json(report) << "\n";
        }
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    try {
        if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
            std::cout << kUsage;
            return args.empty() ? 2 : 0;
        }
        if (args[0] == "--version") {
            // Plain: one line for people; --json: what a tuner keys its trials by.
            if (args.size() > 1 && args[1] == "--json") std::cout << mdcore::build_info_json() << "\n";
            else if (args.size() > 1) throw UsageError("--version takes only --json, not '" + args[1] + "'");
            else std::cout << "mdcore " << mdcore::engine_version() << " (" << mdcore::build_compiler() << ")\n";
            return 0;
        }
        if (args[0] != "run") throw UsageError("unknown command '" + args[0] + "' (expected 'run')");
        return run_command({args.begin() + 1, args.end()});
    } catch (const UsageError& e) {
        std::cerr << "mdcore: error: " << e.what() << "\n" << kUsage;
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "mdcore: error: " << e.what() << "\n";
        return 1;
    }
}
