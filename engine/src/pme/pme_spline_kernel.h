#pragma once
// The many-atom B-spline stencil kernel, included by pme_spline_<level>.cpp only.
// Lane l of every array is atom begin + l; the operations and their order are those of
// bspline() in bspline.cpp, so with FMA contraction off the values are identical.
#include <cmath>

#include "pme/pme_spline.h"

namespace mdcore {
// Internal linkage: each pme_spline_<level>.cpp compiles these templates with its
// own target flags, and with external linkage the linker would keep one of the
// identically named instances for every level (the AVX-512 one could then run on
// a CPU, or under valgrind, without AVX-512).
namespace {

template <int P>
void pme_spline_lanes(const PmeSplineArgs& args, std::size_t i0, int lanes) {
    constexpr int kL = kPmeSplineLanes;
    for (int d = 0; d < 3; ++d) {
        const int K = args.dims[d];
        const double L = args.length[d];
        double x[kL], f[kL];
        int base[kL];
        for (int l = 0; l < kL; ++l) x[l] = l < lanes ? args.pos[d][i0 + l] : 0.0;
#pragma omp simd
        for (int l = 0; l < kL; ++l) {
            double s = x[l] / L;
            s -= std::floor(s);  // any image -> [0,1)
            const double u = s * K;
            const int b = static_cast<int>(u);
            f[l] = u - b;
            base[l] = b >= K ? b - K : b;  // s*K may round up to K
        }
        double w[P][kL], dw[P][kL];
#pragma omp simd
        for (int l = 0; l < kL; ++l) {
            w[0][l] = f[l];        // M_2(f)
            w[1][l] = 1.0 - f[l];  // M_2(f+1)
        }
        for (int n = 3; n <= P; ++n) {
            if (n == P)
                for (int j = 0; j < n; ++j)
#pragma omp simd
                    for (int l = 0; l < kL; ++l)
                        dw[j][l] = (j < n - 1 ? w[j][l] : 0.0) - (j > 0 ? w[j - 1][l] : 0.0);
            const double div = 1.0 / (n - 1);
            for (int j = n - 1; j >= 0; --j)
#pragma omp simd
                for (int l = 0; l < kL; ++l) {
                    const double a = j < n - 1 ? w[j][l] : 0.0;
                    const double b = j > 0 ? w[j - 1][l] : 0.0;
                    w[j][l] = div * ((f[l] + j) * a + (n - f[l] - j) * b);
                }
        }
        for (int l = 0; l < lanes; ++l) {
            AtomStencil& st = args.stencils[i0 + l];
            for (int j = 0; j < P; ++j) {
                st.th[d][j] = w[j][l];
                st.dth[d][j] = dw[j][l];
                int k = base[l] - j + K;
                if (k >= K) k -= K;
                st.idx[d][j] = k;
            }
        }
    }
}

template <int P>
void pme_spline_range_fixed(const PmeSplineArgs& args, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; i += kPmeSplineLanes) {
        const std::size_t left = end - i;
        pme_spline_lanes<P>(args, i, left < kPmeSplineLanes ? static_cast<int>(left) : kPmeSplineLanes);
    }
}

inline void pme_spline_range(const PmeSplineArgs& args, std::size_t begin, std::size_t end) {
    switch (args.order) {
        case 4: pme_spline_range_fixed<4>(args, begin, end); break;
        case 5: pme_spline_range_fixed<5>(args, begin, end); break;
        default: pme_spline_range_fixed<6>(args, begin, end); break;
    }
}

}  // namespace
}  // namespace mdcore
