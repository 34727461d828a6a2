#pragma once
// One LJ cluster-pair kernel template for every shape (N x M) and SIMD backend S.
// Pair p = i*M + j of a cluster pair lives in lane p % W of register p / W, so
// i-data is laid out per i-cluster once and j-data is a (broadcast) load per entry.
// With W = 2M this is GROMACS' 2xMM layout: 4x8 on AVX-512 holds i-atoms 0,1 in one
// 16-lane register and 2,3 in the other, the 8 j-atoms duplicated in both halves
// (4x4 on AVX2 is the same with 8 lanes; 8x4 on AVX-512 puts four i-atoms in each).
// Included only by the per-instantiation translation units.
#include <cstdint>
#include <utility>

#include "nonbonded/kernel_args.h"
#include "nonbonded/simd/simd_math.h"
#include "pairlist/cluster_pair_search.h"

namespace mdcore {

// Which registers of an i-entry get LJ: bit r set when an i-atom of register r has
// LJ parameters. Registers of charged atoms without LJ (water hydrogens) skip the
// LJ terms, as GROMACS' half-LJ kernels do. With up to two registers per cluster
// pair (the 2xMM layouts) each subset is its own compiled variant; with more, a
// mixed entry tests its bits per register (the same outcome for all j-entries of
// the i-entry, so the branch is predicted).
template <int N, int M, int W>
struct LjRegisterSets {
    static constexpr int P = N * M;
    static constexpr int R = P / W;
    static constexpr unsigned kAll = R >= 32 ? ~0u : (1u << R) - 1;
    // Bit per register, from a per-i-atom predicate.
    template <class HasLj>
    static unsigned of(HasLj has_lj) {
        unsigned bits = 0;
        for (int i = 0; i < N; ++i)
            if (has_lj(i))
                for (int r = i * M / W; r <= ((i + 1) * M - 1) / W; ++r) bits |= 1u << r;
        return bits;
    }
};
enum class LjMode { None, All, PerRegisterBits };

// A register holds W / M copies of a j-cluster's atoms (2 in GROMACS' 2xMM
// layouts 4x8 and 4x4-on-AVX2, 4 in 8x4 and 4x4 on AVX-512). Folding them to M
// lanes per j-entry costs shuffles and adds in every dimension; instead the
// j-forces are stored as 2 copies (W = 2M: the register as it is; W = 4M: halved
// once), one subtraction per dimension and entry, and the buffer owner adds the
// copies once per step (KernelOutput). Two, not four: the buffers are cleared
// and reduced every step, and four copies cost at two threads what they saved.
template <class S, int M>
constexpr int j_force_copies() {
    return S::width >= 2 * M ? 2 : 1;
}

// An i-cluster's coordinates in pair layout (lane p: i-atom p / M), loaded with one
// permuted load per register (GCC built the per-pair copy from 32 scalar inserts
// per array), and the same minus the shift of the j-entries at hand. The search
// emits an i-entry's j-entries in runs of one shift (per neighbour column and z
// image), so the shift moves the i-cluster once per run, as in GROMACS and our CUDA
// kernel, instead of every j-cluster: three adds and broadcasts less per entry.
template <class S, int N, int M>
struct IClusterCoords {
    static constexpr int W = S::width;
    static constexpr int P = N * M;
    static constexpr int R = P / W;
    alignas(64) float x[P], y[P], z[P];     // as stored
    // Zeroed once per kernel call only so that GCC, which cannot see that
    // use_shift() always runs first, does not warn of uninitialised reads.
    alignas(64) float sx[P]{}, sy[P]{}, sz[P]{};  // minus shift_table[shift]
    int shift = -1;

    void load(const float* xs, const float* ys, const float* zs, int i0) {
        for (int r = 0; r < R; ++r) {
            S::store(x + r * W, S::template load_i<N, M>(xs + i0, r));
            S::store(y + r * W, S::template load_i<N, M>(ys + i0, r));
            S::store(z + r * W, S::template load_i<N, M>(zs + i0, r));
        }
        shift = -1;
    }
    // Before each j-entry: moves the cluster when the entry's shift is not the last one's.
    void use_shift(int index, const float (*shift_table)[3]) {
        if (index == shift) return;
        shift = index;
        const float* s = shift_table[index];
        for (int r = 0; r < R; ++r) {
            S::store(sx + r * W, S::sub(S::load(x + r * W), S::set1(s[0])));
            S::store(sy + r * W, S::sub(S::load(y + r * W), S::set1(s[1])));
            S::store(sz + r * W, S::sub(S::load(z + r * W), S::set1(s[2])));
        }
    }
};

// The per-run constants of an LJ modifier and of the reaction field, broadcast
// once per kernel call. Empty for potential-shift and Ewald: the lambdas below
// capture every local they name, even in discarded branches, and captured
// vector constants changed the default kernels' code.
template <class S, VdwModifier V>
struct VdwModifierConstants {
    explicit VdwModifierConstants(const KernelInput&) {}
};
template <class S>
struct VdwModifierConstants<S, VdwModifier::ForceSwitch> {
    using F = typename S::F;
    // Force terms a and b per power; the potential's a/3 and b/4.
    F r_switch, a6, b6, a12, b12, a6_3, b6_4, a12_3, b12_4;
    explicit VdwModifierConstants(const KernelInput& in)
        : r_switch(S::set1(in.rvdw_switch)),
          a6(S::set1(in.fsw6_a)),
          b6(S::set1(in.fsw6_b)),
          a12(S::set1(in.fsw12_a)),
          b12(S::set1(in.fsw12_b)),
          a6_3(S::set1(in.fsw6_a / 3.0f)),
          b6_4(S::set1(in.fsw6_b / 4.0f)),
          a12_3(S::set1(in.fsw12_a / 3.0f)),
          b12_4(S::set1(in.fsw12_b / 4.0f)) {}
};
template <class S>
struct VdwModifierConstants<S, VdwModifier::PotentialSwitch> {
    using F = typename S::F;
    // S = 1 + c3 x^3 + c4 x^4 + c5 x^5 and dS/dx = x^2 (d2 + d3 x + d4 x^2).
    F r_switch, c3, c4, c5, d2, d3, d4, one;
    explicit VdwModifierConstants(const KernelInput& in)
        : r_switch(S::set1(in.rvdw_switch)),
          c3(S::set1(in.psw_c3)),
          c4(S::set1(in.psw_c4)),
          c5(S::set1(in.psw_c5)),
          d2(S::set1(3.0f * in.psw_c3)),
          d3(S::set1(4.0f * in.psw_c4)),
          d4(S::set1(5.0f * in.psw_c5)),
          one(S::set1(1.0f)) {}
};
template <class S, KernelCoulomb C>
struct ReactionFieldConstants {
    explicit ReactionFieldConstants(const KernelInput&) {}
};
template <class S>
struct ReactionFieldConstants<S, KernelCoulomb::ReactionField> {
    using F = typename S::F;
    F k_rf, two_k_rf, c_rf;
    explicit ReactionFieldConstants(const KernelInput& in)
        : k_rf(S::set1(in.k_rf)), two_k_rf(S::set1(2.0f * in.k_rf)), c_rf(S::set1(in.c_rf)) {}
};

template <class S, int N, int M, LjCombination Comb, VdwModifier Vdw, KernelCoulomb Coul, EnergyOutput Energy>
void cluster_kernel(const KernelInput& in, int i_begin, int i_end, KernelOutput& out) {
    using F = typename S::F;
    using B = typename S::B;
    using I = typename S::I;
    constexpr int W = S::width;
    constexpr int P = N * M;
    static_assert(P % W == 0 || W == 1, "pairs per cluster pair must fill whole registers");
    constexpr int R = P / W;
    static_assert(W <= M || W % M == 0, "j pattern must tile a register");
    constexpr bool kCoulomb = Coul != KernelCoulomb::None;
    constexpr bool kEwald = Coul == KernelCoulomb::Ewald;
    constexpr bool kForceSwitch = Vdw == VdwModifier::ForceSwitch;
    constexpr bool kPotSwitch = Vdw == VdwModifier::PotentialSwitch;
    // 1/r itself, not only 1/r^2: for Coulomb, and for the switches' r.
    constexpr bool kRinv = kCoulomb || kForceSwitch || kPotSwitch;
    constexpr bool kEnergy = Energy == EnergyOutput::Yes;
    constexpr std::uint32_t kFullMask = P == 32 ? 0xffffffffu : (1u << P) - 1;
    using LjSets = LjRegisterSets<N, M, W>;
    constexpr int kCopies = j_force_copies<S, M>();

    IClusterCoords<S, N, M> ic;
    alignas(64) float c6i_p[P], c12i_p[P], qi_p[P];
    alignas(64) std::int32_t ti_p[P];
    alignas(64) float tmp[P];
    const PairList& list = *in.list;
    const F rc2 = S::set1(in.rc2);
    const F sixth = S::set1(1.0f / 6.0f);
    const F twelfth = S::set1(1.0f / 12.0f);
    const F shift6 = S::set1(in.rc_inv6);
    const F shift12 = S::set1(in.rc_inv12);
    const simd::EwaldForceInR2 beta3_h = simd::ewald_force_in_r2(in.ewald_beta);  // beta^3 H(w), in r^2
    const simd::EwaldPotentialInR2 beta_g = simd::ewald_potential_in_r2(in.ewald_beta);  // beta G(w)
    const F ewald_shift = S::set1(in.ewald_shift);
    const VdwModifierConstants<S, Vdw> vdw_k(in);
    const ReactionFieldConstants<S, Coul> rf_k(in);
    double e_lj = 0.0, e_coul = 0.0;
    long pairs_in = 0;
    F fix[R], fiy[R], fiz[R];
    F vlj = S::zero(), vc = S::zero();
    unsigned lj_regs = LjSets::kAll;  // of the current i-entry

    // The arrays the j-loop reads and writes, passed by value to the pair code.
    // Reached through the lambdas' captures, they were reloaded for every j-entry:
    // a vector store may alias anything, the captured locals included.
    struct Arrays {
        const float *x, *y, *z, *q, *c6s, *c12s, *c6_table, *c12_table;
        const std::int32_t* type;
        const float (*shift)[3];
        float *fx, *fy, *fz;
        std::uint16_t* touched;
    };

    // One register of one cluster pair: pairs r*W .. r*W+W-1. Masked entries (some
    // pair excluded or absent) check the interaction masks; the common full entry
    // needs only the cut-off. 1/r is zeroed outside the cut-off, so every force
    // term, written as force times r and scaled by 1/r^2, vanishes there without
    // further masking (GROMACS' trick).
    auto pair_register = [&]<bool kMasked, LjMode kLj>(const Arrays a, int r, const JEntry& je, int j0, F& fix_r,
                                                     F& fiy_r, F& fiz_r, F& fjx, F& fjy, F& fjz)
                             __attribute__((always_inline)) {
        // Lanes of register r cover j offsets (r*W) % M .. when W <= M.
        constexpr int step = W <= M ? W : 0;
        const int jo = step == 0 ? 0 : (r * step) % M;
        const F dx = S::sub(S::load(ic.sx + r * W), S::template load_j<M>(a.x + j0 + jo));
        const F dy = S::sub(S::load(ic.sy + r * W), S::template load_j<M>(a.y + j0 + jo));
        const F dz = S::sub(S::load(ic.sz + r * W), S::template load_j<M>(a.z + j0 + jo));
        const F r2 = S::fma(dx, dx, S::fma(dy, dy, S::mul(dz, dz)));
        // Within the cut-off and computed: interacting, or excluded with Coulomb (the
        // Ewald erf correction, the reaction field's r^2 and shift terms).
        B wco = S::lt(r2, rc2);
        B interact = wco;
        if constexpr (kMasked) {
            interact = S::mask_from_bits(je.mask, r);
            wco = S::land(wco, kCoulomb ? S::lor(interact, S::mask_from_bits(je.excluded, r)) : interact);
        }
        const B on = kMasked ? S::land(wco, interact) : wco;  // interacting within the cut-off
        F rinv{}, rinv2;
        if constexpr (kRinv) {
            rinv = S::select(wco, S::rsqrt(r2));
            rinv2 = S::mul(rinv, rinv);
        } else {
            rinv2 = S::select(wco, S::rcp(r2));
        }
        F fr = S::zero();  // force times r
        if (kLj == LjMode::All || (kLj == LjMode::PerRegisterBits && ((lj_regs >> r) & 1u))) {
            const F rinv2_lj = kMasked && kCoulomb ? S::select(interact, rinv2) : rinv2;
            F c6, c12;
            if constexpr (Comb == LjCombination::Geometric) {
                c6 = S::mul(S::load(c6i_p + r * W), S::template load_j<M>(a.c6s + j0 + jo));
                c12 = S::mul(S::load(c12i_p + r * W), S::template load_j<M>(a.c12s + j0 + jo));
            } else {
                const I idx = S::add_int(S::load_int(ti_p + r * W), S::template load_j_int<M>(a.type + j0 + jo));
                c6 = S::gather(a.c6_table, idx);
                c12 = S::gather(a.c12_table, idx);
            }
            const F rinv6 = S::mul(S::mul(rinv2_lj, rinv2_lj), rinv2_lj);
            fr = S::mul(rinv6, S::fms(c12, rinv6, c6));  // 12 c12 / r^12 - 6 c6 / r^6
            if constexpr (kForceSwitch || kPotSwitch) {
                // r, and x = r - r_switch where positive: both zero where 1/r is
                // masked (beyond rc, excluded, absent), so the switch terms vanish there.
                const F rinv_lj = kMasked && kCoulomb ? S::select(interact, rinv) : rinv;
                const F rr = S::mul(r2, rinv_lj);
                const F x = S::max(S::sub(rr, vdw_k.r_switch), S::zero());
                const F x2 = S::mul(x, x);
                if constexpr (kForceSwitch) {
                    // Force times r: + r x^2 (12 c12 (a12 + b12 x) - 6 c6 (a6 + b6 x)).
                    const F t6 = S::fma(vdw_k.b6, x, vdw_k.a6);
                    const F t12 = S::fma(vdw_k.b12, x, vdw_k.a12);
                    fr = S::fma(S::fms(c12, t12, S::mul(c6, t6)), S::mul(x2, rr), fr);
                    if constexpr (kEnergy) {
                        // c12 (r^-12 + cpot12) - c6 (r^-6 + cpot6) (shift12/6 = -cpot), plus
                        // x^3 (6 c6 (a6/3 + b6/4 x) - 12 c12 (a12/3 + b12/4 x)).
                        const F e12 = S::mul(twelfth, S::mul(c12, S::fms(rinv6, rinv6, shift12)));
                        const F e6 = S::mul(sixth, S::mul(c6, S::sub(rinv6, shift6)));
                        const F u6 = S::fma(vdw_k.b6_4, x, vdw_k.a6_3);
                        const F u12 = S::fma(vdw_k.b12_4, x, vdw_k.a12_3);
                        const F esw = S::mul(S::mul(x2, x), S::fms(c6, u6, S::mul(c12, u12)));
                        vlj = S::add(vlj, S::select(on, S::add(S::sub(e12, e6), esw)));
                    }
                } else {
                    // V = c12 / r^12 - c6 / r^6 (unshifted, zero where 1/r is masked),
                    // times S(x); force times r: fr S - r V dS/dx.
                    const F v = S::fms(S::mul(twelfth, c12), S::mul(rinv6, rinv6), S::mul(S::mul(sixth, c6), rinv6));
                    const F sw = S::fma(S::mul(x2, x), S::fma(S::fma(vdw_k.c5, x, vdw_k.c4), x, vdw_k.c3), vdw_k.one);
                    const F dsw = S::mul(x2, S::fma(S::fma(vdw_k.d4, x, vdw_k.d3), x, vdw_k.d2));
                    fr = S::fnma(S::mul(rr, v), dsw, S::mul(fr, sw));
                    if constexpr (kEnergy) vlj = S::add(vlj, S::mul(v, sw));
                }
            } else if constexpr (kEnergy) {
                // c12 (r^-12 - rc^-12) - c6 (r^-6 - rc^-6), zero outside the cut-off.
                const F e12 = S::mul(twelfth, S::mul(c12, S::fms(rinv6, rinv6, shift12)));
                const F e6 = S::mul(sixth, S::mul(c6, S::sub(rinv6, shift6)));
                vlj = S::add(vlj, S::select(on, S::sub(e12, e6)));
            }
        }
        if constexpr (kEnergy) pairs_in += S::popcount(on);
        if constexpr (kCoulomb) {
            // Included pairs: qq erfc(br)/r (shifted); excluded pairs within rc get
            // the correction -qq erf(br)/r. Both are qq (k/r - erf(br)/r) with k = 1
            // for included pairs, 0 for excluded (see simd_math.h). Force times r:
            // qq (k/r - beta^3 H(w) r^2). r^2 is masked so far pairs (padding) stay
            // in the range of the rational functions.
            const F rinv_k = kMasked ? S::select(interact, rinv) : rinv;
            const F qq = S::mul(S::load(qi_p + r * W), S::template load_j<M>(a.q + j0 + jo));
            const F r2_in = S::select(wco, r2);
            if constexpr (kEwald) {
                fr = S::fma(qq, S::fnma(simd::rational<S>(r2_in, beta3_h), r2_in, rinv_k), fr);
                if constexpr (kEnergy) {
                    const F shift = kMasked ? S::select(interact, ewald_shift) : ewald_shift;
                    const F v = S::mul(qq, S::sub(S::sub(rinv_k, simd::rational<S>(r2_in, beta_g)), shift));
                    vc = S::add(vc, S::select(wco, v));
                }
            } else {
                // Reaction field: qq (k/r + k_rf r^2 - c_rf), force times r qq (k/r -
                // 2 k_rf r^2), k as above: excluded pairs within rc keep the field terms.
                fr = S::fma(qq, S::fnma(rf_k.two_k_rf, r2_in, rinv_k), fr);
                if constexpr (kEnergy) {
                    const F v = S::mul(qq, S::sub(S::fma(rf_k.k_rf, r2_in, rinv_k), rf_k.c_rf));
                    vc = S::add(vc, S::select(wco, v));
                }
            }
        }
        const F fscal = S::mul(fr, rinv2);
        fix_r = S::fma(fscal, dx, fix_r);
        fiy_r = S::fma(fscal, dy, fiy_r);
        fiz_r = S::fma(fscal, dz, fiz_r);
        if constexpr (W >= M) {
            fjx = S::fma(fscal, dx, fjx);
            fjy = S::fma(fscal, dy, fjy);
            fjz = S::fma(fscal, dz, fjz);
        } else {
            // Narrow registers: each holds distinct j, update memory directly.
            const F t[3] = {S::mul(fscal, dx), S::mul(fscal, dy), S::mul(fscal, dz)};
            float* f[3] = {a.fx, a.fy, a.fz};
            for (int d = 0; d < 3; ++d) {
                S::store(tmp, t[d]);
                for (int l = 0; l < W; ++l) f[d][j0 + jo + l] -= tmp[l];
            }
        }
    };

    // All registers of one j-entry. kLjRegs: the registers that compute LJ, known
    // at compile time, or kLjBits: read from lj_regs.
    constexpr unsigned kLjBits = ~0u - 1;  // never a register set (R <= 2 there)
    // fi: the i-force accumulators, passed rather than captured so that they stay
    // in registers through the j-loop.
    auto entry = [&]<bool kMasked, unsigned kLjRegs>(const Arrays a, const JEntry& je, F (&ax)[R], F (&ay)[R],
                                                     F (&az)[R])
                     __attribute__((always_inline)) {
        const int j0 = je.cj * M;
        F fjx = S::zero(), fjy = S::zero(), fjz = S::zero();
        if constexpr (kLjRegs == kLjBits) {
            for (int r = 0; r < R; ++r)
                pair_register.template operator()<kMasked, LjMode::PerRegisterBits>(a, r, je, j0, ax[r], ay[r], az[r], fjx,
                                                                                    fjy, fjz);
        } else if constexpr (kLjRegs == 0 || kLjRegs == LjSets::kAll) {
            constexpr LjMode mode = kLjRegs == 0 ? LjMode::None : LjMode::All;
            for (int r = 0; r < R; ++r)
                pair_register.template operator()<kMasked, mode>(a, r, je, j0, ax[r], ay[r], az[r], fjx, fjy, fjz);
        } else {
            [&, a]<int... r>(std::integer_sequence<int, r...>) {
                (pair_register.template operator()<kMasked, ((kLjRegs >> r) & 1u) ? LjMode::All : LjMode::None>(
                     a, r, je, j0, ax[r], ay[r], az[r], fjx, fjy, fjz),
                 ...);
            }(std::make_integer_sequence<int, R>{});
        }
        if constexpr (kCopies == 2 && W == 2 * M) {
            S::sub_from(fjx, a.fx + 2 * j0);
            S::sub_from(fjy, a.fy + 2 * j0);
            S::sub_from(fjz, a.fz + 2 * j0);
        } else if constexpr (kCopies == 2) {
            S::sub_half_from(fjx, a.fx + 2 * j0);
            S::sub_half_from(fjy, a.fy + 2 * j0);
            S::sub_half_from(fjz, a.fz + 2 * j0);
        } else if constexpr (W >= M) {
            S::template fold_sub<M>(fjx, a.fx + j0);
            S::template fold_sub<M>(fjy, a.fy + j0);
            S::template fold_sub<M>(fjz, a.fz + j0);
        }
    };

    auto j_loop = [&]<unsigned kLjRegs>(const IEntry& ei) __attribute__((always_inline)) {
        const Arrays a{in.x,         in.y,        in.z,    in.q,     in.c6s, in.c12s, in.c6_table,
                       in.c12_table, in.type,     in.shift, out.fx,  out.fy, out.fz, out.touched};
        const JEntry* const js = list.j.data();
        const int e_end = ei.j_end;
        F ax[R], ay[R], az[R];
        for (int r = 0; r < R; ++r) ax[r] = ay[r] = az[r] = S::zero();
        for (int e = ei.j_begin; e < e_end; ++e) {
            const JEntry& je = js[e];
            ic.use_shift(je.shift, a.shift);
            if constexpr (kernel_flags_blocks(Coul)) a.touched[je.cj >> kTouchedBlockShift] = 1;
            if (je.mask == kFullMask && je.excluded == 0)
                entry.template operator()<false, kLjRegs>(a, je, ax, ay, az);
            else
                entry.template operator()<true, kLjRegs>(a, je, ax, ay, az);
        }
        for (int r = 0; r < R; ++r) {
            fix[r] = ax[r];
            fiy[r] = ay[r];
            fiz[r] = az[r];
        }
    };

    for (int ie = i_begin; ie < i_end; ++ie) {
        const IEntry& ei = list.i[ie];
        const int i0 = ei.ci * N;
        if constexpr (kernel_flags_blocks(Coul))  // the i-forces' blocks
            for (int c = i0 / M; c <= (i0 + N - 1) / M; ++c) out.touched[c >> kTouchedBlockShift] = 1;
        // The i-data in pair layout, a permuted load per register (IClusterCoords).
        ic.load(in.x, in.y, in.z, i0);
        for (int r = 0; r < R; ++r) {
            if constexpr (Comb == LjCombination::Geometric) {
                S::store(c6i_p + r * W, S::template load_i<N, M>(in.c6s + i0, r));
                S::store(c12i_p + r * W, S::template load_i<N, M>(in.c12s + i0, r));
            }
            if constexpr (kCoulomb) S::store(qi_p + r * W, S::template load_i<N, M>(in.q + i0, r));
        }
        if constexpr (Comb == LjCombination::Table)
            for (int p = 0; p < P; ++p) ti_p[p] = in.type[i0 + p / M] * in.ntypes;

        if constexpr (!kCoulomb) {
            j_loop.template operator()<LjSets::kAll>(ei);  // no charges: every atom has LJ
        } else {
            lj_regs = LjSets::of([&](int i) {
                const int a = i0 + i;
                if constexpr (Comb == LjCombination::Geometric) return in.c6s[a] != 0.0f || in.c12s[a] != 0.0f;
                else return in.type_has_lj == nullptr || in.type_has_lj[in.type[a]] != 0;
            });
            if (lj_regs == 0) {
                j_loop.template operator()<0u>(ei);
            } else if (R == 2 && lj_regs == 1u) {
                j_loop.template operator()<1u>(ei);
            } else if (R <= 2) {
                // Both registers, or LJ in the second only: the grid puts LJ atoms
                // first in each i-cluster (ClusterGrid::set_first_in_cluster), so
                // that pattern only comes from unsorted grids and takes this path.
                j_loop.template operator()<LjSets::kAll>(ei);
            } else if constexpr (R > 2) {
                j_loop.template operator()<kLjBits>(ei);
            }
        }

        // Reduce the i-forces over the j lanes of each i.
        for (int r = 0; r < R; ++r) {
            if constexpr (W >= M) {
                // The W / M atoms of a register are adjacent in both buffer layouts.
                const auto i = force_buffer_index(i0 + r * (W / M), M, kCopies);
                S::template add_group_sums<M>(fix[r], out.fx + i);
                S::template add_group_sums<M>(fiy[r], out.fy + i);
                S::template add_group_sums<M>(fiz[r], out.fz + i);
            } else {
                const int i = i0 + r * W / M;
                out.fx[i] += S::hsum(fix[r]);
                out.fy[i] += S::hsum(fiy[r]);
                out.fz[i] += S::hsum(fiz[r]);
            }
        }
        if constexpr (kEnergy) {
            e_lj += S::hsum(vlj);
            if constexpr (kCoulomb) e_coul += S::hsum(vc);
            vlj = vc = S::zero();
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
    constexpr std::uint32_t kFullMask = P == 32 ? 0xffffffffu : (1u << P) - 1;
    IClusterCoords<S, N, M> ic;
    const PairList& list = *in.list;
    // Local copies: `keep` is written through a char pointer, which may alias
    // anything, so fields read through references would be reloaded per entry.
    const SortedCoordinates c = in.coords;
    const JEntry* const js = list.j.data();
    const F r2max = S::set1(in.r2);
    for (int ie = i_begin; ie < i_end; ++ie) {
        const IEntry& ei = list.i[ie];
        const int i0 = ei.ci * N;
        ic.load(c.x, c.y, c.z, i0);
        const int e_end = ei.j_end;
        for (int e = ei.j_begin; e < e_end; ++e) {
            const JEntry& je = js[e];
            const int j0 = je.cj * M;
            ic.use_shift(je.shift, c.shift);
            // Full entries (the common case) need no mask; one popcount per entry.
            const std::uint32_t bits = je.mask | je.excluded;
            const bool full = bits == kFullMask;
            B hit{};
            for (int r = 0; r < R; ++r) {
                constexpr int step = W <= M ? W : 0;
                const int jo = step == 0 ? 0 : (r * step) % M;
                const F dx = S::sub(S::load(ic.sx + r * W), S::template load_j<M>(c.x + j0 + jo));
                const F dy = S::sub(S::load(ic.sy + r * W), S::template load_j<M>(c.y + j0 + jo));
                const F dz = S::sub(S::load(ic.sz + r * W), S::template load_j<M>(c.z + j0 + jo));
                const F r2 = S::fma(dx, dx, S::fma(dy, dy, S::mul(dz, dz)));
                B on = S::lt(r2, r2max);
                if (!full) on = S::land(on, S::mask_from_bits(bits, r));
                hit = r == 0 ? on : S::lor(hit, on);
            }
            keep[e] = S::popcount(hit) > 0;
        }
    }
}

}  // namespace mdcore
