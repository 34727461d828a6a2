#pragma once
// One LJ cluster-pair kernel template for every shape (N x M) and SIMD backend S.
// Pair p = i*M + j of a cluster pair lives in lane p % W of register p / W, so
// i-data is laid out per i-cluster once and j-data is a (broadcast) load per entry.
// Included only by the per-instantiation translation units.
#include <cstdint>

#include "nonbonded/kernel_args.h"
#include "nonbonded/simd/simd_math.h"
#include "pairlist/cluster_pair_search.h"

namespace mdcore {

template <class S, int N, int M, LjCombination Comb, CoulombType Coul, EnergyOutput Energy>
void cluster_kernel(const KernelInput& in, int i_begin, int i_end, KernelOutput& out) {
    using F = typename S::F;
    using B = typename S::B;
    using I = typename S::I;
    constexpr int W = S::width;
    constexpr int P = N * M;
    static_assert(P % W == 0 || W == 1, "pairs per cluster pair must fill whole registers");
    constexpr int R = P / W;
    static_assert(W <= M || W % M == 0, "j pattern must tile a register");
    constexpr bool kCoulomb = Coul == CoulombType::Ewald;

    alignas(64) float xi_p[P], yi_p[P], zi_p[P], c6i_p[P], c12i_p[P], qi_p[P];
    alignas(64) std::int32_t ti_p[P];
    alignas(64) float tmp[P];
    const PairList& list = *in.list;
    const F rc2 = S::set1(in.rc2);
    const F sixth = S::set1(1.0f / 6.0f);
    const F twelfth = S::set1(1.0f / 12.0f);
    const F shift6 = S::set1(in.rc_inv6);
    const F shift12 = S::set1(in.rc_inv12);
    const F beta = S::set1(in.ewald_beta);
    const F beta2 = S::set1(in.ewald_beta * in.ewald_beta);
    const F beta3 = S::set1(in.ewald_beta * in.ewald_beta * in.ewald_beta);
    const F ewald_shift = S::set1(in.ewald_shift);
    double e_lj = 0.0, e_coul = 0.0;
    long pairs_in = 0;

    for (int ie = i_begin; ie < i_end; ++ie) {
        const IEntry& ei = list.i[ie];
        const int i0 = ei.ci * N;
        for (int p = 0; p < P; ++p) {
            const int a = i0 + p / M;
            xi_p[p] = in.x[a];
            yi_p[p] = in.y[a];
            zi_p[p] = in.z[a];
            if constexpr (Comb == LjCombination::Geometric) {
                c6i_p[p] = in.c6s[a];
                c12i_p[p] = in.c12s[a];
            } else {
                ti_p[p] = in.type[a] * in.ntypes;
            }
            if constexpr (kCoulomb) qi_p[p] = in.q[a];
        }
        F fix[R], fiy[R], fiz[R];
        for (int r = 0; r < R; ++r) fix[r] = fiy[r] = fiz[r] = S::zero();
        F vlj = S::zero(), vc = S::zero();

        for (int e = ei.j_begin; e < ei.j_end; ++e) {
            const JEntry& je = list.j[e];
            const int j0 = je.cj * M;
            const float* s = in.shift[je.shift];
            F fjx = S::zero(), fjy = S::zero(), fjz = S::zero();
            for (int r = 0; r < R; ++r) {
                // Lanes of register r cover j offsets (r*W) % M .. when W <= M.
                constexpr int step = W <= M ? W : 0;
                const int jo = step == 0 ? 0 : (r * step) % M;
                const F xj = S::add(S::template load_j<M>(in.x + j0 + jo), S::set1(s[0]));
                const F yj = S::add(S::template load_j<M>(in.y + j0 + jo), S::set1(s[1]));
                const F zj = S::add(S::template load_j<M>(in.z + j0 + jo), S::set1(s[2]));
                const F dx = S::sub(S::load(xi_p + r * W), xj);
                const F dy = S::sub(S::load(yi_p + r * W), yj);
                const F dz = S::sub(S::load(zi_p + r * W), zj);
                const F r2 = S::fma(dx, dx, S::fma(dy, dy, S::mul(dz, dz)));
                const B in_rc = S::lt(r2, rc2);
                const B on = S::land(in_rc, S::mask_from_bits(je.mask, r));
                F c6, c12;
                if constexpr (Comb == LjCombination::Geometric) {
                    c6 = S::mul(S::load(c6i_p + r * W), S::template load_j<M>(in.c6s + j0 + jo));
                    c12 = S::mul(S::load(c12i_p + r * W), S::template load_j<M>(in.c12s + j0 + jo));
                } else {
                    const I idx = S::add_int(S::load_int(ti_p + r * W), S::template load_j_int<M>(in.type + j0 + jo));
                    c6 = S::gather(in.c6_table, idx);
                    c12 = S::gather(in.c12_table, idx);
                }
                F rinv2, rinv;
                if constexpr (kCoulomb) {
                    rinv = S::rsqrt(r2);
                    rinv2 = S::mul(rinv, rinv);
                } else {
                    rinv2 = S::rcp(r2);
                }
                const F rinv6 = S::mul(S::mul(rinv2, rinv2), rinv2);
                const F v6 = S::mul(c6, rinv6);                  // 6 c6 / r^6
                const F v12 = S::mul(S::mul(c12, rinv6), rinv6); // 12 c12 / r^12
                F fscal = S::select(on, S::mul(S::sub(v12, v6), rinv2));
                if constexpr (Energy == EnergyOutput::Yes) {
                    // c12 (r^-12 - rc^-12) - c6 (r^-6 - rc^-6), zero outside the cut-off.
                    const F e12 = S::mul(twelfth, S::sub(v12, S::mul(c12, shift12)));
                    const F e6 = S::mul(sixth, S::sub(v6, S::mul(c6, shift6)));
                    vlj = S::add(vlj, S::select(on, S::sub(e12, e6)));
                    pairs_in += S::popcount(on);
                }
                if constexpr (kCoulomb) {
                    // Included pairs: qq erfc(br)/r (shifted); excluded pairs within rc
                    // get the correction -qq erf(br)/r. Both are qq (k/r - erf(br)/r) with
                    // k = 1 for included pairs, 0 for excluded (see simd_math.h).
                    const B excl = S::land(in_rc, S::mask_from_bits(je.excluded, r));
                    const B any = S::lor(on, excl);
                    const F qq = S::mul(S::load(qi_p + r * W), S::template load_j<M>(in.q + j0 + jo));
                    const F w = S::mul(beta2, r2);
                    const F k_rinv = S::select(on, rinv);
                    const F fc = S::mul(qq, S::fnma(beta3, simd::ewald_force_h<S>(w), S::mul(k_rinv, rinv2)));
                    fscal = S::add(fscal, S::select(any, fc));
                    if constexpr (Energy == EnergyOutput::Yes) {
                        const F v = S::mul(qq, S::sub(S::fnma(beta, simd::ewald_potential_g<S>(w), k_rinv),
                                                      S::select(on, ewald_shift)));
                        vc = S::add(vc, S::select(any, v));
                    }
                }
                const F tx = S::mul(fscal, dx), ty = S::mul(fscal, dy), tz = S::mul(fscal, dz);
                fix[r] = S::add(fix[r], tx);
                fiy[r] = S::add(fiy[r], ty);
                fiz[r] = S::add(fiz[r], tz);
                if constexpr (W >= M) {
                    fjx = S::add(fjx, tx);
                    fjy = S::add(fjy, ty);
                    fjz = S::add(fjz, tz);
                } else {
                    // Narrow registers: each holds distinct j, update memory directly.
                    for (int l = 0; l < W; ++l) {
                        S::store(tmp, tx);
                        out.fx[j0 + jo + l] -= tmp[l];
                        S::store(tmp, ty);
                        out.fy[j0 + jo + l] -= tmp[l];
                        S::store(tmp, tz);
                        out.fz[j0 + jo + l] -= tmp[l];
                    }
                }
            }
            if constexpr (W >= M) {
                S::template fold_sub<M>(fjx, out.fx + j0);
                S::template fold_sub<M>(fjy, out.fy + j0);
                S::template fold_sub<M>(fjz, out.fz + j0);
            }
        }
        // Reduce the i-forces over the j lanes of each i.
        auto reduce_i = [&](F* f, float* dst) {
            for (int r = 0; r < R; ++r) S::store(tmp + r * W, f[r]);
            for (int i = 0; i < N; ++i) {
                float sum = 0.0f;
                for (int j = 0; j < M; ++j) sum += tmp[i * M + j];
                dst[i0 + i] += sum;
            }
        };
        reduce_i(fix, out.fx);
        reduce_i(fiy, out.fy);
        reduce_i(fiz, out.fz);
        if constexpr (Energy == EnergyOutput::Yes) {
            e_lj += S::hsum(vlj);
            if constexpr (kCoulomb) e_coul += S::hsum(vc);
        }
    }
    out.e_lj += e_lj;
    out.e_coul += e_coul;
    out.pairs_in_cutoff += static_cast<double>(pairs_in);
}

// Dynamic pruning: an entry survives when any unmasked pair is within the inner radius.
template <class S, int N, int M>
void prune_kernel(const PruneInput& in, int i_begin, int i_end, unsigned char* keep) {
    using F = typename S::F;
    using B = typename S::B;
    constexpr int W = S::width;
    constexpr int P = N * M;
    constexpr int R = P / W;
    alignas(64) float xi_p[P], yi_p[P], zi_p[P];
    const PairList& list = *in.list;
    const SortedCoordinates& c = in.coords;
    const F r2max = S::set1(in.r2);
    for (int ie = i_begin; ie < i_end; ++ie) {
        const IEntry& ei = list.i[ie];
        const int i0 = ei.ci * N;
        for (int p = 0; p < P; ++p) {
            xi_p[p] = c.x[i0 + p / M];
            yi_p[p] = c.y[i0 + p / M];
            zi_p[p] = c.z[i0 + p / M];
        }
        for (int e = ei.j_begin; e < ei.j_end; ++e) {
            const JEntry& je = list.j[e];
            const int j0 = je.cj * M;
            const float* s = c.shift[je.shift];
            int any = 0;
            for (int r = 0; r < R; ++r) {
                constexpr int step = W <= M ? W : 0;
                const int jo = step == 0 ? 0 : (r * step) % M;
                const F dx = S::sub(S::load(xi_p + r * W), S::add(S::template load_j<M>(c.x + j0 + jo), S::set1(s[0])));
                const F dy = S::sub(S::load(yi_p + r * W), S::add(S::template load_j<M>(c.y + j0 + jo), S::set1(s[1])));
                const F dz = S::sub(S::load(zi_p + r * W), S::add(S::template load_j<M>(c.z + j0 + jo), S::set1(s[2])));
                const F r2 = S::fma(dx, dx, S::fma(dy, dy, S::mul(dz, dz)));
                const B on = S::land(S::lt(r2, r2max), S::mask_from_bits(je.mask | je.excluded, r));
                any += S::popcount(on);
            }
            keep[e] = any > 0;
        }
    }
}

}  // namespace mdcore
