#pragma once
// Cardinal B-splines of order p (4..6) for smooth PME: the per-atom weights and
// their derivatives, and the Euler exponential-spline moduli |b(m)|^2.
#include <vector>

namespace mdcore {

inline constexpr int kPmeMaxOrder = 6;

// One atom's stencil per dimension: grid indices idx[a][j] (mod K) with weights
// th[a][j] = M_p(f + j) and derivatives dth[a][j]; spread keeps it for gather.
struct AtomStencil {
    int idx[3][kPmeMaxOrder];
    double th[3][kPmeMaxOrder];
    double dth[3][kPmeMaxOrder];
};

// th[j] = M_p(f + j) and (when dth is not null) dth[j] = M_p'(f + j), j = 0..p-1, f in [0,1).
void bspline(double f, int p, double* th, double* dth);

// |b(m)|^2 denominators of the influence function for a grid of K points:
// bmod[m] = |sum_{k=0}^{p-2} M_p(k+1) exp(2 pi i m k/K)|^2.
std::vector<double> bspline_moduli(int K, int p);

}  // namespace mdcore
