// PME set-up choices that do not need a Pme object: the Ewald splitting parameter
// and FFT-friendly grid sizes for a spacing.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "pme/pme.h"
#include "util/format.h"

namespace mdcore {

namespace {

// 2,3,5,7-smooth sizes, plus 44 and 52: the two sizes of GROMACS' list (calcgrid.cpp)
// that are not, and FFTW transforms them faster than the next smooth ones (single-
// thread r2c + c2r, FFTW_MEASURE: 44^3 0.51 ms against 45^3 0.70; 52^3 1.06 against
// 54^3 1.28). Other 11- and 13-multiples were slower (39 against 40, 65 against 70).
bool fft_friendly(int n) {
    if (n == 44 || n == 52) return true;
    for (int f : {2, 3, 5, 7})
        while (n % f == 0) n /= f;
    return n == 1;
}

}  // namespace

double ewald_beta(double rc, double ewald_rtol) {
    if (!(rc > 0) || !(ewald_rtol > 0 && ewald_rtol < 1))
        throw std::invalid_argument("ewald_beta: need rc > 0 and 0 < ewald_rtol < 1");
    // Bracket by doubling, then bisect (GROMACS calc_ewaldcoeff_q).
    double beta = 5.0;
    int i = 0;
    do {
        ++i;
        beta *= 2.0;
    } while (std::erfc(beta * rc) > ewald_rtol);
    const int n = i + 60;
    double low = 0.0, high = beta;
    for (int k = 0; k < n; ++k) {
        beta = 0.5 * (low + high);
        if (std::erfc(beta * rc) > ewald_rtol)
            low = beta;
        else
            high = beta;
    }
    return beta;
}

int pme_grid_size(double length, double spacing, int order) {
    if (!(length > 0) || !(spacing > 0)) throw std::invalid_argument("pme_grid_size: need length > 0 and spacing > 0");
    // The tiny slack keeps e.g. 3.0/0.1 = 30.000000000000004 at 30 rather than 32.
    const double ratio = length / spacing;
    // Far beyond any grid that fits in memory; keeps the conversion to int defined.
    constexpr double kMaxPoints = 1 << 24;
    if (!(ratio <= kMaxPoints))
        throw std::invalid_argument("PME grid: a " + format_g(length) + " nm box edge at spacing " + format_g(spacing) +
                                    " nm needs " + format_g(ratio) + " points, above the limit of " +
                                    format_g(kMaxPoints));
    int n = static_cast<int>(std::ceil(ratio * (1.0 - 1e-12)));
    // Below 2*order a grid point would receive one atom's weight from two stencil
    // positions (the stencil spans order points).
    n = std::max({n, 2 * order, 1});
    while (!fft_friendly(n)) ++n;
    return n;
}

PmeGrid pme_grid_for_spacing(const Box& box, double spacing, int order) {
    PmeGrid g;
    g.nx = pme_grid_size(box.lengths[0], spacing, order);
    g.ny = pme_grid_size(box.lengths[1], spacing, order);
    g.nz = pme_grid_size(box.lengths[2], spacing, order);
    return g;
}

}  // namespace mdcore
