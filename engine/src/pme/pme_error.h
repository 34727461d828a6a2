#pragma once
// A-priori estimates of the RMS Coulomb force error per atom of Ewald summation
// with smooth PME, for charges placed at random (uncorrelated positions):
//
//   real space   Kolafa & Perram, Mol. Simul. 9, 351 (1992):
//                dF = 2 sum q^2 exp(-beta^2 rc^2) / sqrt(N rc V)
//   mesh         the Hockney-Eastwood / Deserno-Holm error functional (Deserno & Holm,
//                J. Chem. Phys. 109, 7678 (1998)) evaluated for SPME: B-spline assignment
//                normalised by the Euler-spline moduli, the Ewald influence function and
//                analytical differentiation, plus the position-dependent self-force that
//                analytical differentiation leaves (Ballenegger, Cerda & Holm, J. Chem.
//                Theory Comput. 8, 936 (2012)). Details in pme_error.cpp.
//
// Both in kJ/mol/nm (kCoulomb / epsilon_r included); the total adds them in quadrature.
// Checked against the direct Ewald sum in tests/engine/test_pme_error.cpp (the mesh
// estimate was within 0.8-1.2x of the measured error over orders 4-6, spacings
// 0.08-0.3 nm and several beta).
#include <cstddef>
#include <vector>

#include "mdcore/system_summary.h"
#include "pme/pme.h"

namespace mdcore {

struct ChargeMoments {
    std::size_t n = 0;     // charged atoms
    double sum_q2 = 0;     // sum q^2, e^2
    double sum_q4 = 0;     // sum q^4, e^4
    double prefactor = 0;  // kCoulomb / epsilon_r
};
ChargeMoments charge_moments(const std::vector<double>& charge, double epsilon_r);
// The same from a summary's atom classes.
ChargeMoments charge_moments(const std::vector<AtomClass>& classes, double epsilon_r);

double ewald_real_force_error(const Box& box, double rc, double beta, const ChargeMoments& q);
double pme_recip_force_error(const Box& box, PmeGrid grid, int order, double beta, const ChargeMoments& q);

struct EwaldSettings {
    double rc = 0, beta = 0;
    PmeGrid grid;
    int order = 4;
};
// sqrt(real^2 + recip^2).
double ewald_force_error(const Box& box, const EwaldSettings& s, const ChargeMoments& q);

// The grid of a spacing without FFT-friendly rounding: ceil(L / spacing), at least
// 2*order. The accuracy target is defined on it, so it does not depend on which
// sizes FFTW likes.
PmeGrid pme_nominal_grid(const Box& box, double spacing, int order);

}  // namespace mdcore
