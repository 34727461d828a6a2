// Config resolution: what a run will use, every heuristic resolved and every
// impossible setting refused before anything is allocated (the thread count, SIMD
// level and cluster shape, the offload mode, the interaction form, PME's grid and
// beta, the pair-list radii and intervals, the domain decomposition, the memory).
// The MD loop that runs with the result is ../engine.cpp.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "domdec/dd_layout.h"
#include "domdec/mpi_world.h"
#include "domdec/update_groups.h"
#include "mdcore/engine.h"
#include "mdcore/system_summary.h"
#include "mdcore/tunables.h"
#include "memory_estimate.h"
#include "pairlist/buffer_setup.h"
#include "pairlist/list_intervals.h"
#include "nonbonded/kernel_dispatch.h"
#include "pme/pme.h"
#include "pme/pme_accuracy.h"
#include "util/format.h"
#include "util/thread_count.h"

namespace mdcore {
namespace {

// Default outer-list lifetime. The search costs several kernel calls, so 20 steps
// (pruned every 10) beat 10 on in.lj and SPC/E in our measurements; the buffer
// estimate keeps the accuracy whatever the choice. Both are tunables.
constexpr int kDefaultNstlist = 20;

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

}  // namespace mdcore
