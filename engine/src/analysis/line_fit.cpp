#include "mdcore/line_fit.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace mdcore {

LineFit fit_line(const std::vector<double>& t, const std::vector<double>& y) {
    LineFit fit;
    const std::size_t n = std::min(t.size(), y.size());
    if (n < 2) return fit;
    double mt = 0, my = 0;
    for (std::size_t i = 0; i < n; ++i) {
        mt += t[i];
        my += y[i];
    }
    mt /= double(n);
    my /= double(n);
    double sty = 0, stt = 0;
    for (std::size_t i = 0; i < n; ++i) {
        sty += (t[i] - mt) * (y[i] - my);
        stt += (t[i] - mt) * (t[i] - mt);
    }
    if (stt <= 0) return fit;
    fit.slope = sty / stt;
    if (n < 3) return fit;

    std::vector<double> r(n);
    double ss = 0;
    for (std::size_t i = 0; i < n; ++i) {
        r[i] = y[i] - my - fit.slope * (t[i] - mt);
        ss += r[i] * r[i];
    }
    double lag1 = 0;
    for (std::size_t i = 1; i < n; ++i) lag1 += r[i] * r[i - 1];
    // Only positive correlation inflates the error; cap rho so that a smooth
    // (e.g. oscillating) residual still leaves at least ~2 effective samples.
    const double rho = ss > 0 ? std::clamp(lag1 / ss, 0.0, 1.0 - 4.0 / double(n + 2)) : 0.0;
    const double inflation = (1.0 + rho) / (1.0 - rho);
    const double variance = ss / double(n - 2);
    fit.slope_stderr = std::sqrt(variance / stt * inflation);
    return fit;
}

}  // namespace mdcore
