#pragma once
// Elementary functions for the Ewald kernels, written once over any SIMD backend.
namespace mdcore::simd {

// exp(x) for x in [-80, 0]: 2^n * exp(f ln 2) with |f| <= 1/2 and a degree-7
// Taylor polynomial (relative error < 1e-8, below float rounding).
template <class S>
typename S::F exp_nonpositive(typename S::F x) {
    using F = typename S::F;
    const F y = S::mul(S::max(x, S::set1(-80.0f)), S::set1(1.4426950408889634f));  // x / ln 2
    const F n = S::round(y);
    const F f = S::mul(S::sub(y, n), S::set1(0.6931471805599453f));  // |f| <= ln2 / 2
    F p = S::set1(1.0f / 5040.0f);
    p = S::fma(p, f, S::set1(1.0f / 720.0f));
    p = S::fma(p, f, S::set1(1.0f / 120.0f));
    p = S::fma(p, f, S::set1(1.0f / 24.0f));
    p = S::fma(p, f, S::set1(1.0f / 6.0f));
    p = S::fma(p, f, S::set1(0.5f));
    p = S::fma(p, f, S::set1(1.0f));
    p = S::fma(p, f, S::set1(1.0f));
    return S::scale2(p, n);
}

// erfc(x) for x >= 0 given exp(-x^2): Abramowitz & Stegun 7.1.26,
// erfc(x) = t (a1 + t (a2 + ... a5 t)) exp(-x^2), t = 1/(1 + p x); absolute error
// <= 1.5e-7 (single-precision level), one reciprocal and five FMAs.
template <class S>
typename S::F erfc_with_exp(typename S::F x, typename S::F exp_mx2) {
    using F = typename S::F;
    const F t = S::rcp(S::fma(S::set1(0.3275911f), x, S::set1(1.0f)));
    F p = S::set1(1.061405429f);
    p = S::fma(p, t, S::set1(-1.453152027f));
    p = S::fma(p, t, S::set1(1.421413741f));
    p = S::fma(p, t, S::set1(-0.284496736f));
    p = S::fma(p, t, S::set1(0.254829592f));
    return S::mul(S::mul(p, t), exp_mx2);
}

}  // namespace mdcore::simd
