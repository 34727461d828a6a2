#pragma once
// Plain double-precision evaluation of the bonded interactions, one at a time,
// following GROMACS' listed-forces formulas and their degenerate-case guards.
// It is the yardstick the production path (bonded_force.h) is tested against.
#include <array>
#include <vector>

#include "mdcore/interactions.h"
#include "mdcore/system.h"

namespace mdcore {

// Positions in input order (nm); forces are ADDED into f (kJ mol^-1 nm^-1),
// which is grown to x.size() when shorter. Every displacement between atoms of
// an interaction is minimum-imaged; a zero box length means no periodicity there.
BondedEnergies compute_bonded_reference(const BondedInteractions& terms, const std::vector<Vec3>& x, const Box& box,
                                        std::vector<Vec3>& f);

// CMAP set-up as grompp does it (fillCmapGrids): per grid point {V, dV/dphi,
// dV/dpsi, d2V/dphi dpsi}, derivatives per degree, from 1D natural cubic
// splines over a grid doubled to 2n points. Index phi * n + psi. (grompp's layout
// assumes an even n: for an odd n it reads the grid half a cell shifted; mirrored.)
std::vector<std::array<double, 4>> cmap_grid_derivatives(const CmapGrid& grid);

// Bicubic coefficients c[i * 4 + j] (of t^i u^j, t along phi, u along psi, both
// in units of the grid spacing) of the cell whose lower corner is grid point
// (iphi, ipsi), from the derivatives above; the cell wraps at the grid's end.
std::array<double, 16> cmap_cell_coefficients(const std::vector<std::array<double, 4>>& derivatives, int n, int iphi,
                                              int ipsi);

}  // namespace mdcore
