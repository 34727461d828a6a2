#include "md_runner.h"

#include <cmath>

#include "pairlist/cluster_pair_search.h"

namespace mdcore {
namespace {
// Padding slots sit far outside the box; their mask bits are off anyway.
constexpr double kFarAway = -1.0e4;
}  // namespace

MdRunner::MdRunner(System& system, const EffectiveConfig& config)
    : system_(system),
      config_(config),
      dual_(config.nstprune < config.nstlist && config.rlist_inner < config.rlist),
      nonbonded_(system, config.cluster, config.simd, config.threads) {}

void MdRunner::scatter_to_system() {
    for (std::size_t s = 0; s < order_.size(); ++s) {
        const int a = order_[s];
        if (a < 0) continue;
        system_.positions[a] = {state_.x[s], state_.y[s], state_.z[s]};
        system_.velocities[a] = {state_.vx[s], state_.vy[s], state_.vz[s]};
    }
}

void MdRunner::search() {
    if (!order_.empty()) scatter_to_system();
    for (auto& p : system_.positions)
        for (int d = 0; d < 3; ++d) {
            const double L = system_.box.lengths[d];
            p[d] -= L * std::floor(p[d] / L);
            if (p[d] >= L) p[d] = 0.0;
        }
    grid_.build(system_.box, system_.positions, cluster_i_size(config_.cluster), cluster_j_size(config_.cluster),
                config_.threads);
    order_ = grid_.order();
    const std::size_t n = order_.size();
    state_.resize(n);
    for (std::size_t s = 0; s < n; ++s) {
        const int a = order_[s];
        if (a < 0) {
            state_.x[s] = state_.y[s] = state_.z[s] = kFarAway;
            continue;
        }
        state_.x[s] = system_.positions[a][0];
        state_.y[s] = system_.positions[a][1];
        state_.z[s] = system_.positions[a][2];
        state_.vx[s] = system_.velocities[a][0];
        state_.vy[s] = system_.velocities[a][1];
        state_.vz[s] = system_.velocities[a][2];
        state_.mass[s] = system_.mass[a];
        state_.inv_mass[s] = 1.0 / system_.mass[a];
    }
    nonbonded_.set_order(order_);
    search_cluster_pairs(grid_, config_.rlist, system_.exclusions, config_.threads, search_work_, outer_);
    if (dual_) prune();
}

void MdRunner::update_float_coordinates() {
    auto& fxs = nonbonded_.x();
    auto& fys = nonbonded_.y();
    auto& fzs = nonbonded_.z();
    const long n = static_cast<long>(state_.size());
#pragma omp parallel for num_threads(config_.threads) schedule(static)
    for (long s = 0; s < n; ++s) {
        fxs[s] = static_cast<float>(state_.x[s]);
        fys[s] = static_cast<float>(state_.y[s]);
        fzs[s] = static_cast<float>(state_.z[s]);
    }
}

void MdRunner::prune() {
    if (!dual_) return;
    update_float_coordinates();
    prune_pair_list(outer_, nonbonded_.prune_kernel(), nonbonded_.coordinates(), config_.rlist_inner, config_.threads,
                    search_work_, inner_);
}

NonbondedEnergies MdRunner::compute_forces(EnergyOutput energy) {
    update_float_coordinates();
    return nonbonded_.compute(inner_list(), energy, state_.fx.data(), state_.fy.data(), state_.fz.data());
}

std::vector<Vec3> MdRunner::forces_in_input_order() const {
    std::vector<Vec3> f(system_.natoms(), Vec3{0, 0, 0});
    for (std::size_t s = 0; s < order_.size(); ++s)
        if (order_[s] >= 0) f[order_[s]] = {state_.fx[s], state_.fy[s], state_.fz[s]};
    return f;
}

}  // namespace mdcore
