#pragma once
// A direct double-precision Ewald sum (real space, reciprocal space by explicit
// wave vectors, self, exclusion and net-charge terms): the oracle PME and the
// real-space kernels are tested against. O(N^2 + N kmax^3): small systems only.
#include <vector>

#include "mdcore/system.h"

namespace mdcore {

// Test oracle: the Ewald sum in double precision, evaluated directly.
struct EwaldDirectResult {
    double real = 0;     // sum over pairs (minimum image, |r| < rc_real) of qq erfc(beta r)/r, excluded pairs skipped
    double recip = 0;    // reciprocal-space sum over |k| vectors up to kmax per dimension
    double self = 0;     // -beta/sqrt(pi) sum q^2
    double excluded = 0; // -sum over excluded pairs qq erf(beta r)/r
    double charged = 0;  // -pi Q^2 / (2 V beta^2) neutralising background for net charge Q
    std::vector<Vec3> forces;  // total of all terms
    double total() const { return real + recip + self + excluded + charged; }
};
// All energies in kJ/mol (times 138.935458/epsilon_r). kmax: integer wave-vector
// cut-off per dimension (sum over -kmax..kmax, k != 0).
EwaldDirectResult ewald_direct(const System& system, double beta, double rc_real, int kmax);

}  // namespace mdcore
