#include "mdcore/engine.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

#include "mdcore/line_fit.h"
#include "integrate/vrescale.h"
#include "md_runner.h"
#include "mdcore/units.h"
#include "nonbonded/dispersion_correction.h"
#include "nonbonded/kernel_dispatch.h"
#include "pme/pme.h"
#include "timing/task_timer.h"
#include "util/format.h"
#include "util/thread_pinning.h"
#ifdef MDCORE_HAVE_MPI
#include "domdec/dd_context.h"
#include "domdec/dd_md_runner.h"
#endif

#ifndef MDT_VERSION
#define MDT_VERSION "0.0.0"
#endif
#ifndef MDT_CXX_FLAGS
#define MDT_CXX_FLAGS ""
#endif

namespace mdcore {

namespace {


using Clock = std::chrono::steady_clock;

// What run() accumulates over the steps for the report.
struct RunSamples {
    double sum_list_pairs = 0, sum_outer_pairs = 0, sum_in_cutoff = 0;
    long force_evaluations = 0, cutoff_samples = 0;
    std::vector<double> time, conserved;
    double max_deviation = 0.0;

    // pairs_in_cutoff < 0: not counted at this step (no energies).
    template <class Md>
    void add_lists(const Md& md, double pairs_in_cutoff) {
        ++force_evaluations;
        sum_list_pairs += md.list_pairs();
        sum_outer_pairs += md.outer_list_pairs();
        if (pairs_in_cutoff >= 0) {
            sum_in_cutoff += pairs_in_cutoff;
            ++cutoff_samples;
        }
    }
    void add_energy(double t, double e) {
        time.push_back(t);
        conserved.push_back(e);
    }
};

void describe_run(const System& system, const RunControl& control, RunReport& rep) {
    rep.system_kind = system.kind;
    rep.natoms = static_cast<long>(system.natoms());
    rep.box = system.box.lengths;
    rep.number_density = system.number_density();
    rep.mass_density = system.mass_density_g_cm3();
    rep.steps = control.steps;
    rep.warmup = control.warmup;
}

EnergySample energy_sample(const ForceEnergies& f, const DispersionCorrectionValues& dispersion, double kinetic,
                           double thermostat_work, double ke_to_temp) {
    EnergySample e;
    e.lj = f.lj;
    e.coulomb_sr = f.coulomb_sr;
    e.coulomb_recip = f.coulomb_recip;
    e.bonded = f.bonded;
    e.dispersion_correction = dispersion.energy;
    e.pressure_dc = dispersion.pressure;
    e.potential = f.potential() + dispersion.energy;
    e.kinetic = kinetic;
    e.total = e.potential + e.kinetic;
    e.conserved = e.total + thermostat_work;
    e.temperature = kinetic * ke_to_temp;
    return e;
}

// PME stage times accumulate in the Pme object; the timer gets the per-step deltas.
class PmeTimeAccount {
public:
    template <class Md>
    void add_new(const Md& md, TaskTimer& timer) {
        PmeStageTimes t;
        if constexpr (requires { md.mesh_stage_times(); }) {
            t = md.mesh_stage_times();  // decomposed: this rank's share of the distributed mesh
        } else {
            if (!md.pme()) return;
            t = md.pme()->stage_times();
        }
        timer.add(Task::PmeSpread, t.spread - seen_.spread);
        timer.add(Task::PmeFft, t.fft - seen_.fft);
        timer.add(Task::PmeSolve, t.solve - seen_.solve);
        timer.add(Task::PmeGather, t.gather - seen_.gather);
        seen_ = t;
    }

private:
    PmeStageTimes seen_{};
};

// Names what is not finite after a force evaluation ("" when all is): the
// energies (zero on steps without energies) and an O(N) check of the forces.
template <class Md>
std::string non_finite_forces(const Md& md, const ForceEnergies& fe) {
    if (!std::isfinite(fe.potential()))
        return "non-finite potential energy (LJ " + format_g(fe.lj) + ", Coulomb SR " + format_g(fe.coulomb_sr) +
               ", Coulomb recip " + format_g(fe.coulomb_recip) + " kJ/mol)";
    if (!md.forces_finite()) return "non-finite force on at least one atom";
    return {};
}

// The device and what the GPU did (runs with a GPU task only).
void describe_gpu(const MdRunner& md, GpuReport& gpu) {
    const GpuNonbonded* nb = md.gpu_nonbonded();
    const GpuPme* pme = md.gpu_pme();
    const GpuUpdate* update = md.gpu_update();
    if (!nb && !pme) return;
    gpu.name = md.gpu_device().name;
    gpu.memory_bytes = md.gpu_device().memory_bytes;
    gpu.compute_capability = md.gpu_device().compute_capability;
    if (nb) {
        gpu.kernel_seconds = nb->kernel_seconds();
        gpu.cpu_wait_seconds += nb->cpu_wait_seconds();
    }
    if (pme) {
        for (const auto& [stage, s] : pme->kernel_seconds()) gpu.kernel_seconds[stage] += s;
        gpu.cpu_wait_seconds += pme->cpu_wait_seconds();
    }
    if (update) {
        for (const auto& [stage, s] : update->kernel_seconds()) gpu.kernel_seconds[stage] += s;
        gpu.cpu_wait_seconds += update->cpu_wait_seconds();
    }
}

// Timings, speed, pair-list averages and the drift fit of a finished (or failed) run.
void finish_report(const RunSamples& s, std::map<std::string, double> timings, double wall, RunReport& rep) {
    const long measured = std::max(0L, rep.steps - rep.warmup);
    rep.timings = std::move(timings);
    if (measured > 0 && wall > 0) {
        double accounted = 0;
        for (const auto& [task, t] : rep.timings) accounted += t;
        rep.timings["other"] += std::max(0.0, wall - accounted);
        rep.ms_per_step = 1e3 * wall / measured;
        rep.ns_per_day = rep.config.dt * 1e-3 * measured / wall * 86400.0;
    }
    rep.timings["total"] = wall;
    rep.max_constraint_deviation = s.max_deviation;
    rep.pairlist.list_pairs = s.force_evaluations ? s.sum_list_pairs / s.force_evaluations : 0;
    rep.pairlist.outer_list_pairs = s.force_evaluations ? s.sum_outer_pairs / s.force_evaluations : 0;
    rep.pairlist.pairs_in_cutoff = s.cutoff_samples ? s.sum_in_cutoff / s.cutoff_samples : 0;
    rep.pairlist.efficiency = rep.pairlist.list_pairs > 0 ? rep.pairlist.pairs_in_cutoff / rep.pairlist.list_pairs : 0;
    rep.energy_samples = static_cast<long>(s.time.size());
    if (rep.natoms > 0) {
        // The drift is fitted after the warm-up: a prepared box relaxes over its first tens
        // of steps (GROMACS' water-3nm: -0.11 per atom over 60 steps, -0.004 over 500), and
        // that transient is no drift of the integrator. Too few samples after it: all of them.
        const double measured_from = static_cast<double>(rep.warmup) * rep.config.dt;
        std::vector<double> time, conserved;
        for (std::size_t k = 0; k < s.time.size(); ++k)
            if (s.time[k] >= measured_from) {
                time.push_back(s.time[k]);
                conserved.push_back(s.conserved[k]);
            }
        const bool after_warmup = time.size() >= 3;
        const LineFit fit = after_warmup ? fit_line(time, conserved) : fit_line(s.time, s.conserved);
        rep.drift_per_atom_per_ps = fit.slope / rep.natoms;
        rep.drift_stderr_per_atom_per_ps = fit.slope_stderr / rep.natoms;
    }
}

}  // namespace

namespace {

// At the end of the warm-up every task timer starts again from zero.
template <class Md>
void restart_timing(Md& md, TaskTimer& timer) {
    timer = TaskTimer{};
    if constexpr (requires { md.parallel_stats(); }) {
        md.reset_timing();
    } else {
        md.thread_waits().reset(md.config().threads);
#ifdef MDT_HAVE_CUDA  // the GPU tasks exist only in CUDA builds (and one rank)
        if (GpuNonbonded* gpu = md.gpu_nonbonded()) gpu->reset_times();
        if (GpuPme* gpu = md.gpu_pme()) gpu->reset_times();
        if (GpuUpdate* gpu = md.gpu_update()) gpu->reset_times();
#endif
    }
}

// The MD loop, on one rank (MdRunner) or as one of the PP ranks of a domain
// decomposition (DdMdRunner: every call below is then collective and every
// decision is taken on reduced, identical values, so all ranks step together).
template <class Md>
void run_steps(Md& md, System& system, const RunControl& control, RunReport& rep) {
    constexpr bool kDecomposed = requires { md.parallel_stats(); };
    const EffectiveConfig& cfg = rep.config;
    TaskTimer timer;
    const int dof = system.degrees_of_freedom();
    const double ke_to_temp = dof > 0 ? 1.0 / (0.5 * dof * units::kBoltzmann) : 0.0;
    VRescaleThermostat thermostat(system.temperature, control.tau_t, dof, control.seed);
    RunSamples samples;

    // A function of the volume only: constant while the box is.
    const DispersionCorrection dispersion(system, cfg.rc);
    auto sample = [&](const ForceEnergies& f, double kinetic) {
        return energy_sample(f, dispersion.at_volume(system.box.volume()), kinetic, thermostat.integral(), ke_to_temp);
    };
    PmeTimeAccount pme_times;
    auto fail_at = [&](long step, const std::string& what) {
        rep.status = "failed";
        rep.failed_step = step;
        rep.error = "step " + std::to_string(step) + ": " + what;
    };

    if constexpr (requires { md.set_thread_balance(true); }) md.set_thread_balance(control.thread_balance);
    if constexpr (requires { md.set_dlb(DlbMode::No); }) md.set_dlb(control.dlb);
    Clock::time_point measured_start = Clock::now();
    const long steps = control.steps;
    const long nsteps_eval = std::max(steps, 1L);  // steps 0: one force evaluation, no update
    for (long step = 0; step < nsteps_eval; ++step) {
        if (step == control.warmup) {
            restart_timing(md, timer);
            measured_start = Clock::now();
        }
        timer.set_enabled(step >= control.warmup);
        if constexpr (kDecomposed) md.set_timing(step >= control.warmup);
        else md.thread_waits().set_enabled(step >= control.warmup);
        if (step % cfg.nstlist == 0) {
            timer.time(Task::Search, [&] { md.search(); });
            ++rep.pairlist.searches;
        } else if (md.dual_list() && step % cfg.nstprune == 0) {
            timer.time(Task::Prune, [&] { md.prune(); });
            ++rep.pairlist.prunes;
        }
        const bool energy_step = step % control.nstcalcenergy == 0 || step == nsteps_eval - 1;
        const EnergyOutput eo = energy_step ? EnergyOutput::Yes : EnergyOutput::No;
        ForceEnergies fe = timer.time(Task::Nonbonded, [&] { return md.compute_nonbonded(eo); });
        fe.coulomb_recip = md.compute_pme(eo);  // overlaps a GPU nonbonded task
        pme_times.add_new(md, timer);
        if constexpr (requires { md.compute_bonded(eo); })
            fe.bonded = timer.time(Task::Bonded, [&] { return md.compute_bonded(eo); });
        timer.time(Task::Nonbonded, [&] { md.finish_nonbonded(fe); });
        samples.add_lists(md, energy_step ? fe.pairs_in_cutoff : -1.0);
        if (const std::string bad = non_finite_forces(md, fe); !bad.empty()) {
            fail_at(step, bad);
            break;
        }
        if (steps == 0) {
            const double ke = 0.5 * md.twice_kinetic_energy();
            rep.start = rep.end = sample(fe, ke);
            break;
        }
        // Leap-frog: KE(t) is the average of the half-step kinetic energies.
        const double ke_old = timer.time(Task::Update, [&] { return 0.5 * md.twice_kinetic_energy(); });
        const double lambda = cfg.thermostat == Thermostat::VRescale ? thermostat.scaling(ke_old, cfg.dt) : 1.0;
        const double ke_new = timer.time(cfg.constraints ? Task::Constraints : Task::Update,
                                         [&] { return 0.5 * md.update(cfg.dt, lambda); });
        if (!std::isfinite(ke_new)) {
            fail_at(step, "kinetic energy " + format_g(ke_new) + " kJ/mol after the update (velocities became non-finite)");
            break;
        }
        if (energy_step) {
            const EnergySample e = sample(fe, 0.5 * (ke_old * lambda * lambda + ke_new));
            if (step == 0) rep.start = e;
            rep.end = e;
            samples.add_energy(step * cfg.dt, e.conserved);
            if (cfg.constraints) {
                if constexpr (!kDecomposed) md.sync_state_from_gpu();  // --update gpu: positions from the device
                samples.max_deviation = std::max(samples.max_deviation, md.max_constraint_deviation());
            }
        }
    }
    const double wall = std::chrono::duration<double>(Clock::now() - measured_start).count();
    md.scatter_to_system();
    finish_report(samples, timer.as_map(), wall, rep);
    if constexpr (kDecomposed) {
        rep.parallel = md.parallel_stats();
    } else {
        describe_gpu(md, rep.gpu);
        rep.threads.wait = md.thread_waits().seconds();
    }
    if (rep.status == "failed") throw RunFailed(std::move(rep));
}

}  // namespace

ThreadStats plan_thread_pinning(const RunControl& control, int threads) {
    return plan_pinning(control.pin, threads, control.pin_offset, this_process());
}

RunReport run(System& system, const RunConfig& config, const RunControl& control) {
    RunReport rep;
    rep.build = current_build_info();
    rep.config = resolve_config(system, config, control);
    describe_run(system, control, rep);
    rep.threads = plan_thread_pinning(control, rep.config.threads);
    apply_pinning(rep.threads, rep.config.threads);
#ifdef MDCORE_HAVE_MPI
    if (rep.config.ranks > 1) {
        DdContext dd(system, rep.config);
        if (dd.pme_only()) {
            dd.serve_pme();  // the report comes from rank 0, a PP rank
            return rep;
        }
        DdMdRunner md(system, rep.config, dd.layout(), dd.pp_comm(), dd.make_mesh());
        run_steps(md, system, control, rep);
        return rep;
    }
#endif
    MdRunner md(system, rep.config);
    run_steps(md, system, control, rep);
    return rep;
}

namespace {

// Step-0 forces and energies of a freshly built runner.
template <class Md>
ForceResult forces_of(Md& md, const System& system, const EffectiveConfig& cfg) {
    md.search();
    const ForceEnergies e = md.compute_forces(EnergyOutput::Yes);
    if (const std::string bad = non_finite_forces(md, e); !bad.empty()) throw std::runtime_error("step 0: " + bad);
    ForceResult r;
    r.forces = md.forces_in_input_order();
    r.lj = e.lj;
    r.coulomb_sr = e.coulomb_sr;
    r.coulomb_recip = e.coulomb_recip;
    r.bonded = e.bonded;
    const DispersionCorrectionValues dispersion = DispersionCorrection(system, cfg.rc).at_volume(system.box.volume());
    r.dispersion_correction = dispersion.energy;
    r.pressure_dc = dispersion.pressure;
    r.potential = e.potential() + dispersion.energy;
    r.config = cfg;
    return r;
}

}  // namespace

ForceResult compute_forces(const System& system, const RunConfig& config) {
    System copy = system;
    RunControl control;
    control.steps = 0;
    EffectiveConfig cfg = resolve_config(copy, config, control);
    cfg.nstprune = cfg.nstlist;  // a single evaluation needs no pruning
    cfg.rlist_inner = cfg.rlist;
#ifdef MDCORE_HAVE_MPI
    if (cfg.ranks > 1) {
        DdContext dd(copy, cfg);
        if (dd.pme_only()) {
            dd.serve_pme();
            return {};  // PME-only ranks hold no forces
        }
        DdMdRunner md(copy, cfg, dd.layout(), dd.pp_comm(), dd.make_mesh());
        return forces_of(md, copy, cfg);
    }
#endif
    MdRunner md(copy, cfg);
    return forces_of(md, copy, cfg);
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
        if (simd_level_compiled(l) && simd_supported(l)) levels.push_back(l);
    return levels;
}

}  // namespace mdcore
