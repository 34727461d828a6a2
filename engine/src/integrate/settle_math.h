#pragma once
// The SETTLE algebra of one molecule (Miyamoto & Kollman 1992) for any real type,
// __host__ __device__: the CPU's fused leap-frog + SETTLE kernel uses it in float
// (settle_update_kernel.h, written so the loop over molecules vectorises), the GPU
// update in float (update_gpu.cu). Branch-free: every condition is a select.
// Included by g++ and nvcc.
#include <cmath>
#include <limits>

#include "util/host_device.h"

// Inlined into the CPU kernel's loop over molecules whatever the inliner's
// budget: a call there stops the loop from vectorising.
#define MDT_SETTLE_INLINE __attribute__((always_inline))

namespace mdcore::settle_math {

MDT_HOST_DEVICE inline double root(double v) {
#ifdef __CUDA_ARCH__
    return ::sqrt(v);
#else
    return std::sqrt(v);
#endif
}
MDT_HOST_DEVICE inline float root(float v) {
#ifdef __CUDA_ARCH__
    return sqrtf(v);
#else
    return std::sqrt(v);
#endif
}
template <class Real>
MDT_HOST_DEVICE inline Real inv_root(Real v) {
    return Real(1) / root(v);
}
// False for inf and NaN.
template <class Real>
MDT_HOST_DEVICE inline bool finite(Real v) {
    return (v < Real(0) ? -v : v) <= std::numeric_limits<Real>::max();
}

// SETTLE's canonical triangle (SettleGeometry's fields) in Real: what settle_solve reads.
template <class Real>
struct Shape {
    Real m_o, m_h, inv_m_total, ra, rb, rc;
};
// The triangle of `g` (a SettleGeometry or another Shape) rounded to Real.
template <class Real, class Geometry>
MDT_HOST_DEVICE inline Shape<Real> shape_as(const Geometry& g) {
    return {Real(g.m_o), Real(g.m_h), Real(g.inv_m_total), Real(g.ra), Real(g.rb), Real(g.rc)};
}

// SETTLE for one molecule. `g` has the canonical triangle (m_o, m_h, inv_m_total,
// ra, rb, rc; SettleGeometry or a float copy); b0, c0 are the reference O->H bonds,
// ua, ub, uc the unconstrained positions, all relative to the reference O. Writes
// the constrained positions na, nb, nc (same frame); false when there is no solution.
template <class Real, class Geometry>
MDT_HOST_DEVICE MDT_SETTLE_INLINE inline bool settle_solve(const Geometry& g, const Real* b0, const Real* c0, const Real* ua,
                                         const Real* ub, const Real* uc, Real* na, Real* nb, Real* nc) {
    const Real m_o = g.m_o, m_h = g.m_h, inv_m_total = g.inv_m_total, ra = g.ra, rb = g.rb, rc = g.rc;
    Real com[3], a1[3], b1[3], c1[3];
    for (int d = 0; d < 3; ++d) com[d] = inv_m_total * (m_o * ua[d] + m_h * (ub[d] + uc[d]));
    for (int d = 0; d < 3; ++d) {
        a1[d] = ua[d] - com[d];
        b1[d] = ub[d] - com[d];
        c1[d] = uc[d] - com[d];
    }
    // Frame: Z normal to the reference plane, X normal to Z and the new O direction.
    Real ez[3] = {b0[1] * c0[2] - b0[2] * c0[1], b0[2] * c0[0] - b0[0] * c0[2], b0[0] * c0[1] - b0[1] * c0[0]};
    const Real nz = inv_root(ez[0] * ez[0] + ez[1] * ez[1] + ez[2] * ez[2]);
    for (Real& e : ez) e *= nz;
    Real ex[3] = {a1[1] * ez[2] - a1[2] * ez[1], a1[2] * ez[0] - a1[0] * ez[2], a1[0] * ez[1] - a1[1] * ez[0]};
    const Real xx = ex[0] * ex[0] + ex[1] * ex[1] + ex[2] * ex[2];
    const bool on_normal = !(xx > Real(1e-30) * (a1[0] * a1[0] + a1[1] * a1[1] + a1[2] * a1[2]));
    for (int d = 0; d < 3; ++d) ex[d] = on_normal ? b0[d] : ex[d];
    const Real nx = inv_root(ex[0] * ex[0] + ex[1] * ex[1] + ex[2] * ex[2]);
    for (Real& e : ex) e *= nx;
    const Real ey[3] = {ez[1] * ex[2] - ez[2] * ex[1], ez[2] * ex[0] - ez[0] * ex[2], ez[0] * ex[1] - ez[1] * ex[0]};
    auto along = [](const Real* e, const Real* v) { return e[0] * v[0] + e[1] * v[1] + e[2] * v[2]; };
    const Real xb0 = along(ex, b0), yb0 = along(ey, b0), xc0 = along(ex, c0), yc0 = along(ey, c0);
    const Real za1 = along(ez, a1);
    const Real xb1 = along(ex, b1), yb1 = along(ey, b1), zb1 = along(ez, b1);
    const Real xc1 = along(ex, c1), yc1 = along(ey, c1), zc1 = along(ez, c1);

    const Real sinphi = za1 / ra;
    const Real cos2phi = Real(1) - sinphi * sinphi;
    const Real cosphi = root(cos2phi > Real(0) ? cos2phi : Real(1));
    const Real sinpsi = (zb1 - zc1) / (Real(2) * rc * cosphi);
    const Real cos2psi = Real(1) - sinpsi * sinpsi;
    const Real cospsi = root(cos2psi > Real(0) ? cos2psi : Real(1));
    const Real ya2 = ra * cosphi, xb2 = -rc * cospsi;
    const Real t1 = -rb * cosphi, t2 = rc * sinpsi * sinphi;
    const Real yb2 = t1 - t2, yc2 = t1 + t2;
    // In-plane rotation: alpha sin + beta cos = gamma (no torque about the reference bonds).
    const Real alpha = xb2 * (xb0 - xc0) + yb0 * yb2 + yc0 * yc2;
    const Real beta = xb2 * (yc0 - yb0) + xb0 * yb2 + xc0 * yc2;
    const Real gamma = xb0 * yb1 - xb1 * yb0 + xc0 * yc1 - xc1 * yc0;
    const Real al2be2 = alpha * alpha + beta * beta;
    const Real disc = al2be2 - gamma * gamma;
    const Real sinthe = (alpha * gamma - beta * root(disc >= Real(0) ? disc : Real(0))) / al2be2;
    const Real cos2the = Real(1) - sinthe * sinthe;
    const Real costhe = root(cos2the >= Real(0) ? cos2the : Real(0));

    const Real a3[3] = {-ya2 * sinthe, ya2 * costhe, za1};
    const Real b3[3] = {xb2 * costhe - yb2 * sinthe, xb2 * sinthe + yb2 * costhe, zb1};
    const Real c3[3] = {-xb2 * costhe - yc2 * sinthe, -xb2 * sinthe + yc2 * costhe, zc1};
    Real sum = 0;
    for (int d = 0; d < 3; ++d) {
        na[d] = com[d] + a3[0] * ex[d] + a3[1] * ey[d] + a3[2] * ez[d];
        nb[d] = com[d] + b3[0] * ex[d] + b3[1] * ey[d] + b3[2] * ez[d];
        nc[d] = com[d] + c3[0] * ex[d] + c3[1] * ey[d] + c3[2] * ez[d];
        sum += na[d] + nb[d] + nc[d];
    }
    // '&' rather than '&&': no branches, so a loop over molecules stays vectorisable.
    return (cos2phi > Real(0)) & (cos2psi > Real(0)) & (disc >= Real(0)) & (al2be2 > Real(0)) &
           (cos2the >= Real(0)) & finite(sum);
}

}  // namespace mdcore::settle_math
