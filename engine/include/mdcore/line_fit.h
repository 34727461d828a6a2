#pragma once
// Least-squares line through a time series, with a standard error of the slope
// that accounts for correlated residuals. The conserved energy of an MD run
// fluctuates on picosecond time scales, so successive samples are not
// independent; the naive error would make a 0.5 ps run look as certain as a
// 50 ps one. An AR(1) model of the residuals (lag-1 autocorrelation rho)
// deflates the sample count to n (1 - rho) / (1 + rho).
#include <vector>

namespace mdcore {

struct LineFit {
    double slope = 0;
    double slope_stderr = 0;  // 0 when fewer than 3 samples
};

LineFit fit_line(const std::vector<double>& t, const std::vector<double>& y);

}  // namespace mdcore
