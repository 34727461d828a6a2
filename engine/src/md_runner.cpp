#include "md_runner.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "mdcore/units.h"
#include "nonbonded/interaction_modifiers.h"
#include "pairlist/cluster_pair_search.h"
#include "pairlist/grid_columns.h"

namespace mdcore {
namespace {
// Padding slots sit far outside the box; their mask bits are off anyway.
constexpr double kFarAway = -1.0e4;

// The GPU task exists only in CUDA builds; elsewhere nothing creates one.
#ifdef MDT_HAVE_CUDA
void destroy_gpu_nonbonded(GpuNonbonded* gpu) { delete gpu; }
void destroy_gpu_pme(GpuPme* gpu) { delete gpu; }
void destroy_gpu_update(GpuUpdate* gpu) { delete gpu; }
#else
void destroy_gpu_nonbonded(GpuNonbonded*) {}
void destroy_gpu_pme(GpuPme*) {}
void destroy_gpu_update(GpuUpdate*) {}
#endif

// The device of a GPU run; throws std::invalid_argument with the one-line reason otherwise.
GpuDevice require_gpu(int id) {
    auto found = find_gpu(id);
    if (const std::string* why = std::get_if<std::string>(&found)) throw std::invalid_argument(*why);
    return std::get<GpuDevice>(found);
}
// 1 for atoms whose type has any non-zero LJ parameter (the kernels' test).
std::vector<std::uint8_t> atoms_with_lj(const System& system) {
    const std::vector<std::uint8_t> type_lj = system.lj.types_with_lj();
    std::vector<std::uint8_t> flags(system.natoms());
    for (std::size_t a = 0; a < flags.size(); ++a) flags[a] = type_lj[system.type[a]];
    return flags;
}

void wrap_into_box(const Box& box, int threads, std::vector<Vec3>& positions) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::size_t a = 0; a < positions.size(); ++a)
        for (int d = 0; d < 3; ++d) {
            const double L = box.lengths[d];
            positions[a][d] -= L * std::floor(positions[a][d] / L);
            if (positions[a][d] >= L) positions[a][d] = 0.0;  // a value just below 0 can round up to L
        }
}

}  // namespace

CoulombConstants coulomb_constants(const System& system, const EffectiveConfig& config) {
    CoulombConstants c;
    double q2 = 0.0, qsum = 0.0;
    for (double q : system.charge) {
        q2 += q * q;
        qsum += q;
    }
    const double f = units::kCoulomb / system.epsilon_r;
    if (config.pme) {
        c.self = -f * config.ewald_beta / std::sqrt(M_PI) * q2;
        c.charged = -f * M_PI * qsum * qsum / (2.0 * system.box.volume() * config.ewald_beta * config.ewald_beta);
    } else if (config.coulomb_type == CoulombType::ReactionField) {
        // Each atom's pair with itself at r = 0, halved: the excluded pairs'
        // correction qq (k_rf r^2 - c_rf) carried to i = j, as GROMACS' nbnxm does.
        c.self = -0.5 * f * reaction_field_terms(system.epsilon_r, config.epsilon_rf, config.rc).c_rf * q2;
    }
    return c;
}

NonbondedModifiers nonbonded_modifiers(const EffectiveConfig& config) {
    return {config.vdw_modifier, config.rvdw_switch, config.coulomb_type, config.epsilon_rf};
}

SettleParameters settle_parameters(const System& system) {
    SettleParameters p;
    if (system.settles.empty()) return p;
    const Settle& s0 = system.settles.front();
    p.mass_o = system.mass[s0.o];
    p.mass_h = system.mass[s0.h1];
    p.d_oh = s0.d_oh;
    p.d_hh = s0.d_hh;
    for (const Settle& s : system.settles)
        if (system.mass[s.o] != p.mass_o || system.mass[s.h1] != p.mass_h || system.mass[s.h2] != p.mass_h ||
            s.d_oh != p.d_oh || s.d_hh != p.d_hh)
            throw std::invalid_argument("all SETTLE molecules must share masses and distances");
    return p;
}

MdRunner::MdRunner(System& system, const EffectiveConfig& config, bool add_coulomb_constants)
    : system_(system),
      config_(config),
      // With --nb gpu the GPU prunes its own list (rolling); the CPU keeps the outer one.
      dual_(config.nb == Offload::Cpu && config.nstprune < config.nstlist && config.rlist_inner < config.rlist),
      nonbonded_(system, config.cluster, config.simd, config.threads, config.rc, config.ewald_beta,
                 nonbonded_modifiers(config)),
      gpu_nb_(nullptr, &destroy_gpu_nonbonded),
      gpu_pme_(nullptr, &destroy_gpu_pme),
      gpu_update_(nullptr, &destroy_gpu_update),
      settle_params_(settle_parameters(system)),
      settle_role_(settle_atom_roles(system.natoms(), system.settles)) {
    if (config.pme && config.pme_offload == Offload::Gpu) {
        gpu_device_ = require_gpu(config.gpu_id);
#ifdef MDT_HAVE_CUDA
        gpu_pme_.reset(new GpuPme(system.box, config.pme_grid, config.pme_order, config.ewald_beta, system.epsilon_r,
                                  gpu_device_, config.threads));
#endif
    } else if (config.pme) {
        pme_ = std::make_unique<Pme>(system.box, PmeGrid{config.pme_grid[0], config.pme_grid[1], config.pme_grid[2]},
                                     config.pme_order, config.ewald_beta, system.epsilon_r, config.threads, config.simd);
        pme_->set_thread_waits(&waits_);
    }
    waits_.reset(config.threads);
    nonbonded_.set_thread_waits(&waits_);
    if (system.bonded.has_forces()) {
        // The 1-4 Coulomb uses the run's epsilon-r (the .mdp's), a physical setting of the System.
        BondedInteractions terms = system.bonded;
        terms.epsilon_r = system.epsilon_r;
        bonded_ = std::make_unique<BondedForce>(terms, config.threads);
    }
    if (!system.bonded.constraints.empty()) {
        std::vector<double> inv_mass(system.natoms());
        for (std::size_t a = 0; a < inv_mass.size(); ++a) inv_mass[a] = system.mass[a] > 0 ? 1.0 / system.mass[a] : 0.0;
        lincs_ = std::make_unique<Lincs>(system.bonded.constraints, inv_mass,
                                         LincsSettings{system.lincs_order, system.lincs_iter, system.lincs_warnangle},
                                         config.threads);
    }
    if (add_coulomb_constants) {
        const CoulombConstants c = coulomb_constants(system, config);
        self_energy_ = c.self;
        charged_energy_ = c.charged;
    }
    if (config.nb == Offload::Gpu) {
        gpu_device_ = require_gpu(config.gpu_id);
#ifdef MDT_HAVE_CUDA
        // Rolling pruning in nstprune - 1 parts: a part pruned after step t serves
        // steps t+1 .. t+nstprune-1, the lifetime rlist_inner was estimated for.
        const bool pruning = config.nstprune < config.nstlist && config.rlist_inner < config.rlist;
        gpu_nb_.reset(new GpuNonbonded(system, gpu_device_, config.rc, config.pme ? config.ewald_beta : 0.0,
                                       pruning ? config.rlist_inner : config.rlist, std::max(0, config.nstprune - 1),
                                       config.threads));
        // Mode E: the state stays on the device next to the nonbonded task.
        if (config.update == Offload::Gpu)
            gpu_update_.reset(new GpuUpdate(*gpu_nb_, gpu_pme_.get(), settle_params_, system.box, config.threads));
#endif
    }
}

void MdRunner::sync_state_from_gpu() {
#ifdef MDT_HAVE_CUDA
    if (gpu_update_) gpu_update_->download(state_);
#endif
}

void MdRunner::scatter_to_system() {
    sync_state_from_gpu();
#pragma omp parallel for num_threads(config_.threads) schedule(static)
    for (std::size_t s = 0; s < order_.size(); ++s) {
        const int a = order_[s];
        if (a < 0) continue;
        system_.positions[a] = {state_.x[s], state_.y[s], state_.z[s]};
        system_.velocities[a] = {state_.vx[s], state_.vy[s], state_.vz[s]};
    }
}

void MdRunner::search() {
    if (!order_.empty()) {
        scatter_to_system();
    } else if (config_.nb == Offload::Cpu) {
        // First search, or the System's atoms were replaced (a decomposed run's
        // repartitioning renumbers them): the CPU kernels' LJ skip needs the
        // flags in the current numbering.
        grid_.set_first_in_cluster(atoms_with_lj(system_));
    }
    // Atoms are wrapped one by one (the grid needs every atom in the box), so a
    // molecule may straddle the boundary; SETTLE takes each H at its nearest image.
    wrap_into_box(system_.box, config_.threads, system_.positions);
    const int ci = cluster_i_size(config_.cluster), cj = cluster_j_size(config_.cluster);
    // A rank of a decomposed run (list_filter_) takes the whole system's columns
    // (choose_grid_columns_for); the GPU layout keeps the default rule.
    if (grid_columns_[0] == 0 && config_.nb == Offload::Cpu && !list_filter_)
        grid_columns_ = choose_grid_columns(system_.box, system_.positions, ci, cj,
                                            dual_ ? config_.rlist_inner : config_.rlist, system_.exclusions,
                                            config_.threads);
    grid_.build(system_.box, system_.positions, ci, cj, config_.threads, grid_columns_);
    order_ = grid_.order();
    const std::size_t n = order_.size();
    state_.resize(n);
    charge_.assign(n, 0.0);
#pragma omp parallel for num_threads(config_.threads) schedule(static)
    for (std::size_t s = 0; s < n; ++s) {
        const int a = order_[s];
        if (a < 0) {
            state_.x[s] = state_.y[s] = state_.z[s] = kFarAway;
            continue;
        }
        state_.set_atom(s, system_.positions[a], system_.velocities[a], system_.mass[a]);
        charge_[s] = system_.charge[a];
    }
    if (settle_role_.size() != system_.natoms()) settle_role_ = settle_atom_roles(system_.natoms(), system_.settles);
    build_settle_update_list(order_, grid_.slot_of(), settle_role_, system_.settles, settle_list_,
                             config_.threads);
    nonbonded_.set_order(order_);
    if (bonded_ || lincs_) {
        const std::vector<int>& slot_of = grid_.slot_of();
        if (bonded_) bonded_->set_slots(slot_of);
        if (lincs_) lincs_->set_slots(slot_of);
    }
    floats_current_ = false;
    search_cluster_pairs(grid_, config_.rlist, system_.exclusions, config_.threads, search_work_, outer_);
    if (list_filter_) list_filter_(grid_, outer_);
#ifdef MDT_HAVE_CUDA
    if (gpu_nb_) gpu_nb_->set_list(grid_, outer_, order_);
    if (gpu_update_) gpu_update_->set_state(state_, settle_list_);
#endif
    if (dual_) prune();
}

void MdRunner::choose_grid_columns_for(const System& whole) {
    if (config_.nb != Offload::Cpu) return;
    std::vector<Vec3> wrapped = whole.positions;
    wrap_into_box(whole.box, config_.threads, wrapped);
    grid_columns_ = choose_grid_columns(whole.box, wrapped, cluster_i_size(config_.cluster),
                                        cluster_j_size(config_.cluster), dual_ ? config_.rlist_inner : config_.rlist,
                                        whole.exclusions, config_.threads);
}

void MdRunner::set_thread_balance(bool on) {
    nonbonded_.set_thread_balance(on);
    if (pme_) pme_->set_thread_balance(on);
    update_shares_.reset(config_.threads, on);
}

void MdRunner::update_float_coordinates() {
    const FloatCoordinates out = float_coordinates();
    const std::size_t n = state_.size();
#pragma omp parallel num_threads(config_.threads)
    {
        const std::size_t t = omp_get_thread_num(), nt = omp_get_num_threads();
        copy_to_floats(state_, out, n * t / nt, n * (t + 1) / nt);
    }
    floats_current_ = true;
}

FloatCoordinates MdRunner::float_coordinates() {
    return {nonbonded_.x().data(), nonbonded_.y().data(), nonbonded_.z().data()};
}

void MdRunner::prune() {
    if (!dual_) return;
    if (!floats_current_) update_float_coordinates();
    prune_pair_list(outer_, nonbonded_.prune_kernel(), nonbonded_.coordinates(), config_.rlist_inner, config_.threads,
                    search_work_, inner_);
}

ForceEnergies MdRunner::compute_nonbonded(EnergyOutput energy) {
#ifdef MDT_HAVE_CUDA
    if (gpu_update_ && gpu_update_->state_on_device()) {  // mode E between searches
        gpu_nb_->launch_resident(energy == EnergyOutput::Yes);
        ForceEnergies e;
        e.coulomb_sr = self_energy_;
        return e;
    }
#endif
    if (!floats_current_) update_float_coordinates();
#ifdef MDT_HAVE_CUDA
    if (gpu_nb_) {
        const bool forces_to_host = !gpu_update_;
        gpu_nb_->launch(nonbonded_.x().data(), nonbonded_.y().data(), nonbonded_.z().data(), energy == EnergyOutput::Yes,
                        forces_to_host);
        if (forces_to_host) {  // the GPU's forces are added to these in finish_nonbonded()
            std::fill(state_.fx.begin(), state_.fx.end(), 0.0f);
            std::fill(state_.fy.begin(), state_.fy.end(), 0.0f);
            std::fill(state_.fz.begin(), state_.fz.end(), 0.0f);
        }
        ForceEnergies e;
        e.coulomb_sr = self_energy_;
        return e;
    }
#endif
    const NonbondedEnergies nb =
        nonbonded_.compute(inner_list(), energy, state_.fx.data(), state_.fy.data(), state_.fz.data());
    ForceEnergies e;
    e.lj = nb.lj;
    e.coulomb_sr = nb.coulomb + self_energy_;
    e.pairs_in_cutoff = nb.pairs_in_cutoff;
    return e;
}

void MdRunner::finish_nonbonded([[maybe_unused]] ForceEnergies& e) {
#ifdef MDT_HAVE_CUDA
    if (gpu_update_) {  // the forces stay on the device for the update
        const GpuNonbondedEnergies g = gpu_nb_->finish_energies();
        e.lj += g.lj;
        e.coulomb_sr += g.coulomb;
        e.pairs_in_cutoff += g.pairs_in_cutoff;
        if (gpu_pme_) e.coulomb_recip += gpu_pme_->finish_energy();
        return;
    }
    if (gpu_nb_) {
        const GpuNonbondedEnergies g = gpu_nb_->finish(state_.fx.data(), state_.fy.data(), state_.fz.data());
        e.lj += g.lj;
        e.coulomb_sr += g.coulomb;
        e.pairs_in_cutoff += g.pairs_in_cutoff;
    }
    if (gpu_pme_) e.coulomb_recip += gpu_pme_->finish(state_.fx.data(), state_.fy.data(), state_.fz.data());
#endif
}

double MdRunner::compute_pme(EnergyOutput energy) {
#ifdef MDT_HAVE_CUDA
    if (gpu_pme_ && gpu_update_) {  // on the nonbonded task's device positions
        gpu_pme_->launch_resident(*gpu_nb_, energy == EnergyOutput::Yes);
        return charged_energy_;
    }
    if (gpu_pme_) {
        if (!floats_current_) update_float_coordinates();
        gpu_pme_->launch(state_.size(), nonbonded_.x().data(), nonbonded_.y().data(), nonbonded_.z().data(),
                         charge_.data());
        return charged_energy_;
    }
#endif
    if (!pme_) return 0.0;
    if (energy == EnergyOutput::No) {  // the energy of this step is not reported
        pme_->compute_forces(state_.size(), state_.x.data(), state_.y.data(), state_.z.data(), charge_.data(),
                             state_.fx.data(), state_.fy.data(), state_.fz.data());
        return 0.0;
    }
    const double e = pme_->compute(state_.size(), state_.x.data(), state_.y.data(), state_.z.data(), charge_.data(),
                                   state_.fx.data(), state_.fy.data(), state_.fz.data());
    return e + charged_energy_;
}

BondedEnergies MdRunner::compute_bonded(EnergyOutput energy) {
    if (!bonded_) return {};
    return bonded_->compute(state_.x.data(), state_.y.data(), state_.z.data(), system_.box, state_.fx.data(),
                            state_.fy.data(), state_.fz.data(), energy == EnergyOutput::Yes);
}

ForceEnergies MdRunner::compute_forces(EnergyOutput energy) {
    ForceEnergies e = compute_nonbonded(energy);
    e.coulomb_recip = compute_pme(energy);  // overlaps the GPU nonbonded task
    e.bonded = compute_bonded(energy);
    finish_nonbonded(e);
    return e;
}

double MdRunner::update(double dt, double lambda) {
    twice_ke_valid_ = false;
#ifdef MDT_HAVE_CUDA
    if (gpu_update_) {
        twice_ke_ = gpu_update_->update(dt, lambda);
        floats_current_ = false;  // the host's copies are stale until sync_state_from_gpu()
        twice_ke_valid_ = true;
        return twice_ke_;
    }
#endif
    // LINCS constrains along the directions the constraints had before the update moved the atoms.
    if (lincs_) lincs_->take_directions({state_.x.data(), state_.y.data(), state_.z.data()}, system_.box.lengths);
    if (system_.settles.empty()) {
        // Writes every slot's float copy, padding included.
        twice_ke_ = leapfrog_update(state_, dt, lambda, config_.threads, float_coordinates());
        floats_current_ = true;
    } else {
        const bool sized = nonbonded_.x().size() == state_.size();  // false before the first search
        floats_current_ = false;  // stays so if SETTLE throws half-way
        twice_ke_ = leapfrog_settle_update(settle_params_, settle_list_, state_,
                                           sized ? float_coordinates() : FloatCoordinates{},
                                           system_.box.lengths.data(), dt, lambda, nonbonded_.simd_level(),
                                           config_.threads, &waits_, &update_shares_);
        floats_current_ = sized;  // every slot's copy, padding included
    }
    twice_ke_valid_ = true;
    if (lincs_) {
        lincs_result_ = lincs_->constrain({state_.x.data(), state_.y.data(), state_.z.data()},
                                          {state_.vx.data(), state_.vy.data(), state_.vz.data()},
                                          state_.inv_mass.data(), system_.box.lengths, 1.0 / dt, false);
        // The corrections moved the constrained atoms only and changed only their velocities.
        twice_ke_ += lincs_->twice_kinetic_energy_change();
        if (floats_current_) {
            const FloatCoordinates out = float_coordinates();
            for (int s : lincs_->constrained_slots()) {
                out.x[s] = static_cast<float>(state_.x[s]);
                out.y[s] = static_cast<float>(state_.y[s]);
                out.z[s] = static_cast<float>(state_.z[s]);
            }
        }
    }
    return twice_ke_;
}

double MdRunner::twice_kinetic_energy() {
    if (!twice_ke_valid_) {
        twice_ke_ = mdcore::twice_kinetic_energy(state_, config_.threads);
        twice_ke_valid_ = true;
    }
    return twice_ke_;
}

double MdRunner::max_constraint_deviation() const {
    // On nearest-image bond vectors: molecules may straddle the box.
    const double settle = system_.settles.empty()
                              ? 0.0
                              : settle_max_deviation(settle_params_, settle_list_.molecules, state_.x.data(),
                                                     state_.y.data(), state_.z.data(), system_.box.lengths.data());
    const double lincs = lincs_ ? lincs_->max_relative_deviation({state_.x.data(), state_.y.data(), state_.z.data()},
                                                                 system_.box.lengths)
                                : 0.0;
    return std::isnan(lincs) ? lincs : std::max(settle, lincs);
}

bool MdRunner::forces_finite() const {
    // --update gpu: the forces never reach the host; a blow-up shows in the
    // kinetic energy the update returns (run() checks it every step).
    if (gpu_update_) return true;
    // One NaN or infinity makes the sum non-finite; finite floats cannot overflow a double sum.
    const long n = static_cast<long>(state_.size());
    double sum = 0.0;
#pragma omp parallel for num_threads(config_.threads) schedule(static) reduction(+ : sum)
    for (long s = 0; s < n; ++s)
        sum += static_cast<double>(state_.fx[s]) + static_cast<double>(state_.fy[s]) + static_cast<double>(state_.fz[s]);
    return std::isfinite(sum);
}

std::vector<Vec3> MdRunner::forces_in_input_order() const {
    if (gpu_update_)
        throw std::runtime_error("with --update gpu the forces stay on the GPU; take them from a run with --update cpu");
    std::vector<Vec3> f(system_.natoms(), Vec3{0, 0, 0});
    for (std::size_t s = 0; s < order_.size(); ++s)
        if (order_[s] >= 0) f[order_[s]] = {state_.fx[s], state_.fy[s], state_.fz[s]};
    return f;
}

}  // namespace mdcore
