// The feature vector and its per-task work terms.
#include <algorithm>
#include <cmath>
#include <numbers>

#include "mdtune/models/features.h"

namespace mdtune::models {

double cluster_list_volume(int cluster_i, int cluster_j, double number_density, double r, ListKind kind) {
    const double a_i = std::cbrt(cluster_i / number_density);
    const double a_j = std::cbrt(cluster_j / number_density);
    const double L = (kind == ListKind::Searched ? 0.72 : 0.51) * (a_i + a_j);
    const double pi = std::numbers::pi;
    return L * L * L + 6.0 * L * L * r + 3.0 * pi * L * r * r + 4.0 / 3.0 * pi * r * r * r;
}

double dd_halo_fraction(const std::array<double, 3>& box, const std::array<int, 3>& cells, double comm_distance) {
    double cell = 1, grown = 1;
    bool decomposed = false;
    for (int d = 0; d < 3; ++d) {
        const double edge = box[d] / std::max(1, cells[d]);
        cell *= edge;
        grown *= cells[d] > 1 ? edge + comm_distance : edge;
        decomposed = decomposed || cells[d] > 1;
    }
    return decomposed && cell > 0 ? grown / cell - 1.0 : 0.0;
}

std::string Features::cluster() const { return std::to_string(cluster_i) + "x" + std::to_string(cluster_j); }

Features compute_features(const HardwareFeatures& hw, const SystemFeatures& sys, const mdcore::EffectiveConfig& eff) {
    Features f;
    f.hardware_id = hw.id;
    f.system_kind = sys.kind;
    f.natoms = static_cast<double>(sys.natoms);
    f.density = sys.number_density;
    f.charged_fraction = sys.charged_fraction;
    f.rc = eff.rc;
    f.rlist = eff.rlist;
    f.rlist_inner = eff.rlist_inner > 0 ? eff.rlist_inner : eff.rlist;
    f.nstlist = std::max(1, eff.nstlist);
    f.nstprune = std::max(1, eff.nstprune);
    f.cluster_i = mdcore::cluster_i_size(eff.cluster);
    f.cluster_j = mdcore::cluster_j_size(eff.cluster);
    f.pme = eff.pme;
    f.pme_grid_points = eff.pme ? static_cast<double>(eff.pme_grid[0]) * eff.pme_grid[1] * eff.pme_grid[2] : 0.0;
    f.pme_order = eff.pme ? eff.pme_order : 0;
    f.threads = std::max(1, eff.threads);
    f.simd_width = eff.simd == mdcore::SimdLevel::Avx512 ? 16 : eff.simd == mdcore::SimdLevel::Avx2 ? 8 : 1;
    f.cores = hw.cores;
    f.cache_per_core_mb = hw.cache_per_core_mb;
    f.constraints = static_cast<double>(sys.constraints);
    f.lincs_constraints = static_cast<double>(sys.distance_constraints);
    f.bonded_interactions = static_cast<double>(sys.bonded_interactions);
    f.ranks = std::max(1, eff.ranks);
    f.npme = std::max(0, eff.npme);
    f.pp_ranks = std::max(1.0, f.ranks - f.npme);
    f.dd = eff.dd;
    f.halo_fraction = dd_halo_fraction(sys.box, eff.dd, eff.dd_comm_distance);
    f.pp_pme_atoms = f.npme > 0 ? f.natoms * f.charged_fraction / f.npme : 0.0;
    f.nb_gpu = eff.nb == mdcore::Offload::Gpu ? 1.0 : 0.0;
    f.pme_gpu = eff.pme && eff.pme_offload == mdcore::Offload::Gpu ? 1.0 : 0.0;
    f.update_gpu = eff.update == mdcore::Offload::Gpu ? 1.0 : 0.0;
    f.gpu_multiprocessors = f.nb_gpu > 0 ? hw.gpu_multiprocessors : 0.0;
    f.gpu_bandwidth_gbs = f.nb_gpu > 0 ? hw.gpu_memory_bandwidth_gbs : 0.0;

    // Half lists: each pair once. mdcore prunes only when the inner radius is
    // below the outer one; otherwise the kernels run on the searched list.
    const double half_n_rho = 0.5 * f.natoms * f.density;
    f.pruned = f.nstprune < f.nstlist && f.rlist_inner < f.rlist;
    f.outer_pairs = half_n_rho * cluster_list_volume(f.cluster_i, f.cluster_j, f.density, f.rlist, ListKind::Searched);
    f.pair_work = f.pruned ? half_n_rho * cluster_list_volume(f.cluster_i, f.cluster_j, f.density, f.rlist_inner,
                                                               ListKind::Pruned)
                           : f.outer_pairs;
    f.search_work = f.outer_pairs / f.nstlist;
    f.search_atoms = f.natoms / f.nstlist;
    f.prune_work = f.pruned ? f.outer_pairs / f.nstprune : 0.0;
    if (f.pme) {
        const double charged = f.natoms * f.charged_fraction;
        f.spread_work = charged * f.pme_order * f.pme_order * f.pme_order;
        f.fft_work = f.pme_grid_points * std::log2(std::max(2.0, f.pme_grid_points));
        f.solve_work = f.pme_grid_points;
    }
    return f;
}

}  // namespace mdtune::models
