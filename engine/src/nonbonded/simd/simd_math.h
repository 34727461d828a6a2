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

namespace mdcore::simd {

inline constexpr float kEwaldMaxW = 16.0f;
inline constexpr float kGP[] = {1.128379132e+00f, 1.921958249e-01f, 5.295695323e-02f,
                                3.835321936e-03f, 2.851793553e-04f, 2.018884775e-06f};
inline constexpr float kGQ[] = {1.000000000e+00f, 5.036616194e-01f, 1.148230971e-01f,
                                1.510887341e-02f, 1.177138493e-03f, 3.778605820e-05f};
inline constexpr float kHP[] = {7.522528447e-01f,  -3.654546681e-02f, 1.811548881e-02f, -2.167855614e-04f,
                                5.080315322e-05f,  -1.046658471e-06f, 1.108088515e-08f};
inline constexpr float kHQ[] = {1.000000000e+00f, 5.514210868e-01f, 1.406359670e-01f,
                                2.151415285e-02f, 2.079442652e-03f, 1.289490231e-04f};

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
