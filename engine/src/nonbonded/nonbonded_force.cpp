#include "nonbonded/nonbonded_force.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "mdcore/units.h"
#include "nonbonded/force_buffer_sum.h"
#include "nonbonded/interaction_modifiers.h"

namespace mdcore {

namespace {
bool has_charges(const System& s) {
    for (double q : s.charge)
        if (q != 0.0) return true;
    return false;
}

KernelCoulomb kernel_coulomb(const System& s, CoulombType type) {
    if (!has_charges(s)) return KernelCoulomb::None;
    return type == CoulombType::ReactionField ? KernelCoulomb::ReactionField : KernelCoulomb::Ewald;
}

// The kernels' constants of the LJ form at rc and of the Coulomb method.
KernelInput interaction_constants(double rc, double beta, double epsilon_r, const NonbondedModifiers& mod) {
    KernelInput in{};
    const double rc2 = rc * rc;
    in.rc2 = static_cast<float>(rc2);
    in.ewald_beta = static_cast<float>(beta);
    in.ewald_shift = static_cast<float>(std::erfc(beta * rc) / rc);
    switch (mod.vdw) {
        case VdwModifier::PotentialShift:
            in.rc_inv6 = static_cast<float>(1.0 / (rc2 * rc2 * rc2));
            in.rc_inv12 = in.rc_inv6 * in.rc_inv6;
            break;
        case VdwModifier::ForceSwitch: {
            const ForceSwitchTerms t6 = force_switch_terms(6.0, mod.rvdw_switch, rc);
            const ForceSwitchTerms t12 = force_switch_terms(12.0, mod.rvdw_switch, rc);
            in.rc_inv6 = static_cast<float>(-t6.cpot);
            in.rc_inv12 = static_cast<float>(-t12.cpot);
            in.fsw6_a = static_cast<float>(t6.a);
            in.fsw6_b = static_cast<float>(t6.b);
            in.fsw12_a = static_cast<float>(t12.a);
            in.fsw12_b = static_cast<float>(t12.b);
            break;
        }
        case VdwModifier::PotentialSwitch: {
            const PotentialSwitchTerms t = potential_switch_terms(mod.rvdw_switch, rc);
            in.psw_c3 = static_cast<float>(t.c3);
            in.psw_c4 = static_cast<float>(t.c4);
            in.psw_c5 = static_cast<float>(t.c5);
            break;
        }
    }
    in.rvdw_switch = static_cast<float>(mod.rvdw_switch);
    if (mod.coulomb == CoulombType::ReactionField) {
        const ReactionFieldTerms rf = reaction_field_terms(epsilon_r, mod.epsilon_rf, rc);
        in.k_rf = static_cast<float>(rf.k_rf);
        in.c_rf = static_cast<float>(rf.c_rf);
    }
    return in;
}
}  // namespace

NonbondedForce::NonbondedForce(const System& system, ClusterShape shape, SimdLevel level, int num_threads,
                               double rc, double ewald_beta, const NonbondedModifiers& modifiers)
    : system_(system),
      shape_(shape),
      level_(resolve_simd_level(level)),
      num_threads_(num_threads),
      combination_(system.lj.is_geometric() ? LjCombination::Geometric : LjCombination::Table),
      vdw_(modifiers.vdw),
      coulomb_(kernel_coulomb(system, modifiers.coulomb)),
      kernels_(&kernel_set(level_, shape)),
      constants_(interaction_constants(rc, ewald_beta, system.epsilon_r, modifiers)),
      thread_f_(num_threads),
      thread_touched_(num_threads),
      thread_sum_from_(num_threads, std::vector<const float*>(num_threads)) {
    shares_.reset(num_threads, true);
    const int nt = system.lj.ntypes;
    c6_table_.resize(nt * nt);
    c12_table_.resize(nt * nt);
    type_has_lj_ = system.lj.types_with_lj();
    for (int k = 0; k < nt * nt; ++k) {
        c6_table_[k] = static_cast<float>(6.0 * system.lj.c6[k]);
        c12_table_[k] = static_cast<float>(12.0 * system.lj.c12[k]);
    }
    set_box(system.box);
}

void NonbondedForce::set_box(const Box& box) { fill_shift_table(box, shift_); }

void NonbondedForce::set_thread_balance(bool on) { shares_.reset(num_threads_, on); }

void NonbondedForce::set_order(const std::vector<int>& order) {
    const std::size_t n = order.size();
    x_.assign(n, 0.0f);
    y_.assign(n, 0.0f);
    z_.assign(n, 0.0f);
    c6s_.assign(n, 0.0f);
    c12s_.assign(n, 0.0f);
    q_.assign(n, 0.0f);
    type_.assign(n, 0);
    const double q_scale = std::sqrt(units::kCoulomb / system_.epsilon_r);
#pragma omp parallel for num_threads(num_threads_) schedule(static)
    for (std::size_t s = 0; s < n; ++s) {
        const int a = order[s];
        if (a < 0) continue;
        const int t = system_.type[a];
        c6s_[s] = static_cast<float>(std::sqrt(6.0 * system_.lj.c6_at(t, t)));
        c12s_[s] = static_cast<float>(std::sqrt(12.0 * system_.lj.c12_at(t, t)));
        type_[s] = t;
        q_[s] = static_cast<float>(system_.charge[a] * q_scale);
    }
    if (n % static_cast<std::size_t>(cluster_j_size(shape_)) != 0)
        throw std::logic_error("NonbondedForce: the sorted order is not whole j-clusters");
    thread_f_pointers_.clear();
    for (auto& f : thread_f_) {
        f.assign(3 * kernels_->j_force_copies * n, 0.0f);
        thread_f_pointers_.push_back(f.data());
    }
    const std::size_t blocks = touched_blocks(n / static_cast<std::size_t>(cluster_j_size(shape_)));
    for (auto& t : thread_touched_) t.assign(blocks, 0);  // the buffers are all zero
}

NonbondedEnergies NonbondedForce::compute(const PairList& list, EnergyOutput energy, float* fx, float* fy,
                                          float* fz) {
    KernelInput in = constants_;
    in.x = x_.data();
    in.y = y_.data();
    in.z = z_.data();
    in.c6s = c6s_.data();
    in.c12s = c12s_.data();
    in.type = type_.data();
    in.c6_table = c6_table_.data();
    in.c12_table = c12_table_.data();
    in.ntypes = system_.lj.ntypes;
    in.type_has_lj = type_has_lj_.data();
    in.combination = combination_;
    in.q = q_.data();
    in.shift = shift_;
    in.list = &list;
    const KernelFn kernel = kernels_->get(combination_, vdw_, coulomb_, energy);

    // Split the i-entries over the threads by their shares of the j-entries
    // (work), each block contiguous so the force sums follow the split, not the
    // scheduling. Shares are even, or adapted to the threads' speeds.
    const int nt = num_threads_;
    std::vector<int>& bounds = thread_bounds_;  // members: the step loop does not allocate
    bounds.assign(nt + 1, static_cast<int>(list.i.size()));
    bounds[0] = 0;
    {
        const double total = static_cast<double>(list.j.size());
        const std::vector<double>& share = shares_.shares();
        double upto = share[0];
        int t = 1;
        for (std::size_t ie = 0; ie < list.i.size() && t < nt; ++ie)
            while (t < nt && list.i[ie].j_end >= total * upto) {
                bounds[t] = static_cast<int>(ie + 1);
                upto += share[t++];
            }
    }
    const std::size_t n = x_.size();
    const int copies = kernels_->j_force_copies;
    const std::size_t dim = copies * n;  // buffer floats per dimension
    std::vector<KernelOutput>& outs = thread_out_;
    outs.assign(nt, KernelOutput{});
    const std::size_t m = static_cast<std::size_t>(cluster_j_size(shape_));
    const std::size_t clusters = n / m;  // the grid pads every column to whole clusters
    const std::size_t blocks = touched_blocks(clusters);
#pragma omp parallel num_threads(nt)
    {
        const int t = omp_get_thread_num();
        float* f = thread_f_[t].data();
        std::uint16_t* touched = thread_touched_[t].data();
        // Zero what the last call wrote: the rest of the buffer is zero already.
        const std::size_t block_floats = (std::size_t{1} << kTouchedBlockShift) * m * copies;
        for (std::size_t b = 0; b < blocks; ++b) {
            if (touched[b] == 0) continue;
            touched[b] = 0;
            const std::size_t lo = b * block_floats, len = std::min(block_floats, dim - lo);
            for (int d = 0; d < 3; ++d) std::fill_n(f + d * dim + lo, len, 0.0f);
        }
        KernelOutput& out = outs[t];
        out.fx = f;
        out.fy = f + dim;
        out.fz = f + 2 * dim;
        out.touched = touched;
        if (!kernel_flags_blocks(coulomb_)) std::fill_n(touched, blocks, std::uint16_t{1});
        const double start = omp_get_wtime();
        kernel(in, bounds[t], bounds[t + 1], out);
        const double seconds = omp_get_wtime() - start;
        if (bounds[t + 1] > bounds[t])
            shares_.record(t, list.i[bounds[t + 1] - 1].j_end - list.i[bounds[t]].j_begin, seconds);
        else
            shares_.record(t, 0.0, seconds);
        timed_barrier(waits_, t);
        // Sum the thread buffers (and with copies all copies in a cluster's
        // block, KernelOutput) over this thread's range of j-clusters.
        // Per block, only the buffers that wrote it: skipping a zero buffer leaves
        // every sum as it was, to the bit.
        const std::size_t begin = clusters * t / nt, end = clusters * (t + 1) / nt;
        const float** from = thread_sum_from_[t].data();
        for (std::size_t c = begin; c < end;) {
            const std::size_t b = c >> kTouchedBlockShift;
            const std::size_t c_end = std::min(end, (b + 1) << kTouchedBlockShift);
            int count = 0;
            for (int u = 0; u < nt; ++u)
                if (thread_touched_[u][b] != 0) from[count++] = thread_f_pointers_[u];
            sum_force_buffers({from, count, dim, copies, static_cast<int>(m)}, c, c_end, fx, fy, fz);
            c = c_end;
        }
        timed_region_end(waits_, t);
    }
    shares_.rebalance();
    NonbondedEnergies e;
    for (const auto& o : outs) {
        e.lj += o.e_lj;
        e.coulomb += o.e_coul;
        e.pairs_in_cutoff += o.pairs_in_cutoff;
    }
    return e;
}

}  // namespace mdcore
