#pragma once
// SETTLE (Miyamoto & Kollman, J. Comput. Chem. 13, 952 (1992)): analytic
// constraint solution for rigid 3-site molecules (water), on SoA coordinate arrays.
// settle_positions() is the plain one-molecule-at-a-time reference; the MD step
// uses the fused, vectorised leap-frog + SETTLE of settle_update.h, tested against it.
#include <vector>

namespace mdcore {

struct SettleParameters {
    double mass_o = 15.9994;
    double mass_h = 1.008;
    double d_oh = 0.1;       // nm
    double d_hh = 0.163299;  // nm
};

// Canonical-triangle geometry: O sits ra above the centre of mass on the
// bisector, the H atoms rb below it and rc to either side.
struct SettleGeometry {
    double m_o, m_h, inv_m_total;
    double ra, rb, rc;
};
// Throws std::invalid_argument for non-positive masses or an impossible triangle.
SettleGeometry settle_geometry(const SettleParameters& p);

// Indices into the SoA arrays (not necessarily input order).
struct SettleTriple {
    int o, h1, h2;
};

struct SettleArrays {
    // Reference positions at the start of the step (constraints satisfied).
    const double* xr;
    const double* yr;
    const double* zr;
    // Unconstrained new positions; corrected in place.
    double* x;
    double* y;
    double* z;
    // Velocities; corrected by (corrected - unconstrained) / dt when non-null.
    double* vx;
    double* vy;
    double* vz;
    // Periodic box edges (3), or null. When set, atoms are wrapped one by one and a
    // molecule may straddle the boundary: each H is taken at the periodic image
    // nearest its reference O, and written back in its own image.
    const double* box = nullptr;
};

// Corrects positions (and velocities) so every molecule satisfies its distances.
// Deterministic for a given thread count. Throws std::runtime_error naming the
// molecule when the geometry is unsolvable (a water moved too far in one step).
void settle_positions(const SettleParameters& p, const std::vector<SettleTriple>& molecules, const SettleArrays& a,
                      double dt, int num_threads);

// Removes the velocity components that would change the constrained distances
// (for initial velocities). x,y,z: constrained positions; v* corrected in place.
void settle_velocities(const SettleParameters& p, const std::vector<SettleTriple>& molecules, const double* x,
                       const double* y, const double* z, double* vx, double* vy, double* vz, int num_threads);

// Largest relative deviation |d - d0| / d0 over all constrained distances. box:
// the 3 edges, or null; when set, distances are taken between nearest images.
double settle_max_deviation(const SettleParameters& p, const std::vector<SettleTriple>& molecules, const double* x,
                            const double* y, const double* z, const double* box = nullptr);

}  // namespace mdcore
