#include "mdcore/engine.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

#include "mdcore/line_fit.h"
#include "domdec/dd_layout.h"
#include "domdec/mpi_world.h"
#include "domdec/update_groups.h"
#include "integrate/vrescale.h"
#include "md_runner.h"
#include "mdcore/system_summary.h"
#include "mdcore/tunables.h"
#include "mdcore/units.h"
#include "nonbonded/dispersion_correction.h"
#include "nonbonded/kernel_dispatch.h"
#include "pairlist/buffer_setup.h"
#include "pairlist/list_intervals.h"
#include "pme/pme.h"
#include "pme/pme_accuracy.h"
#include "timing/task_timer.h"
#include "memory_estimate.h"
#include "util/format.h"
#include "util/thread_count.h"
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

// Default outer-list lifetime. The search costs several kernel calls, so 20 steps
// (pruned every 10) beat 10 on in.lj and SPC/E in our measurements; the buffer
// estimate keeps the accuracy whatever the choice. Both are tunables.
constexpr int kDefaultNstlist = 20;


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

// Separate PME ranks (run_pme_rank), and more than one rank at all, exist in MPI builds only.
#ifdef MDCORE_HAVE_MPI
constexpr bool kPmeRanksBuilt = true;
#else
constexpr bool kPmeRanksBuilt = false;
#endif

static void resolve_offload(const RunConfig& config, EffectiveConfig& eff) {
    // GROMACS' rules (Paell et al. 2020, Fig. 2 B-E): PME and update join a GPU that
    // already holds the nonbonded task and its coordinates.
    if (config.pme == Offload::Gpu && config.nb != Offload::Gpu)
        throw std::invalid_argument("--pme gpu needs --nb gpu (PME offload shares the nonbonded task's GPU)");
    if (config.update == Offload::Gpu && config.nb != Offload::Gpu)
        throw std::invalid_argument("--update gpu needs --nb gpu (the GPU update keeps the state next to the nonbonded task)");
    if (config.gpu_id < 0) throw std::invalid_argument("--gpu-id must not be negative");
    if (config.nb == Offload::Gpu) {
        // The GPU list is built from the 8x4 search: its 8-atom j-clusters are two
        // 4-atom halves, one per half-warp (gpu_pair_list.h).
        if (config.cluster && *config.cluster != ClusterShape::k8x4)
            throw std::invalid_argument("--cluster " + std::string(to_string(*config.cluster)) +
                                        " does not apply with --nb gpu: the GPU pair list is built from the 8x4 search");
    }
    eff.nb = config.nb;
    eff.pme_offload = config.pme;
    eff.update = config.update;
    eff.gpu_id = config.gpu_id;
}

// The run controls (steps, warm-up, energy interval, thermostat) are checked, not resolved.
static void check_run_control(const RunControl& control) {
    if (control.steps < 0) throw std::invalid_argument("--steps must not be negative");
    if (control.warmup < 0) throw std::invalid_argument("--warmup must not be negative");
    if (control.warmup > control.steps && control.steps > 0)
        throw std::invalid_argument("--warmup (" + std::to_string(control.warmup) + ") exceeds --steps (" +
                                    std::to_string(control.steps) + ")");
    if (control.nstcalcenergy <= 0) throw std::invalid_argument("--nstcalcenergy must be positive");
    if (control.thermostat == Thermostat::VRescale && !(control.tau_t > 0))
        throw std::invalid_argument("--tau-t must be positive");
}

// The LJ modifier and the Coulomb method (GROMACS' vdw-modifier, coulombtype),
// checked as grompp does. The switch starts at the system's rvdw_switch whatever
// pme_scale makes of rc.
static void resolve_interaction_form(const SystemSummary& system, const RunConfig& config, EffectiveConfig& eff) {
    eff.vdw_modifier = system.vdw_modifier;
    eff.dispcorr = system.dispcorr;
    eff.rvdw_switch = system.rvdw_switch;
    eff.coulomb_type = system.coulomb_type;
    eff.epsilon_rf = system.epsilon_rf;
    if (!(system.rvdw_switch >= 0.0 && system.rvdw_switch < eff.rc))
        throw std::invalid_argument("rvdw-switch " + format_g(system.rvdw_switch) + " nm must be in [0, rc = " +
                                    format_g(eff.rc) + " nm)");
    // As grompp: the switched forms' correction integrates the true r^-6 from the switch radius.
    if (system.dispcorr != DispCorr::No && system.vdw_modifier != VdwModifier::PotentialShift && system.rvdw_switch <= 0.0)
        throw std::invalid_argument("DispCorr " + std::string(to_string(system.dispcorr)) + " with vdw-modifier " +
                                    std::string(to_string(system.vdw_modifier)) + " needs rvdw-switch > 0");
    if (system.coulomb_type != CoulombType::ReactionField) return;
    if (!(system.epsilon_rf == 0.0 || (system.epsilon_rf >= system.epsilon_r && std::isfinite(system.epsilon_rf))))
        throw std::invalid_argument("epsilon-rf " + format_g(system.epsilon_rf) + " must be 0 (infinity) or at least epsilon-r (" +
                                    format_g(system.epsilon_r) + ")");
    // No mesh with a reaction field: the PME settings would be silently ignored.
    if (system.charged_atoms() > 0 && (config.pme_scale != 1.0 || config.pme_grid || config.pme == Offload::Gpu))
        throw std::invalid_argument(
            "--pme-scale, --pme-grid and --pme gpu apply to PME; this system uses coulombtype reaction-field");
}

// The GPU kernels (pair_math.h) have LJ potential-shift and Ewald only.
static void check_gpu_interaction(const SystemSummary& system, const EffectiveConfig& eff) {
    if (eff.nb != Offload::Gpu) return;
    if (eff.vdw_modifier != VdwModifier::PotentialShift)
        throw std::invalid_argument("--nb gpu: the GPU kernels have LJ potential-shift only, not vdw-modifier " +
                                    std::string(to_string(eff.vdw_modifier)) + "; use --nb cpu");
    if (system.charged_atoms() > 0 && eff.coulomb_type != CoulombType::Pme)
        throw std::invalid_argument("--nb gpu: the GPU kernels have PME (Ewald) Coulomb only, not coulombtype " +
                                    std::string(to_string(eff.coulomb_type)) + "; use --nb cpu");
}

// PME: rc and the grid spacing scale together; beta follows rc.
static void resolve_electrostatics(const SystemSummary& system, const RunConfig& config, EffectiveConfig& eff) {
    const bool charged = system.charged_atoms() > 0;
    if (!(config.pme_scale > 0)) throw std::invalid_argument("--pme-scale must be positive");
    if (config.pme_order < 4 || config.pme_order > 6) throw std::invalid_argument("--pme-order must be 4, 5 or 6");
    if (!(config.pme_spacing > 0)) throw std::invalid_argument("--pme-spacing must be positive");
    eff.pme_scale = config.pme_scale;
    eff.rc = system.rc * config.pme_scale;
    if (eff.rc >= 0.5 * system.box.min_length())
        throw std::invalid_argument("rc x pme-scale = " + format_g(eff.rc) + " nm must be below half the shortest box edge (" +
                                    format_g(0.5 * system.box.min_length()) + " nm)");
    resolve_interaction_form(system, config, eff);
    eff.pme = charged && system.coulomb_type == CoulombType::Pme;
    eff.ewald_rtol = system.ewald_rtol;
    if (!eff.pme) return;
    // The kernels' Ewald functions are fitted for beta r <= 4 (simd_math.h).
    if (!(system.ewald_rtol >= 1e-8 && system.ewald_rtol < 1.0))
        throw std::invalid_argument("--ewald-rtol must be in [1e-8, 1)");
    eff.ewald_beta = ewald_beta(eff.rc, system.ewald_rtol);
    eff.pme_order = config.pme_order;
    eff.pme_spacing = config.pme_spacing * config.pme_scale;
    if (config.pme_grid) {
        eff.pme_grid = *config.pme_grid;
    } else {
        const PmeGrid g = pme_grid_for_spacing(system.box, eff.pme_spacing, eff.pme_order);
        eff.pme_grid = {g.nx, g.ny, g.nz};
    }
    for (int d = 0; d < 3; ++d)
        if (eff.pme_grid[d] < 2 * eff.pme_order)
            throw std::invalid_argument("--pme-grid dimension " + std::to_string(eff.pme_grid[d]) +
                                        " is below 2 x pme-order");
}

// The outer list radius from the Verlet-buffer estimate (or --rlist), and the inner
// (pruned) radius for the dynamic pruning interval.
// grow_intervals false: nstlist stays as given (20 by default) and pruning every
// nstlist / 2 steps, the fallback of a decomposed run whose layout cannot take the
// longer list's halo.
static void resolve_pair_list_radii(const SystemSummary& system, const RunConfig& config, EffectiveConfig& eff,
                                    bool grow_intervals) {
    const VerletBufferParams params = verlet_buffer_params(system, eff.cluster, eff.rc, eff.ewald_beta);
    if (config.rlist) {
        if (!(*config.rlist >= eff.rc))
            throw std::invalid_argument("--rlist " + format_g(*config.rlist) + " must be at least rc (" + format_g(eff.rc) + ")");
        eff.rlist = *config.rlist;
        eff.rlist_from_estimate = false;
    } else {
        // The intervals default to GROMACS' choice (list_intervals.h), on one rank
        // and decomposed, with CPU or GPU nonbondeds (the GPU's longer lists: its
        // search stays on the CPU); a fixed --rlist and the fallback above keep
        // nstlist 20 and half of it for pruning. As in GROMACS, nstlist grows only
        // under a thermostat: in NVE the drift a longer list lets in accumulates in
        // the conserved energy.
        const double density = static_cast<double>(system.natoms) / system.box.volume();
        const bool intervals = grow_intervals;
        if (config.nstlist == 0 && intervals && eff.thermostat != Thermostat::None)
            eff.nstlist = default_nstlist(params, density, 0.5 * system.box.min_length(), eff.nb == Offload::Gpu);
        eff.rlist = estimate_rlist(params, eff.nstlist - 1);
        if (config.nstprune == 0 && intervals)
            eff.nstprune = default_nstprune(params, eff.nstlist, eff.rlist, density);
    }
    if (eff.rlist >= 2.0 * system.box.min_length())
        throw std::invalid_argument("rlist " + format_g(eff.rlist) + " nm is not below twice the shortest box edge");
    eff.rlist_inner = eff.nstprune < eff.nstlist ? std::min(eff.rlist, estimate_rlist(params, eff.nstprune - 1))
                                                 : eff.rlist;
}

// Domain decomposition: an impossible layout is refused here, before any run.
static void resolve_decomposition(const SystemSummary& system, const RunConfig& config, EffectiveConfig& eff) {
    if (eff.ranks <= 1 && !config.dd && config.npme <= 0) return;
    const double comm_distance = eff.rlist + 2.0 * system.update_group_radius;
    const DdLayout layout = resolve_dd_layout(system.box, eff.ranks, config.dd, config.npme, comm_distance,
                                              kPmeRanksBuilt && (eff.pme || config.npme > 0));
    eff.dd = layout.cells;
    eff.npme = layout.npme;
    eff.dd_comm_distance = layout.comm_distance;
    eff.dd_reason = layout.reason;
    // PME-only ranks would wait for a mesh that a system without charges never asks for.
    if (eff.npme > 0 && !eff.pme)
        throw std::invalid_argument("--npme " + std::to_string(eff.npme) +
                                    (system.charged_atoms() > 0 ? ": this system uses a reaction field"
                                                                : ": this system has no charges") +
                                    ", so no PME to give ranks to; use --npme 0");
    // The PME ranks share the mesh in x-slabs (ParallelPmeMesh): each needs an x and a y plane.
    const int planes = std::min(eff.pme_grid[0], eff.pme_grid[1]);
    if (eff.pme && eff.npme > planes)
        throw std::invalid_argument("--npme " + std::to_string(eff.npme) + " is more PME ranks than the PME grid " +
                                    format_tunable(TunableValue{eff.pme_grid}) + " has x or y planes (" +
                                    std::to_string(planes) + ")");
}

// Whether the layout resolves with this config's radii (resolve_decomposition on a copy).
static bool decomposition_fits(const SystemSummary& system, const RunConfig& config, const EffectiveConfig& eff) {
    EffectiveConfig trial = eff;
    try {
        resolve_decomposition(system, config, trial);
        return true;
    } catch (const std::invalid_argument&) {
        return false;
    }
}

EffectiveConfig resolve_config(const System& system, const RunConfig& config, const RunControl& control,
                               const ResolveOptions& options) {
    system.validate();
    return resolve_config(summarize(system), config, control, options);
}

EffectiveConfig resolve_config(const SystemSummary& system, const RunConfig& config, const RunControl& control,
                               const ResolveOptions& options) {
    if (system.natoms <= 0 || !(system.box.volume() > 0))
        throw std::invalid_argument("system '" + system.kind + "' has no atoms or no box");
    EffectiveConfig eff;
    // A build without MPI runs one rank whatever is planned: more would be N separate runs.
    if (options.planned_ranks > 1 && !kPmeRanksBuilt)
        throw std::invalid_argument("ranks = " + std::to_string(options.planned_ranks) +
                                    ": this mdcore was built without MPI (one rank only)");
    eff.ranks = options.planned_ranks > 0 ? options.planned_ranks : config.one_process ? 1 : world_size();
    if (config.ranks > 0 && config.ranks != eff.ranks)
        throw std::invalid_argument("--ranks " + std::to_string(config.ranks) + ": this run has " +
                                    std::to_string(eff.ranks) + " MPI rank(s); start it with mpirun -np " +
                                    std::to_string(config.ranks) + " (or srun --ntasks " + std::to_string(config.ranks) + ")");
    // Threads are per rank: by default the cores are shared among the node's ranks.
    eff.threads = config.threads > 0 ? config.threads
                                     : std::max(1, default_thread_count() / (eff.ranks > 1 ? node_rank_count() : 1));
    if (config.threads < 0) throw std::invalid_argument("--threads must be positive");
    eff.simd = resolve_simd_level(config.simd);
    eff.cluster = config.cluster.value_or(default_cluster_shape(eff.simd, config.nb, system.charged_atoms() > 0));
    resolve_offload(config, eff);
    // The decomposed runner has no GPU path yet: GPU tasks run on one rank.
    if (eff.ranks > 1 && (eff.nb == Offload::Gpu || eff.pme_offload == Offload::Gpu))
        throw std::invalid_argument("--nb/--pme gpu run on one rank only (no GPU path under domain decomposition yet); got " +
                                    std::to_string(eff.ranks) + " ranks");
    // Molecular systems (bonded interactions, LINCS) run on one rank and on the CPU
    // until domain decomposition and the GPU path learn to carry them.
    if (system.bonded_interactions > 0 || system.distance_constraints > 0) {
        if (eff.ranks > 1)
            throw std::invalid_argument("this system has bonded interactions or LINCS constraints, which run on one "
                                        "MPI rank only so far; got " + std::to_string(eff.ranks) + " ranks");
        if (eff.nb == Offload::Gpu || eff.pme_offload == Offload::Gpu || eff.update == Offload::Gpu)
            throw std::invalid_argument("this system has bonded interactions or LINCS constraints, which run on the "
                                        "CPU only so far: use --nb cpu --pme cpu --update cpu");
    }
    if (config.nstlist < 0) throw std::invalid_argument("--nstlist must be positive");
    if (config.nstprune < 0) throw std::invalid_argument("--nstprune must be positive");
    eff.nstlist = config.nstlist > 0 ? config.nstlist : kDefaultNstlist;
    eff.nstprune = config.nstprune > 0 ? std::min(config.nstprune, eff.nstlist)
                                       : (eff.nstlist > 5 ? std::max(1, eff.nstlist / 2) : eff.nstlist);
    eff.dt = system.dt;
    eff.temperature = system.temperature;
    eff.drift_tolerance = system.drift_tolerance;
    eff.thermostat = control.thermostat;
    check_run_control(control);
    resolve_electrostatics(system, config, eff);
    check_gpu_interaction(system, eff);
    // Mode E: the update reads every force on the device, so the mesh must be there too.
    if (eff.update == Offload::Gpu && eff.pme && eff.pme_offload != Offload::Gpu)
        throw std::invalid_argument("--update gpu needs --pme gpu on a charged system (the GPU update reads every force on the GPU)");
    eff.constraints = static_cast<int>(system.settles + system.distance_constraints);
    const EffectiveConfig before_radii = eff;
    resolve_pair_list_radii(system, config, eff, true);
    if (eff.ranks > 1 && !decomposition_fits(system, config, eff)) {
        // The longer list's communication distance (rlist + 2 group radii) does not
        // fit the cells: the decomposed run keeps the short fixed intervals.
        eff = before_radii;
        resolve_pair_list_radii(system, config, eff, false);
    }
    require_memory(estimate_run_memory(static_cast<double>(system.natoms), system.box, system.topology, eff),
                   "this run (" + std::to_string(system.natoms) + " atoms)",
                   options.check_host_memory);
    // After the memory check: the estimate sums over the grid, so (with the host check) an
    // absurd grid is refused for its size before anything iterates over it.
    if (eff.pme) require_pme_accuracy(system, config, eff);
    resolve_decomposition(system, config, eff);
    return eff;
}

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
