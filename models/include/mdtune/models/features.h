#pragma once
// What the models see of a (hardware, system, config) point: the raw settings
// (atoms, density, cut-offs, list lifetime, cluster shape, PME grid, threads,
// SIMD width, cores, cache, which tasks run on the GPU and the GPU's size) and
// per-task work terms derived from them (pair work,
// search, pruning, spread/gather, FFT). The same code computes them for measured
// trials (from the effective settings mdcore recorded) and for hypothetical
// configs (from mdcore's resolve_config on the system's summary), so a
// model is trained and queried on identical definitions.
#include <array>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mdcore/run_report.h"
#include "mdtune/core/config.h"
#include "mdtune/core/hardware.h"
#include "mdtune/core/feasibility.h"
#include "mdtune/core/trial.h"

namespace mdtune::models {

// The performance-relevant parts of a machine.
struct HardwareFeatures {
    std::string id;
    int cores = 1;            // hardware threads (what --threads may use)
    int physical_cores = 1;
    std::vector<std::string> simd_levels;  // mdcore levels this machine runs: "none", "avx2", "avx512"
    double cache_per_core_mb = 1.0;        // L2 + L3 share per core
    bool has_gpu = false;
    bool this_machine = false;  // this_hardware(): mdcore's host-memory check applies to it
    // The first GPU's model and size (0 / "" without one): what the GPU tasks run on.
    std::string gpu_model;
    int gpu_multiprocessors = 0;
    int gpu_clock_mhz = 0;
    double gpu_memory_bandwidth_gbs = 0.0;

    std::string widest_simd() const;  // "avx512" | "avx2" | "none"
    int simd_width() const;            // float lanes of the widest level: 16, 8 or 1
    HardwareCaps caps() const;
};

// From a fingerprint (the CPUID flags decide the SIMD levels mdcore would use).
HardwareFeatures hardware_features(const HardwareInfo& info);
// From the JSON the hardware table stores (HardwareInfo::to_json); throws
// std::invalid_argument naming the problem.
HardwareFeatures hardware_features_from_json(const std::string& json);
// This machine: the fingerprint plus the SIMD levels this mdcore build has kernels for.
HardwareFeatures this_hardware();

// The physics of a system that matters for speed, computed once per system
// from its summary (no particles are built).
struct SystemFeatures {
    std::string kind;
    long natoms = 0;
    double volume = 0;            // nm^3
    std::array<double, 3> box{0, 0, 0};  // nm: the cell shape a DD layout cuts
    double number_density = 0;   // atoms / nm^3
    double charged_fraction = 0;  // atoms with a charge / atoms
    double rc = 0;                // physics cut-off, nm
    double dt = 0;                // ps (for ns/day)
    long constraints = 0;         // SETTLE molecules
    // A protein's (0 for fluids and water boxes): LINCS distance constraints, and
    // bonds, angles, dihedrals, 1-4 pairs, CMAP and restraints.
    long distance_constraints = 0;
    long bonded_interactions = 0;
};

// Fills SystemFeatures and resolves configs through mdcore for a system, from
// the summary the feasibility check uses (computed once per descriptor).
class SystemModel {
public:
    explicit SystemModel(const SystemDescriptor& system);
    const SystemFeatures& features() const { return features_; }
    // The effective settings mdcore would run `config` with on `hw` (cluster and
    // thread defaults follow the target machine, not this one). Throws
    // std::invalid_argument with mdcore's message when the config is impossible
    // (rc above half the box, PME grid breaking the accuracy target, ...).
    mdcore::EffectiveConfig resolve(const Config& config, const HardwareFeatures& hw) const;

private:
    SystemDescriptor descriptor_;
    SystemFeatures features_;
};

// Everything a model reads about one point. Work terms are per MD step.
struct Features {
    std::string hardware_id;
    std::string system_kind;
    // settings
    double natoms = 0, density = 0, charged_fraction = 0;
    double rc = 0, rlist = 0, rlist_inner = 0;
    double nstlist = 0, nstprune = 0;
    int cluster_i = 4, cluster_j = 4;
    bool pme = false;
    double pme_grid_points = 0, pme_order = 0;
    double threads = 1, simd_width = 1, cores = 1, cache_per_core_mb = 1;
    double constraints = 0;          // SETTLE molecules
    double lincs_constraints = 0;    // LINCS distance constraints
    double bonded_interactions = 0;  // bonded terms evaluated per step
    // Domain decomposition (one rank: 1 PP rank, no halo).
    double ranks = 1, pp_ranks = 1, npme = 0;
    std::array<int, 3> dd{1, 1, 1};  // PP cells per dimension
    double halo_fraction = 0;  // halo atoms per home atom of a PP rank (eighth shell, comm distance)
    double pp_pme_atoms = 0;   // charged atoms each PME-only rank receives per step (npme > 0)
    // Offload (1 where the task runs on the GPU: modes B, C, E) and the GPU it runs on.
    double nb_gpu = 0, pme_gpu = 0, update_gpu = 0;
    double gpu_multiprocessors = 0, gpu_bandwidth_gbs = 0;
    // work terms (counts per step)
    bool pruned = false;      // dynamic pruning active (nstprune < nstlist and rlist_inner < rlist)
    double pair_work = 0;     // atom pairs the kernels evaluate (pruned inner list, or the searched one)
    double outer_pairs = 0;   // atom pairs in the searched (outer) list
    double search_work = 0;   // outer_pairs / nstlist
    double search_atoms = 0;  // natoms / nstlist (gridding, sorting)
    double prune_work = 0;    // outer_pairs / nstprune when pruning, else 0
    double spread_work = 0;   // charged atoms x order^3 (spread, and again gather)
    double fft_work = 0;      // G log2 G (forward + back)
    double solve_work = 0;    // G
    double pp_workers() const { return pp_ranks * threads; }                   // cores on PP work
    double pme_workers() const { return (npme > 0 ? npme : pp_ranks) * threads; }  // cores on the mesh

    std::string cluster() const;  // "4x4", ...
};

// How a cluster-pair list was made: by the grid search (cell bounding boxes) or
// by pruning an existing list with atom bounding boxes, which is tighter.
enum class ListKind { Searched, Pruned };

// Volume per i-atom that a cluster-pair list of radius r covers: a sphere of
// radius r swept around a box of the two clusters' summed edges (Steiner
// formula). N rho / 2 times it estimates the pairs a list holds, including the
// pairs beyond r that cluster lists pay for (the GROMACS 2020 paper's work
// efficiency). The box scale (0.72 searched, 0.51 pruned, times the cluster
// edges (n / rho)^(1/3)) is fitted to mdcore's measured list sizes: within
// 12 % for SPC/E and the LJ fluid in every shape and list lifetime, except LJ
// 4x4 lists, up to 30 % smaller (the cost model's per-shape terms absorb that).
double cluster_list_volume(int cluster_i, int cluster_j, double number_density, double r, ListKind kind);

// Halo atoms per home atom of a cell of the grid `cells` over `box`: the eighth
// shell a cell receives (each decomposed dimension's cell edge grown by the
// communication distance) over the cell's volume; 0 for one cell.
double dd_halo_fraction(const std::array<double, 3>& box, const std::array<int, 3>& cells, double comm_distance);

Features compute_features(const HardwareFeatures& hw, const SystemFeatures& sys, const mdcore::EffectiveConfig& eff);

}  // namespace mdtune::models
