#pragma once
// The per-atom and per-grid-point pieces of smooth PME in single precision,
// __host__ __device__: the order-p B-spline weights of one atom along one
// dimension (the recursion of bspline.cpp) and the solve's influence function
// and energy term of one reciprocal grid point (pme_solve.cpp). A GPU PME uses
// them per thread; the host tests check them against bspline() and the
// tabulated influence function. Included by g++ and nvcc.
#include <cmath>

#include "pme/bspline.h"  // kPmeMaxOrder
#include "util/host_device.h"

namespace mdcore::pme_math {

// th[j] = M_p(f + j), dth[j] = M_p'(f + j) (when not null), j = 0..p-1, f in [0, 1).
MDT_HOST_DEVICE inline void bspline_weights(float f, int p, float* th, float* dth) {
    float w[kPmeMaxOrder] = {};
    w[0] = f;
    w[1] = 1.0f - f;
    for (int n = 3; n <= p; ++n) {
        if (n == p && dth)
            for (int j = 0; j < n; ++j) dth[j] = (j < n - 1 ? w[j] : 0.0f) - (j > 0 ? w[j - 1] : 0.0f);
        const float div = 1.0f / static_cast<float>(n - 1);
        for (int j = n - 1; j >= 0; --j) {
            const float a = j < n - 1 ? w[j] : 0.0f;
            const float b = j > 0 ? w[j - 1] : 0.0f;
            w[j] = div * ((f + static_cast<float>(j)) * a + (static_cast<float>(n) - f - static_cast<float>(j)) * b);
        }
    }
    for (int j = 0; j < p; ++j) th[j] = w[j];
}

// G(m) = prefactor exp(-pi^2 m^2 / beta^2) / (pi V m^2 prod_a |b_a(m_a)|^2); 0 at m = 0
// (tin-foil). m in nm^-1 (the signed frequency over the box length).
MDT_HOST_DEVICE inline float influence(float mx, float my, float mz, float beta, float volume, float bmod_product,
                                       float prefactor) {
    const float m2 = mx * mx + my * my + mz * mz;
    if (m2 == 0.0f) return 0.0f;
    constexpr float kPi = 3.14159265358979f;
    return prefactor * expf(-kPi * kPi * m2 / (beta * beta)) / (kPi * volume * m2 * bmod_product);
}

// One point of the half-complex transform: scales (re, im) by G and returns its
// energy share 0.5 weight G |Qh|^2 (weight 2 for the z-planes standing for +-kz).
MDT_HOST_DEVICE inline float solve_point(float& re, float& im, float g, float weight) {
    const float e = 0.5f * weight * g * (re * re + im * im);
    re *= g;
    im *= g;
    return e;
}

// Weight of z-plane kz of nz in the half-complex layout.
MDT_HOST_DEVICE inline float plane_weight(int kz, int nz) { return kz == 0 || (nz % 2 == 0 && kz == nz / 2) ? 1.0f : 2.0f; }

}  // namespace mdcore::pme_math
