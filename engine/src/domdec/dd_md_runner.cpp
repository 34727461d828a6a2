#include "domdec/dd_md_runner.h"

#include <utility>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <string>

#include "domdec/atom_migration.h"
#include "domdec/mpi_world.h"
#include "mdcore/units.h"

namespace mdcore {
namespace {

EffectiveConfig without_mesh(EffectiveConfig c) {
    c.pme = false;  // the mesh runs over all ranks' home atoms (MeshSolver), not on the local System
    return c;
}

std::vector<int> settle_of_o(const System& system) {
    std::vector<int> of(system.natoms(), -1);
    for (std::size_t s = 0; s < system.settles.size(); ++s) of[system.settles[s].o] = static_cast<int>(s);
    return of;
}

// Gathers every rank's `mine` onto every rank, in rank order.
std::vector<double> allgather(const std::vector<double>& mine, MPI_Comm comm) {
    int size = 1;
    MPI_Comm_size(comm, &size);
    const int count = static_cast<int>(mine.size());
    std::vector<int> counts(size), displs(size);
    MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
    int total = 0;
    for (int r = 0; r < size; ++r) {
        displs[r] = total;
        total += counts[r];
    }
    std::vector<double> all(total);
    MPI_Allgatherv(mine.data(), count, MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE, comm);
    return all;
}

}  // namespace

DdMdRunner::DdMdRunner(System& global, const EffectiveConfig& config, const DdLayout& layout, MPI_Comm pp_comm,
                       std::unique_ptr<MeshSolver> mesh)
    : global_(global),
      config_(config),
      layout_(layout),
      comm_(pp_comm),
      groups_(make_update_groups(global)),
      settle_of_atom_(settle_of_o(global)),
      global_to_local_(global.natoms(), -1),
      local_system_(global),  // the runner's parameters (LJ types, charges present) come from the whole system
      md_(local_system_, without_mesh(config), false),
      mesh_(std::move(mesh)) {
    pme_ranks_ = dynamic_cast<PmeRankMesh*>(mesh_.get());
    int rank = 0;
    MPI_Comm_rank(comm_, &rank);
    cell_ = dd_cell_of(rank, layout.cells, global.box);
    for (double q : global.charge) total_charge_ += q;
    const CoulombConstants constants = coulomb_constants(global, config);
    self_energy_ = constants.self;
    charged_energy_ = constants.charged;
    md_.choose_grid_columns_for(global);
    md_.set_list_filter([this](const ClusterGrid& grid, PairList& list) {
        if (zone_filter_needed_) filter_pairs_by_zone(zones_, grid.order(), config_.threads, list);
    });
}

void DdMdRunner::add_time(double Times::*field, Clock::time_point since) {
    if (timing_) times_.*field += std::chrono::duration<double>(Clock::now() - since).count();
}

double DdMdRunner::allreduce_sum(double v) const {
    double sum = 0;
    MPI_Allreduce(&v, &sum, 1, MPI_DOUBLE, MPI_SUM, comm_);
    return sum;
}

HomeGroups DdMdRunner::current_home_groups() {
    HomeGroups home;
    // First partition: every rank has the whole system and keeps its cell's groups.
    if (!searched_) return initial_home_groups(global_, groups_, cell_);
    md_.scatter_to_system();
    home.group.assign(local_.group.begin(), local_.group.begin() + local_.home_groups);
    home.x.assign(local_system_.positions.begin(), local_system_.positions.begin() + local_.home_atoms);
    home.v.assign(local_system_.velocities.begin(), local_system_.velocities.begin() + local_.home_atoms);
    return home;
}

void DdMdRunner::set_dlb(DlbMode mode) {
    dlb_mode_ = mode;
    dlb_on_ = mode == DlbMode::Yes;
}

void DdMdRunner::balance_cells() {
    if (dlb_mode_ == DlbMode::No) return;
    // auto, still off: judge the imbalance over at least kDlbAutoCheckSteps (the
    // same count on every rank, so the collective below is reached by all).
    dlb_steps_ += config_.nstlist;
    if (!dlb_on_ && dlb_steps_ < kDlbAutoCheckSteps) return;
    dlb_steps_ = 0;
    int size = 1;
    MPI_Comm_size(comm_, &size);
    std::vector<double> time(size);
    MPI_Allgather(&dlb_force_time_, 1, MPI_DOUBLE, time.data(), 1, MPI_DOUBLE, comm_);
    dlb_force_time_ = 0;
    const double mean = std::accumulate(time.begin(), time.end(), 0.0) / size;
    if (!(mean > 0)) return;
    if (!dlb_on_) {
        if (*std::max_element(time.begin(), time.end()) / mean <= kDlbAutoThreshold) return;
        dlb_on_ = true;
        dlb_on_at_search_ = searches_;
    }
    const Box& box = global_.box;
    for (int d = 0; d < 3; ++d) {
        if (!cell_.decomposed(d)) continue;
        // A slab of cells is as slow as its slowest rank.
        std::vector<double> load(cell_.cells[d], 0.0);
        for (int r = 0; r < size; ++r) {
            const DdCell other = dd_cell_of(r, cell_.cells, box);
            load[other.index[d]] = std::max(load[other.index[d]], time[r]);
        }
        const double min_width = std::max(layout_.comm_distance, kDlbMinFraction * box.lengths[d] / cell_.cells[d]);
        cell_.set_bounds(d, balanced_bounds(cell_.bounds[d], load, min_width));
    }
}

std::string DdMdRunner::dlb_summary() const {
    std::string s(to_string(dlb_mode_));
    if (dlb_mode_ == DlbMode::Auto)
        s += dlb_on_ ? ": on from search " + std::to_string(dlb_on_at_search_)
                     : ": off (force-time imbalance never above " + std::to_string(kDlbAutoThreshold).substr(0, 4) +
                           " over " + std::to_string(kDlbAutoCheckSteps) + " steps)";
    for (int d = 0; d < 3; ++d) {
        if (!cell_.decomposed(d) || !dlb_on_) continue;
        s += std::string("; ") + "xyz"[d] + " bounds";
        for (double b : cell_.bounds[d]) {
            char buf[16];
            std::snprintf(buf, sizeof buf, " %.3f", b);
            s += buf;
        }
    }
    return s;
}

void DdMdRunner::search() {
    const Box& box = global_.box;
    if (searched_) balance_cells();
    ++searches_;
    HomeGroups home = current_home_groups();
    migrate_home_groups(home, groups_, cell_, box, comm_);
    local_ = local_home_atoms(home, groups_, box);
    const auto t_halo = Clock::now();
    halo_.setup(local_, groups_, cell_, box, layout_.comm_distance, comm_);
    add_time(&Times::halo_x, t_halo);
    zones_ = local_zones(local_, box, {cell_.decomposed(0), cell_.decomposed(1), cell_.decomposed(2)});
    // The communication distance bounds the list radius from above.
    zone_filter_needed_ = zone_filter_needed(local_.x, box.lengths, zones_.decomposed, layout_.comm_distance);
    build_local_system(global_, local_, settle_of_atom_, global_to_local_, local_system_);
    md_.discard_state();
    md_.set_atom_zones(zones_.zone);  // zone-pure clusters: no halo-halo pair is searched or masked
    md_.search();
    slot_of_.assign(local_.size(), -1);
    const auto& order = md_.grid().order();
    for (std::size_t s = 0; s < order.size(); ++s)
        if (order[s] >= 0) slot_of_[order[s]] = static_cast<int>(s);
    searched_ = true;
    halo_current_ = true;
    check_partition();
    count_list_pairs();
}

void DdMdRunner::check_partition() const {
    // Atoms and charge summed over the home atoms: a group lost or doubled in
    // migration shows here at the search that caused it.
    double mine[2] = {static_cast<double>(local_.home_atoms), 0.0};
    for (int a = 0; a < local_.home_atoms; ++a) mine[1] += global_.charge[local_.global[a]];
    double total[2];
    MPI_Allreduce(mine, total, 2, MPI_DOUBLE, MPI_SUM, comm_);
    if (total[0] != static_cast<double>(global_.natoms()) || std::abs(total[1] - total_charge_) > 1e-6 * (1 + total[0]))
        throw std::runtime_error("domain decomposition lost atoms: the ranks hold " + std::to_string(static_cast<long>(total[0])) +
                                 " atoms of total charge " + std::to_string(total[1]) + " e, the system has " +
                                 std::to_string(global_.natoms()) + " of " + std::to_string(total_charge_) + " e");
}

void DdMdRunner::count_list_pairs() {
    double mine[2] = {md_.list_pairs(), md_.outer_list_pairs()}, total[2];
    MPI_Allreduce(mine, total, 2, MPI_DOUBLE, MPI_SUM, comm_);
    list_pairs_ = total[0];
    outer_pairs_ = total[1];
}

void DdMdRunner::exchange_halo_coordinates() {
    const auto t0 = Clock::now();
    const Vec3& L = global_.box.lengths;
    SortedState& st = md_.state();
    const int n = local_.size();
    x_flat_.resize(3 * n);
    // Only what the pulses read: on water-24k at 2x1x1 a third of the home atoms.
    for (const int a : halo_.sent_home_atoms()) {
        const int s = slot_of_[a];
        const auto& im = zones_.image[a];
        x_flat_[3 * a] = st.x[s] + im[0] * L[0];
        x_flat_[3 * a + 1] = st.y[s] + im[1] * L[1];
        x_flat_[3 * a + 2] = st.z[s] + im[2] * L[2];
    }
    halo_.exchange_coordinates(x_flat_);
    for (int a = local_.home_atoms; a < n; ++a) {
        const int s = slot_of_[a];
        const auto& im = zones_.image[a];
        st.x[s] = x_flat_[3 * a] - im[0] * L[0];
        st.y[s] = x_flat_[3 * a + 1] - im[1] * L[1];
        st.z[s] = x_flat_[3 * a + 2] - im[2] * L[2];
    }
    halo_current_ = true;
    add_time(&Times::halo_x, t0);
}

void DdMdRunner::return_halo_forces() {
    const auto t0 = Clock::now();
    SortedState& st = md_.state();
    const int n = local_.size();
    f_flat_.resize(3 * n);
    // The halo atoms' forces go back; only the home atoms that were sent get some.
    const auto to_flat = [&](int a) {
        const int s = slot_of_[a];
        f_flat_[3 * a] = st.fx[s];
        f_flat_[3 * a + 1] = st.fy[s];
        f_flat_[3 * a + 2] = st.fz[s];
    };
    for (const int a : halo_.sent_home_atoms()) to_flat(a);
    for (int a = local_.home_atoms; a < n; ++a) to_flat(a);
    halo_.exchange_forces(f_flat_);
    for (const int a : halo_.sent_home_atoms()) {
        const int s = slot_of_[a];
        st.fx[s] = f_flat_[3 * a];
        st.fy[s] = f_flat_[3 * a + 1];
        st.fz[s] = f_flat_[3 * a + 2];
    }
    add_time(&Times::halo_f, t0);
}

void DdMdRunner::prune() {
    if (!md_.dual_list()) return;
    if (!halo_current_) exchange_halo_coordinates();
    md_.prune();
    count_list_pairs();
}

ForceEnergies DdMdRunner::compute_nonbonded(EnergyOutput energy) {
    if (!halo_current_) exchange_halo_coordinates();
    if (pme_ranks_) {
        // The PME ranks work on the mesh while this rank computes its pair forces.
        const auto t = Clock::now();
        gather_mesh_input();
        pme_ranks_->begin(mesh_q_.size(), mesh_x_.data(), mesh_y_.data(), mesh_z_.data(), mesh_q_.data());
        mesh_started_ = true;
        add_time(&Times::mesh, t);
    }
    const auto t0 = Clock::now();
    ForceEnergies e = md_.compute_nonbonded(energy);
    dlb_force_time_ += std::chrono::duration<double>(Clock::now() - t0).count();
    add_time(&Times::force, t0);
    return_halo_forces();
    if (energy == EnergyOutput::Yes) {
        const auto t1 = Clock::now();
        double mine[3] = {e.lj, e.coulomb_sr, e.pairs_in_cutoff}, total[3];
        MPI_Allreduce(mine, total, 3, MPI_DOUBLE, MPI_SUM, comm_);
        e.lj = total[0];
        e.coulomb_sr = total[1] + self_energy_;
        e.pairs_in_cutoff = total[2];
        add_time(&Times::reductions, t1);
    }
    return e;
}

// Home atoms' coordinates and charges, in home order, for the mesh.
void DdMdRunner::gather_mesh_input() {
    const SortedState& st = std::as_const(md_).state();  // read only: the float copies stay valid
    const int n = local_.home_atoms;
    mesh_x_.resize(n);
    mesh_y_.resize(n);
    mesh_z_.resize(n);
    mesh_q_.resize(n);
    for (int a = 0; a < n; ++a) {
        const int s = slot_of_[a];
        mesh_x_[a] = st.x[s];
        mesh_y_[a] = st.y[s];
        mesh_z_[a] = st.z[s];
        mesh_q_[a] = local_system_.charge[a];
    }
}

double DdMdRunner::compute_pme(EnergyOutput energy) {
    if (!mesh_) return 0.0;
    mesh_->set_energy_wanted(energy == EnergyOutput::Yes);
    const auto t0 = Clock::now();
    const int n = local_.home_atoms;
    mesh_fx_.assign(n, 0.0f);
    mesh_fy_.assign(n, 0.0f);
    mesh_fz_.assign(n, 0.0f);
    MeshResult r;
    if (mesh_started_) {
        r = pme_ranks_->finish(mesh_fx_.data(), mesh_fy_.data(), mesh_fz_.data());
        mesh_started_ = false;
    } else {
        gather_mesh_input();
        r = mesh_->compute(n, mesh_x_.data(), mesh_y_.data(), mesh_z_.data(), mesh_q_.data(), mesh_fx_.data(),
                           mesh_fy_.data(), mesh_fz_.data());
    }
    SortedState& st = md_.state();
    for (int a = 0; a < n; ++a) {
        const int s = slot_of_[a];
        st.fx[s] += mesh_fx_[a];
        st.fy[s] += mesh_fy_[a];
        st.fz[s] += mesh_fz_[a];
    }
    add_time(&Times::mesh, t0);
    return r.energy + charged_energy_;
}

ForceEnergies DdMdRunner::compute_forces(EnergyOutput energy) {
    ForceEnergies e = compute_nonbonded(energy);
    e.coulomb_recip = compute_pme(energy);
    return e;
}

double DdMdRunner::update(double dt, double lambda) {
    const double mine = md_.update(dt, lambda);
    halo_current_ = false;
    const auto t0 = Clock::now();
    MPI_Barrier(comm_);  // the time ranks wait for the slowest: load imbalance
    add_time(&Times::wait, t0);
    const auto t1 = Clock::now();
    twice_ke_ = allreduce_sum(mine);
    add_time(&Times::reductions, t1);
    ke_valid_ = true;
    return twice_ke_;
}

double DdMdRunner::twice_kinetic_energy() {
    if (!ke_valid_) {
        twice_ke_ = allreduce_sum(md_.twice_kinetic_energy());
        ke_valid_ = true;
    }
    return twice_ke_;
}

double DdMdRunner::max_constraint_deviation() const {
    const double mine = md_.max_constraint_deviation();
    double worst = 0;
    MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, comm_);
    return worst;
}

bool DdMdRunner::forces_finite() const {
    const int mine = md_.forces_finite() ? 1 : 0;
    int all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm_);
    return all == 1;
}

void DdMdRunner::scatter_to_system() {
    md_.scatter_to_system();
    std::vector<double> mine;
    mine.reserve(7 * local_.home_atoms);
    for (int a = 0; a < local_.home_atoms; ++a) {
        mine.push_back(local_.global[a]);
        mine.insert(mine.end(), local_system_.positions[a].begin(), local_system_.positions[a].end());
        mine.insert(mine.end(), local_system_.velocities[a].begin(), local_system_.velocities[a].end());
    }
    const std::vector<double> all = allgather(mine, comm_);
    for (std::size_t at = 0; at < all.size(); at += 7) {
        const auto g = static_cast<std::size_t>(all[at]);
        global_.positions[g] = {all[at + 1], all[at + 2], all[at + 3]};
        global_.velocities[g] = {all[at + 4], all[at + 5], all[at + 6]};
    }
}

std::vector<Vec3> DdMdRunner::forces_in_input_order() const {
    const std::vector<Vec3> local = md_.forces_in_input_order();
    std::vector<double> mine;
    mine.reserve(4 * local_.home_atoms);
    for (int a = 0; a < local_.home_atoms; ++a) {
        mine.push_back(local_.global[a]);
        mine.insert(mine.end(), local[a].begin(), local[a].end());
    }
    const std::vector<double> all = allgather(mine, comm_);
    std::vector<Vec3> f(global_.natoms(), Vec3{0, 0, 0});
    for (std::size_t at = 0; at < all.size(); at += 4) f[static_cast<std::size_t>(all[at])] = {all[at + 1], all[at + 2], all[at + 3]};
    return f;
}

ParallelStats DdMdRunner::parallel_stats() const {
    int size = 1;
    MPI_Comm_size(comm_, &size);
    ParallelStats p;
    p.force_time.resize(size);
    std::vector<double> atoms(size);
    const double home = local_.home_atoms;
    MPI_Allgather(&times_.force, 1, MPI_DOUBLE, p.force_time.data(), 1, MPI_DOUBLE, comm_);
    MPI_Allgather(&home, 1, MPI_DOUBLE, atoms.data(), 1, MPI_DOUBLE, comm_);
    for (double a : atoms) p.atoms.push_back(static_cast<long>(a));
    const double mine[6] = {times_.halo_x, times_.halo_f, times_.mesh, times_.reductions, times_.wait, 0.0};
    double sum[6];
    MPI_Allreduce(mine, sum, 6, MPI_DOUBLE, MPI_SUM, comm_);
    p.halo_x = sum[0] / size;
    p.halo_f = sum[1] / size;
    p.mesh = sum[2] / size;
    p.reductions = sum[3] / size;
    p.wait = sum[4] / size;
    p.pp_pme = layout_.npme > 0 ? p.mesh : 0.0;
    const double mean = std::accumulate(p.force_time.begin(), p.force_time.end(), 0.0) / size;
    p.load_imbalance = mean > 0 ? *std::max_element(p.force_time.begin(), p.force_time.end()) / mean : 1.0;
    p.dlb = dlb_summary();
    p.shm_copy = shared_memory_copy();
    return p;
}

}  // namespace mdcore
