// B-spline weights and moduli (Essmann et al., J. Chem. Phys. 103, 8577 (1995), sec. III).
#include "pme/bspline.h"

#include <cmath>
#include <numbers>

namespace mdcore {

// By the recursion
//   M_n(x) = x/(n-1) M_{n-1}(x) + (n-x)/(n-1) M_{n-1}(x-1),  M_n'(x) = M_{n-1}(x) - M_{n-1}(x-1).
void bspline(double f, int p, double* th, double* dth) {
    double w[kPmeMaxOrder] = {};
    w[0] = f;        // M_2(f)
    w[1] = 1.0 - f;  // M_2(f+1)
    for (int n = 3; n <= p; ++n) {
        if (n == p && dth)
            for (int j = 0; j < n; ++j) dth[j] = (j < n - 1 ? w[j] : 0.0) - (j > 0 ? w[j - 1] : 0.0);
        const double div = 1.0 / (n - 1);
        // Descending j so w[j-1] still holds the order n-1 value.
        for (int j = n - 1; j >= 0; --j) {
            const double a = j < n - 1 ? w[j] : 0.0;
            const double b = j > 0 ? w[j - 1] : 0.0;
            w[j] = div * ((f + j) * a + (n - f - j) * b);
        }
    }
    for (int j = 0; j < p; ++j) th[j] = w[j];
}

std::vector<double> bspline_moduli(int K, int p) {
    constexpr double kPi = std::numbers::pi;
    double th[kPmeMaxOrder];
    bspline(0.0, p, th, nullptr);  // th[j] = M_p(j)
    std::vector<double> mod(K);
    for (int m = 0; m < K; ++m) {
        double re = 0, im = 0;
        for (int k = 0; k <= p - 2; ++k) {
            const double arg = 2.0 * kPi * m * k / K;
            re += th[k + 1] * std::cos(arg);
            im += th[k + 1] * std::sin(arg);
        }
        mod[m] = re * re + im * im;
    }
    // Odd orders vanish at the Nyquist frequency; interpolate as GROMACS does (the
    // Gaussian factor makes that mode negligible anyway).
    for (int m = 0; m < K; ++m)
        if (mod[m] < 1e-7) mod[m] = 0.5 * (mod[(m - 1 + K) % K] + mod[(m + 1) % K]);
    return mod;
}

}  // namespace mdcore
