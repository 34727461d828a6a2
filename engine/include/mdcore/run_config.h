#pragma once
// The tunables of a run. RunConfig{} is always a valid, reasonable run: every field
// that is 0 / Auto is resolved by a documented heuristic (see resolve_config()).
#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "mdcore/physical_settings.h"

namespace mdcore {

// Nonbonded cluster shape: i-cluster size x j-cluster size. 1x1 is a plain
// particle Verlet list kept for comparison.
enum class ClusterShape { k4x4, k4x8, k8x4, k1x1 };

constexpr int cluster_i_size(ClusterShape s) {
    switch (s) {
        case ClusterShape::k4x4: return 4;
        case ClusterShape::k4x8: return 4;
        case ClusterShape::k8x4: return 8;
        case ClusterShape::k1x1: return 1;
    }
    return 0;
}
constexpr int cluster_j_size(ClusterShape s) {
    switch (s) {
        case ClusterShape::k4x4: return 4;
        case ClusterShape::k4x8: return 8;
        case ClusterShape::k8x4: return 4;
        case ClusterShape::k1x1: return 1;
    }
    return 0;
}
std::string_view to_string(ClusterShape s);
std::optional<ClusterShape> parse_cluster_shape(std::string_view text);

// SIMD level of the nonbonded kernels; Auto = widest the CPU supports.
enum class SimdLevel { Auto, None, Avx2, Avx512 };
std::string_view to_string(SimdLevel s);
std::optional<SimdLevel> parse_simd_level(std::string_view text);
// The CPU feature flags (CPUID / /proc/cpuinfo names) a level's kernels need:
// AVX2 needs avx2 + fma, AVX-512 avx512f + avx512vl + avx512dq.
std::span<const std::string_view> simd_cpu_flags(SimdLevel level);
// Whether a CPU with these feature flags runs the level's kernels (None: always;
// Auto: never, it is not a level). The one SIMD-capability rule; the tuner and the
// models judge other machines' fingerprints by it.
bool simd_supported(SimdLevel level, std::span<const std::string> cpu_flags);
// Whether this CPU does (the same rule on the running CPU's flags).
bool simd_supported(SimdLevel level);

// Where a task of the step runs: the CPU, or the GPU (CUDA builds with a device;
// docs/user/gpu.md). The offload modes of GROMACS' 2020 paper, Fig. 2:
// nb gpu (B), + pme gpu (C), + update gpu (E).
enum class Offload { Cpu, Gpu };
std::string_view to_string(Offload o);
std::optional<Offload> parse_offload(std::string_view text);

struct RunConfig {
    // Unset: 8x4 for AVX-512 (two 16-lane registers per cluster pair), 4x4 otherwise
    // (measured fastest per SIMD level on the in.lj benchmark).
    std::optional<ClusterShape> cluster;
    int nstlist = 0;                // 0: heuristic (see resolve_config)
    std::optional<double> rlist;    // explicit outer list radius; default from the buffer estimate
    int nstprune = 0;               // 0: heuristic; >= nstlist disables dynamic pruning
    int threads = 0;                // 0: all available cores
    SimdLevel simd = SimdLevel::Auto;
    // PME (used when the system has charges). The grid comes from pme_spacing
    // unless pme_grid is given. pme_scale multiplies rc and the spacing together
    // (beta follows rc), moving work between real and reciprocal space at
    // constant accuracy, as mdrun's PME tuning does.
    double pme_spacing = 0.12;      // nm, GROMACS' fourierspacing default
    std::optional<std::array<int, 3>> pme_grid;
    int pme_order = 4;              // 4, 5 or 6
    double pme_scale = 1.0;
    // Domain decomposition over the MPI ranks (mpirun -np N): the PP cell grid
    // (unset: auto, the least halo volume) and the PME-only ranks (-1: auto).
    std::optional<std::array<int, 3>> dd;
    int npme = -1;
    // The MPI ranks the run expects (0: whatever mpirun started). A tuner's trial
    // key holds it, so a run started on another rank count is refused, not mislabelled.
    int ranks = 0;
    // Runs in this process alone even under mpirun: every rank relaxes the same
    // generated system by itself (not a tunable).
    bool one_process = false;
    // Offload (tunables nb_offload, pme_offload, update_offload, gpu_id). PME or
    // update on the GPU need the nonbonded task there too (resolve_config).
    Offload nb = Offload::Cpu;
    Offload pme = Offload::Cpu;
    Offload update = Offload::Cpu;
    int gpu_id = 0;
};

// GROMACS' mdp spellings in lower case: potential-shift, force-switch,
// potential-switch; pme, reaction-field.
std::string_view to_string(VdwModifier m);
std::optional<VdwModifier> parse_vdw_modifier(std::string_view text);
std::string_view to_string(CoulombType c);
std::optional<CoulombType> parse_coulomb_type(std::string_view text);
// GROMACS' spellings as the manual writes them: no, EnerPres, Ener, AllEnerPres, AllEner.
std::string_view to_string(DispCorr d);
std::optional<DispCorr> parse_dispcorr(std::string_view text);

enum class Thermostat { None, VRescale };
std::string_view to_string(Thermostat t);

// Thread pinning (as mdrun -pin): auto pins when the run's threads (x the node's
// ranks) use every CPU this process may run on, on always, off (the default:
// no gain measured on the machines it was tried on: docs/decisions/0006) never.
enum class PinMode { Auto, On, Off };
std::string_view to_string(PinMode m);
std::optional<PinMode> parse_pin_mode(std::string_view text);

// Dynamic load balancing of the DD cell boundaries (as mdrun -dlb): auto turns
// it on when the PP ranks' force times differ by more than 2 % over 100 steps
// (domdec/dd_load_balance.h), yes always, no never.
enum class DlbMode { Auto, No, Yes };
std::string_view to_string(DlbMode m);
std::optional<DlbMode> parse_dlb_mode(std::string_view text);

// What to run (not tunable, not physics of the model).
struct RunControl {
    long steps = 1000;
    long warmup = 0;              // steps excluded from timings
    Thermostat thermostat = Thermostat::None;
    double tau_t = 0.1;           // ps, v-rescale coupling time
    int nstcalcenergy = 50;       // energies (and conserved-energy samples) every N steps
    unsigned long long seed = 1;  // thermostat noise
    PinMode pin = PinMode::Off;
    int pin_offset = 0;           // first CPU (index into the CPUs this process may use) for thread 0
    // Nonbonded work split by the threads' measured speeds (NonbondedForce::
    // set_thread_balance); off: an even split, and bit-identical repeated runs.
    bool thread_balance = true;
    DlbMode dlb = DlbMode::Auto;  // domain decomposition only
};

}  // namespace mdcore
