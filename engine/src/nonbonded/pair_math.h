#pragma once
// The nonbonded interaction of one atom pair, as the cluster kernels compute it
// (cluster_kernel.h): LJ potential-shifted at rc, Ewald real space with the
// rational approximations of simd_math.h (no erfc, exp or sqrt beyond one rsqrt),
// and the erf correction of excluded pairs. Scalar and __host__ __device__: the
// CUDA kernels use it per thread, the host tests check it against the references.
// Included by g++ and nvcc: no standard-library containers here.
#include <cmath>

#include "util/host_device.h"

namespace mdcore::pair_math {

// Ewald rational-function coefficients (scripts/fit_ewald_correction.py; the
// SIMD kernels' kGP, kGQ, kHP, kHQ in simd_math.h are these numbers):
// G(w) = erf(z)/z = P_G(w)/Q_G(w) and H(w) = (erf(z) - 2z exp(-z^2)/sqrt(pi))/z^3
// = P_H(w)/Q_H(w), with z = beta r, w = z^2, fitted on w in [0, 16].
inline constexpr float kGP0 = 1.128379132e+00f, kGP1 = 1.921958249e-01f, kGP2 = 5.295695323e-02f,
                       kGP3 = 3.835321936e-03f, kGP4 = 2.851793553e-04f, kGP5 = 2.018884775e-06f;
inline constexpr float kGQ0 = 1.000000000e+00f, kGQ1 = 5.036616194e-01f, kGQ2 = 1.148230971e-01f,
                       kGQ3 = 1.510887341e-02f, kGQ4 = 1.177138493e-03f, kGQ5 = 3.778605820e-05f;
inline constexpr float kHP0 = 7.522528447e-01f, kHP1 = -3.654546681e-02f, kHP2 = 1.811548881e-02f,
                       kHP3 = -2.167855614e-04f, kHP4 = 5.080315322e-05f, kHP5 = -1.046658471e-06f,
                       kHP6 = 1.108088515e-08f;
inline constexpr float kHQ0 = 1.000000000e+00f, kHQ1 = 5.514210868e-01f, kHQ2 = 1.406359670e-01f,
                       kHQ3 = 2.151415285e-02f, kHQ4 = 2.079442652e-03f, kHQ5 = 1.289490231e-04f;

MDT_HOST_DEVICE inline float ewald_g(float w) {
    const float p = ((((kGP5 * w + kGP4) * w + kGP3) * w + kGP2) * w + kGP1) * w + kGP0;
    const float q = ((((kGQ5 * w + kGQ4) * w + kGQ3) * w + kGQ2) * w + kGQ1) * w + kGQ0;
    return p / q;
}

MDT_HOST_DEVICE inline float ewald_h(float w) {
    const float p = (((((kHP6 * w + kHP5) * w + kHP4) * w + kHP3) * w + kHP2) * w + kHP1) * w + kHP0;
    const float q = ((((kHQ5 * w + kHQ4) * w + kHQ3) * w + kHQ2) * w + kHQ1) * w + kHQ0;
    return p / q;
}

MDT_HOST_DEVICE inline float inv_sqrt(float x) {
#ifdef __CUDA_ARCH__
    return rsqrtf(x);
#else
    return 1.0f / std::sqrt(x);
#endif
}

// Per-run constants of the interaction.
struct PairConstants {
    float rc2;
    float rc_inv6, rc_inv12;  // LJ potential shift
    float beta;               // Ewald splitting, nm^-1 (0: no Coulomb)
    float ewald_shift;        // erfc(beta rc) / rc
};

// What a pair contributes: force on i is f_over_r * (r_i - r_j), on j the opposite.
struct PairTerms {
    float f_over_r = 0.0f;
    float v_lj = 0.0f;
    float v_coul = 0.0f;
};

// r2: squared distance; c6x6 = 6 C6, c12x12 = 12 C12 (the kernels' parameters);
// qq: product of the scaled charges. interact: the pair gets LJ and Coulomb;
// excluded: an excluded pair, which gets only -qq erf(beta r)/r. Nothing beyond rc.
MDT_HOST_DEVICE inline PairTerms pair_terms(float r2, float c6x6, float c12x12, float qq, bool interact, bool excluded,
                                            const PairConstants& k) {
    PairTerms t;
    if (!(r2 < k.rc2) || (!interact && !excluded)) return t;
    const float rinv = inv_sqrt(r2);
    const float rinv2 = rinv * rinv;
    float fr = 0.0f;  // force times r
    if (interact) {
        const float rinv6 = rinv2 * rinv2 * rinv2;
        fr = rinv6 * (c12x12 * rinv6 - c6x6);
        t.v_lj = c12x12 * (1.0f / 12.0f) * (rinv6 * rinv6 - k.rc_inv12) - c6x6 * (1.0f / 6.0f) * (rinv6 - k.rc_inv6);
    }
    if (k.beta > 0.0f) {
        const float rinv_k = interact ? rinv : 0.0f;
        const float w = k.beta * k.beta * r2;
        fr += qq * (rinv_k - k.beta * ewald_h(w) * w);
        t.v_coul = qq * (rinv_k - k.beta * ewald_g(w) - (interact ? k.ewald_shift : 0.0f));
    }
    t.f_over_r = fr * rinv2;
    return t;
}

}  // namespace mdcore::pair_math
