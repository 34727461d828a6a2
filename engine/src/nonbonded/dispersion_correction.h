#pragma once
// The long-range dispersion correction (GROMACS DispCorr; Allen & Tildesley's
// tail correction): the energy, and the pressure, that LJ would add beyond the
// cut-off and where the modifier changed it inside, for a uniform fluid (g(r) = 1)
// whose pairs all carry the system's mean c6 (and c12 with the All forms).
// Computed as GROMACS computes it, so "Disper. corr." and "Pres. DC (bar)"
// compare with its numbers.
#include "mdcore/physical_settings.h"
#include "mdcore/system.h"

namespace mdcore {

struct DispersionCorrectionValues {
    double energy = 0.0;    // kJ/mol, "Disper. corr."
    double pressure = 0.0;  // bar, "Pres. DC (bar)"; 0 unless the mode corrects the pressure
};

class DispersionCorrection {
public:
    DispersionCorrection() = default;  // DispCorr = no
    // The system's mode, modifier and rvdw-switch with the LJ cut-off `rc` the run
    // uses (which pme_scale may have moved from system.rc).
    DispersionCorrection(const System& system, double rc);

    bool enabled() const { return mode_ != DispCorr::No; }
    DispersionCorrectionValues at_volume(double volume) const;
    // Means over all atom pairs but the excluded ones (GROMACS' <C6> and <C12>).
    double mean_c6() const { return mean_c6_; }
    double mean_c12() const { return mean_c12_; }

    // For one r^-p term of unit coefficient (p 6: V = -r^-6, p 12: V = +r^-12)
    // modified as the run modifies it: the constant by which the modified form
    // lies below the true one at short range, the integral over space of true
    // minus modified, and the integral of r (d/dr)(true - modified).
    struct TermIntegrals {
        double shift = 0.0;   // kJ/mol per unit coefficient
        double energy = 0.0;  // 4 pi int r^2 (V - V_mod) dr, nm^3
        double virial = 0.0;  // 4 pi int r^3 (V - V_mod)' dr, nm^3
    };
    static TermIntegrals integrals(int power, VdwModifier modifier, double rvdw_switch, double rc);

private:
    DispCorr mode_ = DispCorr::No;
    double natoms_ = 0.0;
    double mean_c6_ = 0.0, mean_c12_ = 0.0;
    TermIntegrals dispersion_, repulsion_;
};

}  // namespace mdcore
