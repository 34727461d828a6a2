#pragma once
// The result of a run, serialised as JSON with schema_version 1 (docs/user/run_report.md).
#include <array>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "mdcore/build_info.h"
#include "mdcore/run_config.h"
#include "mdcore/system.h"

namespace mdcore {

// 2: the "parallel" block and the config's ranks, dd and npme (version-1 reports still read).
inline constexpr int kRunReportSchemaVersion = 2;

struct EnergySample {
    double lj = 0.0;
    double coulomb_sr = 0.0;     // Ewald real space + exclusion correction + self term (GROMACS "Coulomb (SR)")
    double coulomb_recip = 0.0;  // PME mesh (+ net-charge term) (GROMACS "Coul. recip.")
    BondedEnergies bonded;       // one field per GROMACS bonded term (mdcore/interactions.h)
    double dispersion_correction = 0.0;  // GROMACS "Disper. corr." (DispCorr), in the potential
    double pressure_dc = 0.0;    // bar, GROMACS "Pres. DC (bar)" (DispCorr EnerPres, AllEnerPres)
    double potential = 0.0;
    double kinetic = 0.0;
    double total = 0.0;
    double conserved = 0.0;
    double temperature = 0.0;
};

// Config as actually used: heuristics resolved, derived radii filled in.
struct EffectiveConfig {
    ClusterShape cluster = ClusterShape::k4x4;
    int nstlist = 0;
    int nstprune = 0;
    double rc = 0.0;           // cut-off actually used (physics rc x pme_scale)
    double rlist = 0.0;        // outer list radius
    double rlist_inner = 0.0;  // radius the list is pruned to (== rlist without pruning)
    bool rlist_from_estimate = true;
    int threads = 1;
    SimdLevel simd = SimdLevel::None;
    Thermostat thermostat = Thermostat::None;
    double dt = 0.0;
    double temperature = 0.0;
    double drift_tolerance = 0.0;
    bool pme = false;          // Coulomb by Ewald real space + PME mesh
    double ewald_beta = 0.0;   // nm^-1
    double ewald_rtol = 0.0;
    std::array<int, 3> pme_grid{0, 0, 0};
    int pme_order = 0;
    double pme_spacing = 0.0;  // requested spacing after scaling, nm
    double pme_scale = 1.0;
    double pme_force_error = 0.0;  // estimated RMS Coulomb force error per charged atom, kJ/mol/nm (pme_error.h)
    // The interaction's form at rc, from the system's physical settings: the LJ
    // modifier, and the Coulomb method of a charged system (pme true for PME).
    VdwModifier vdw_modifier = VdwModifier::PotentialShift;
    double rvdw_switch = 0.0;  // nm
    CoulombType coulomb_type = CoulombType::Pme;
    double epsilon_rf = 1.0;   // 0: infinity
    DispCorr dispcorr = DispCorr::No;
    int constraints = 0;       // SETTLE molecules plus LINCS distance constraints
    // Domain decomposition (domdec/dd_layout.h): one rank is 1x1x1, npme 0.
    int ranks = 1;             // MPI ranks of the run
    std::array<int, 3> dd{1, 1, 1};
    int npme = 0;              // PME-only ranks
    double dd_comm_distance = 0;  // nm: rlist + 2 x update-group radius (0 on one rank)
    std::string dd_reason;     // why this grid
    Offload nb = Offload::Cpu;      // where each task ran (the offload mode)
    Offload pme_offload = Offload::Cpu;
    Offload update = Offload::Cpu;
    int gpu_id = 0;
};

// How a decomposed run spent its time, per PP rank and as means over the PP
// ranks (seconds over the measured steps); empty per-rank lists on one rank.
struct ParallelStats {
    std::vector<double> force_time;  // nonbonded kernel time per PP rank
    std::vector<long> atoms;         // home atoms per PP rank at the end
    double halo_x = 0;               // coordinate halo exchange (and its setup at searches)
    double halo_f = 0;               // force halo exchange
    double pp_pme = 0;               // PP <-> PME-rank traffic (npme > 0)
    double mesh = 0;                 // the mesh solver call, its communication included
    double reductions = 0;           // energy and kinetic-energy reductions
    double wait = 0;                 // waiting for the slowest rank before the reduction
    double load_imbalance = 1;       // max / mean force time
    std::string dlb;                 // dynamic load balancing: the mode, and the cell boundaries it left
    std::string shm_copy;            // the MPI shared-memory single-copy setting (domdec/mpi_world.h)
};

// The device a run with a GPU task used, and what the GPU did (docs/user/gpu.md).
struct GpuReport {
    std::string name;           // "" when no task ran on a GPU
    long memory_bytes = 0;
    std::string compute_capability;
    std::map<std::string, double> kernel_seconds;  // CUDA-event time per kernel and copy, measured steps
    double cpu_wait_seconds = 0;  // CPU time blocked waiting for GPU results
};

// How the run's OpenMP threads ran (docs/user/mdcore-run.md, "Threads, pinning and waits").
struct ThreadStats {
    PinMode pin = PinMode::Off;  // what was asked (--pin)
    bool pinned = false;
    std::vector<int> cpus;       // the CPU of each thread, when pinned
    std::string pin_note;        // why the threads were (not) pinned
    // Seconds per thread, measured steps, spent at the barriers that end the
    // nonbonded, PME spread / gather and SETTLE + update tasks waiting for the
    // other threads (empty on a decomposed run).
    std::vector<double> wait;
};

struct PairlistStats {
    double list_pairs = 0;       // atom pairs evaluated by the kernel per step (inner list, incl. masked lanes)
    double pairs_in_cutoff = 0;  // atom pairs within rc
    double efficiency = 0;       // pairs_in_cutoff / list_pairs
    double outer_list_pairs = 0; // atom pairs in the outer list
    long searches = 0;
    long prunes = 0;
};

struct RunReport {
    BuildInfo build;  // the binary that ran (filled by run(); "engine_version" and "build" in JSON)
    std::string status = "ok";  // ok | failed (energy, force or velocity stopped being finite)
    std::string error;
    long failed_step = -1;  // with status "failed": the step at which it happened
    std::string system_kind;
    long natoms = 0;
    Vec3 box{};
    double number_density = 0;
    double mass_density = 0;
    EffectiveConfig config;
    long steps = 0;
    long warmup = 0;
    double ns_per_day = 0;
    double ms_per_step = 0;
    std::map<std::string, double> timings;  // task -> seconds, measured steps only
    PairlistStats pairlist;
    EnergySample start;
    EnergySample end;
    double drift_per_atom_per_ps = 0;  // slope of the conserved energy / natoms
    // Standard error of that slope (correlated samples accounted for): a short
    // run cannot tell a drift of the tolerance's size from fluctuations.
    double drift_stderr_per_atom_per_ps = 0;
    long energy_samples = 0;
    double max_constraint_deviation = 0;  // largest relative SETTLE distance error seen
    ParallelStats parallel;
    GpuReport gpu;
    ThreadStats threads;
    // Where each setting the run used came from: "mdp:FILE:LINE", "flag --X" or
    // "default" (a note in parentheses may follow, e.g. an .mdp value not applied).
    std::map<std::string, std::string> setting_sources;
};

}  // namespace mdcore

namespace mdcore {
// JSON text of a report (schema_version 1; fields documented in docs/user/run_report.md).
std::string run_report_to_json(const RunReport& report, int indent = 2);
// The report's "config" and "pairlist" objects on their own (compact JSON), as
// run_report_to_json writes them.
std::string effective_config_to_json(const EffectiveConfig& config);
std::string pairlist_to_json(const PairlistStats& pairlist, const EffectiveConfig& config);

// A report that cannot be read: field() names the offending field as a path
// ("config.nstlist", "energies.end.lj"; "" when the text is not JSON at all).
class RunReportError : public std::runtime_error {
public:
    RunReportError(std::string field, const std::string& problem);
    const std::string& field() const { return field_; }

private:
    std::string field_;
};
// Reads what run_report_to_json writes. Reports of older builds still read:
// blocks and fields they lack (build, system, pairlist, energies, timings, PME
// settings, drift_stderr_per_atom_per_ps, ...) stay at their defaults; a missing
// schema_version reads as 1. Required are status-independent measurements
// (ms_per_step, ns_per_day, drift_per_atom_per_ps) and the config's cluster,
// simd, threads, nstlist, nstprune, rc, rlist, rlist_inner and drift_tolerance.
// Fields this reader does not know are ignored. Throws RunReportError on text
// that is not a JSON object, a missing required field, a value of the wrong
// type or an unknown enum name, and on a schema_version newer than
// kRunReportSchemaVersion.
RunReport run_report_from_json(std::string_view text);
// Human-readable summary.
std::string run_report_to_text(const RunReport& report);
// The sample's energies under GROMACS' term names, in the order gmx energy lists
// them: the bonded terms this sample has (non-zero), LJ (SR), Coulomb (SR),
// Coul. recip., Position Rest. (when non-zero) and Potential.
std::vector<std::pair<const char*, double>> gromacs_energy_terms(const EnergySample& e);
}  // namespace mdcore
