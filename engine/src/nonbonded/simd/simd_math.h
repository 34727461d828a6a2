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

// Numerator coefficients times a scale s, so s H(w) or s G(w) costs no multiply.
template <int N>
struct ScaledNumerator {
    float c[N];
    ScaledNumerator(const float (&base)[N], float s) {
        for (int k = 0; k < N; ++k) c[k] = base[k] * s;
    }
};
using ScaledH = ScaledNumerator<std::size(kHP)>;
using ScaledG = ScaledNumerator<std::size(kGP)>;

// s H(w) for the force (hp = {kHP, s}).
template <class S>
typename S::F ewald_force_h(typename S::F w, const ScaledH& hp) {
    return S::mul(horner<S>(w, hp.c), S::rcp(horner<S>(w, kHQ)));
}

// s G(w) for the potential (gp = {kGP, s}).
template <class S>
typename S::F ewald_potential_g(typename S::F w, const ScaledG& gp) {
    return S::mul(horner<S>(w, gp.c), S::rcp(horner<S>(w, kGQ)));
}

}  // namespace mdcore::simd
