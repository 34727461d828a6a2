#include "mdcore/engine.h"

#include <omp.h>

#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

#include "integrate/vrescale.h"
#include "md_runner.h"
#include "mdcore/units.h"
#include "nonbonded/kernel_dispatch.h"
#include "pairlist/buffer_setup.h"
#include "timing/task_timer.h"

#ifndef MDT_VERSION
#define MDT_VERSION "0.0.0"
#endif
#ifndef MDT_CXX_FLAGS
#define MDT_CXX_FLAGS ""
#endif

namespace mdcore {

namespace {

// Default list update interval: 10 steps keeps the buffer small for the 4-atom
// clusters; the dual list then prunes every 5 steps. Both are tunables.
constexpr int kDefaultNstlist = 10;

std::string fmt(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

// Least-squares slope of y(t).
double slope(const std::vector<double>& t, const std::vector<double>& y) {
    const std::size_t n = t.size();
    if (n < 2) return 0.0;
    double mt = 0, my = 0;
    for (std::size_t i = 0; i < n; ++i) {
        mt += t[i];
        my += y[i];
    }
    mt /= n;
    my /= n;
    double sty = 0, stt = 0;
    for (std::size_t i = 0; i < n; ++i) {
        sty += (t[i] - mt) * (y[i] - my);
        stt += (t[i] - mt) * (t[i] - mt);
    }
    return stt > 0 ? sty / stt : 0.0;
}

}  // namespace

EffectiveConfig resolve_config(const System& system, const RunConfig& config, const RunControl& control) {
    system.validate();
    EffectiveConfig eff;
    eff.threads = config.threads > 0 ? config.threads : omp_get_max_threads();
    if (config.threads < 0) throw std::invalid_argument("--threads must be positive");
    eff.simd = resolve_simd_level(config.simd);
    eff.cluster = config.cluster.value_or(eff.simd == SimdLevel::Avx512 ? ClusterShape::k8x4 : ClusterShape::k4x4);
    if (config.nstlist < 0) throw std::invalid_argument("--nstlist must be positive");
    if (config.nstprune < 0) throw std::invalid_argument("--nstprune must be positive");
    eff.nstlist = config.nstlist > 0 ? config.nstlist : kDefaultNstlist;
    eff.nstprune = config.nstprune > 0 ? std::min(config.nstprune, eff.nstlist)
                                       : (eff.nstlist > 5 ? std::max(1, eff.nstlist / 2) : eff.nstlist);
    eff.rc = system.rc;
    eff.dt = system.dt;
    eff.temperature = system.temperature;
    eff.drift_tolerance = system.drift_tolerance;
    eff.thermostat = control.thermostat;
    if (control.steps < 0) throw std::invalid_argument("--steps must not be negative");
    if (control.warmup < 0) throw std::invalid_argument("--warmup must not be negative");
    if (control.warmup > control.steps && control.steps > 0)
        throw std::invalid_argument("--warmup (" + std::to_string(control.warmup) + ") exceeds --steps (" +
                                    std::to_string(control.steps) + ")");
    if (control.nstcalcenergy <= 0) throw std::invalid_argument("--nstcalcenergy must be positive");
    if (control.thermostat == Thermostat::VRescale && !(control.tau_t > 0))
        throw std::invalid_argument("--tau-t must be positive");

    const VerletBufferParams params = verlet_buffer_params(system, eff.cluster);
    if (config.rlist) {
        if (!(*config.rlist >= system.rc))
            throw std::invalid_argument("--rlist " + fmt(*config.rlist) + " must be at least rc (" + fmt(system.rc) + ")");
        eff.rlist = *config.rlist;
        eff.rlist_from_estimate = false;
    } else {
        eff.rlist = estimate_rlist(params, eff.nstlist - 1);
    }
    if (eff.rlist >= 2.0 * system.box.min_length())
        throw std::invalid_argument("rlist " + fmt(eff.rlist) + " nm is not below twice the shortest box edge");
    eff.rlist_inner = eff.nstprune < eff.nstlist ? std::min(eff.rlist, estimate_rlist(params, eff.nstprune - 1))
                                                 : eff.rlist;
    return eff;
}

RunReport run(System& system, const RunConfig& config, const RunControl& control) {
    RunReport rep;
    rep.config = resolve_config(system, config, control);
    const EffectiveConfig& cfg = rep.config;
    rep.system_kind = system.kind;
    rep.natoms = static_cast<long>(system.natoms());
    rep.box = system.box.lengths;
    rep.number_density = system.number_density();
    rep.mass_density = system.mass_density_g_cm3();
    rep.steps = control.steps;
    rep.warmup = control.warmup;

    MdRunner md(system, cfg);
    TaskTimer timer;
    const int dof = system.degrees_of_freedom();
    const double ke_to_temp = dof > 0 ? 1.0 / (0.5 * dof * units::kBoltzmann) : 0.0;
    VRescaleThermostat thermostat(system.temperature, control.tau_t, dof, control.seed);
    std::vector<double> sample_t, sample_conserved;
    double sum_list_pairs = 0, sum_outer_pairs = 0, sum_in_cutoff = 0;
    long force_evaluations = 0, cutoff_samples = 0;

    auto sample = [&](double lj, double kinetic) {
        EnergySample e;
        e.lj = lj;
        e.potential = lj;
        e.kinetic = kinetic;
        e.total = e.potential + e.kinetic;
        e.conserved = e.total + thermostat.integral();
        e.temperature = kinetic * ke_to_temp;
        return e;
    };

    using Clock = std::chrono::steady_clock;
    Clock::time_point measured_start = Clock::now();
    const long steps = control.steps;
    const long nsteps_eval = std::max(steps, 1L);  // steps 0: one force evaluation, no update
    for (long step = 0; step < nsteps_eval; ++step) {
        if (step == control.warmup) {
            timer = TaskTimer{};
            measured_start = Clock::now();
        }
        timer.set_enabled(step >= control.warmup);
        if (step % cfg.nstlist == 0) {
            timer.time(Task::Search, [&] { md.search(); });
            ++rep.pairlist.searches;
        } else if (md.dual_list() && step % cfg.nstprune == 0) {
            timer.time(Task::Prune, [&] { md.prune(); });
            ++rep.pairlist.prunes;
        }
        const bool energy_step = step % control.nstcalcenergy == 0 || step == nsteps_eval - 1;
        const NonbondedEnergies nb = timer.time(Task::Nonbonded, [&] {
            return md.compute_forces(energy_step ? EnergyOutput::Yes : EnergyOutput::No);
        });
        ++force_evaluations;
        sum_list_pairs += md.inner_list().atom_pairs();
        sum_outer_pairs += md.outer_list().atom_pairs();
        if (energy_step) {
            sum_in_cutoff += nb.pairs_in_cutoff;
            ++cutoff_samples;
        }
        if (steps == 0) {
            const double ke = 0.5 * twice_kinetic_energy(md.state(), cfg.threads);
            rep.start = rep.end = sample(nb.lj, ke);
            break;
        }
        // Leap-frog: KE(t) is the average of the half-step kinetic energies.
        const double ke_old = timer.time(Task::Update, [&] { return 0.5 * twice_kinetic_energy(md.state(), cfg.threads); });
        const double lambda = cfg.thermostat == Thermostat::VRescale ? thermostat.scaling(ke_old, cfg.dt) : 1.0;
        const double ke_new = timer.time(Task::Update, [&] { return 0.5 * leapfrog_update(md.state(), cfg.dt, lambda, cfg.threads); });
        if (energy_step) {
            const EnergySample e = sample(nb.lj, 0.5 * (ke_old * lambda * lambda + ke_new));
            if (step == 0) rep.start = e;
            rep.end = e;
            sample_t.push_back(step * cfg.dt);
            sample_conserved.push_back(e.conserved);
        }
    }
    const double wall = std::chrono::duration<double>(Clock::now() - measured_start).count();
    md.scatter_to_system();

    const long measured = std::max(0L, steps - control.warmup);
    rep.timings = timer.as_map();
    if (measured > 0 && wall > 0) {
        double accounted = 0;
        for (const auto& [task, s] : rep.timings) accounted += s;
        rep.timings["other"] += std::max(0.0, wall - accounted);
        rep.ms_per_step = 1e3 * wall / measured;
        rep.ns_per_day = cfg.dt * 1e-3 * measured / wall * 86400.0;
    }
    rep.timings["total"] = wall;
    rep.pairlist.list_pairs = force_evaluations ? sum_list_pairs / force_evaluations : 0;
    rep.pairlist.outer_list_pairs = force_evaluations ? sum_outer_pairs / force_evaluations : 0;
    rep.pairlist.pairs_in_cutoff = cutoff_samples ? sum_in_cutoff / cutoff_samples : 0;
    rep.pairlist.efficiency = rep.pairlist.list_pairs > 0 ? rep.pairlist.pairs_in_cutoff / rep.pairlist.list_pairs : 0;
    rep.energy_samples = static_cast<long>(sample_t.size());
    rep.drift_per_atom_per_ps = rep.natoms > 0 ? slope(sample_t, sample_conserved) / rep.natoms : 0.0;
    return rep;
}

ForceResult compute_forces(const System& system, const RunConfig& config) {
    System copy = system;
    RunControl control;
    control.steps = 0;
    EffectiveConfig cfg = resolve_config(copy, config, control);
    cfg.nstprune = cfg.nstlist;  // a single evaluation needs no pruning
    cfg.rlist_inner = cfg.rlist;
    MdRunner md(copy, cfg);
    md.search();
    const NonbondedEnergies e = md.compute_forces(EnergyOutput::Yes);
    ForceResult r;
    r.forces = md.forces_in_input_order();
    r.lj = e.lj;
    r.potential = e.lj;
    return r;
}

std::string engine_version() { return MDT_VERSION; }

std::string build_compiler() {
#if defined(__clang__)
    return "clang " __clang_version__;
#elif defined(__GNUC__)
    return "gcc " __VERSION__;
#else
    return "unknown";
#endif
}

std::string build_flags() { return MDT_CXX_FLAGS; }

std::vector<SimdLevel> available_simd_levels() {
    std::vector<SimdLevel> levels;
    for (SimdLevel l : {SimdLevel::None, SimdLevel::Avx2, SimdLevel::Avx512})
        if (simd_level_compiled(l) && cpu_supports(l)) levels.push_back(l);
    return levels;
}

}  // namespace mdcore
