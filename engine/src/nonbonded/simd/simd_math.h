#pragma once
// Ewald real-space pair functions for the cluster kernels, written once over any
// SIMD backend. With z = beta r and w = z^2:
//   potential  qq (k/r - beta G(w)),      G(w) = erf(z) / z
//   force / r  qq (k/r^3 - beta^3 H(w)),  H(w) = (erf(z) - 2 z exp(-z^2)/sqrt(pi)) / z^3
// (k = 1 for interacting pairs, 0 for excluded ones). G and H are smooth in w, so
// rational approximations need no exp, erf or square root: a handful of FMAs and
// one reciprocal, on a dependency chain that starts from r^2 and runs parallel to
// the 1/r computation. Coefficients from scripts/fit_ewald_correction.py, fitted
// on w in [0, 16] (z <= 4, i.e. ewald_rtol >= 1e-8): max relative error 6.7e-8 (G)
// and 1.7e-7 (H), at single-precision rounding level.
#include <iterator>

#include "nonbonded/pair_math.h"

namespace mdcore::simd {

inline constexpr float kEwaldMaxW = 16.0f;
namespace pm = pair_math;  // the coefficients, defined once in pair_math.h
inline constexpr float kGP[] = {pm::kGP0, pm::kGP1, pm::kGP2, pm::kGP3, pm::kGP4, pm::kGP5};
inline constexpr float kGQ[] = {pm::kGQ0, pm::kGQ1, pm::kGQ2, pm::kGQ3, pm::kGQ4, pm::kGQ5};
inline constexpr float kHP[] = {pm::kHP0, pm::kHP1, pm::kHP2, pm::kHP3, pm::kHP4, pm::kHP5, pm::kHP6};
inline constexpr float kHQ[] = {pm::kHQ0, pm::kHQ1, pm::kHQ2, pm::kHQ3, pm::kHQ4, pm::kHQ5};

template <class S, int N>
typename S::F horner(typename S::F w, const float (&c)[N]) {
    typename S::F p = S::set1(c[N - 1]);
    for (int k = N - 2; k >= 0; --k) p = S::fma(p, w, S::set1(c[k]));
    return p;
}

// A rational function of w = beta^2 r^2 rewritten in r^2: coefficient k of both
// polynomials times beta^(2k), the numerator also times a scale s. The kernels
// then evaluate it on r^2 directly, with no multiply forming w for every pair.
template <int NP, int NQ>
struct RationalInR2 {
    float p[NP], q[NQ];
    RationalInR2(const float (&base_p)[NP], const float (&base_q)[NQ], float beta, float s) {
        const double beta2 = static_cast<double>(beta) * beta;
        double power = 1.0;
        for (int k = 0; k < NP || k < NQ; ++k, power *= beta2) {
            if (k < NP) p[k] = static_cast<float>(base_p[k] * power * s);
            if (k < NQ) q[k] = static_cast<float>(base_q[k] * power);
        }
    }
};
// beta^3 H(w) for the force, so that qq (1/r - beta^3 H r^2) is the force times r.
using EwaldForceInR2 = RationalInR2<std::size(kHP), std::size(kHQ)>;
// beta G(w) for the potential.
using EwaldPotentialInR2 = RationalInR2<std::size(kGP), std::size(kGQ)>;
inline EwaldForceInR2 ewald_force_in_r2(float beta) { return {kHP, kHQ, beta, beta * beta * beta}; }
inline EwaldPotentialInR2 ewald_potential_in_r2(float beta) { return {kGP, kGQ, beta, beta}; }

// f(r2) for r2 with beta r <= 4 (kEwaldMaxW).
template <class S, int NP, int NQ>
typename S::F rational(typename S::F r2, const RationalInR2<NP, NQ>& f) {
    return S::mul(horner<S>(r2, f.p), S::rcp(horner<S>(r2, f.q)));
}

}  // namespace mdcore::simd
