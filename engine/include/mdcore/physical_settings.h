#pragma once
// The physical settings of a system that are not tunable. System carries them and
// SystemSummary (and a rank's local System) copy them whole, so a new setting
// cannot be forgotten in one of the copies and the defaults are written once.

namespace mdcore {

// How LJ reaches zero at rc (GROMACS vdw-modifier), and the Coulomb method
// (GROMACS coulombtype); to_string / parse in run_config.h.
enum class VdwModifier { PotentialShift, ForceSwitch, PotentialSwitch };
enum class CoulombType { Pme, ReactionField };
// The long-range dispersion correction (GROMACS DispCorr): the energy (and the
// pressure) LJ dispersion would add beyond the cut-off and where the modifier
// changed it inside; the All forms correct the repulsion too.
enum class DispCorr { No, EnerPres, Ener, AllEnerPres, AllEner };

struct PhysicalSettings {
    double rc = 1.0;                 // nm, cut-off of the physics model
    double dt = 0.002;               // ps
    double temperature = 300.0;      // K, reference (thermostat, buffer estimate)
    double drift_tolerance = 0.005;  // kJ/mol/ps per atom
    double ewald_rtol = 1e-5;        // erfc(beta rc) target; Coulomb uses Ewald/PME when any charge != 0
    double epsilon_r = 1.0;
    VdwModifier vdw_modifier = VdwModifier::PotentialShift;
    double rvdw_switch = 0.0;        // nm, where force- or potential-switching starts
    CoulombType coulomb_type = CoulombType::Pme;  // with charges
    double epsilon_rf = 1.0;         // reaction field; 0 means infinity (conducting)
    DispCorr dispcorr = DispCorr::No;
    // LINCS (the .mdp's lincs-order, lincs-iter, lincs-warnangle; GROMACS' defaults).
    int lincs_order = 4, lincs_iter = 1;
    double lincs_warnangle = 30;  // degrees
};

}  // namespace mdcore
