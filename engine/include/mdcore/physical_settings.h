#pragma once
// The physical settings of a system that are not tunable. System carries them and
// SystemSummary (and a rank's local System) copy them whole, so a new setting
// cannot be forgotten in one of the copies and the defaults are written once.

namespace mdcore {

struct PhysicalSettings {
    double rc = 1.0;                 // nm, cut-off of the physics model
    double dt = 0.002;               // ps
    double temperature = 300.0;      // K, reference (thermostat, buffer estimate)
    double drift_tolerance = 0.005;  // kJ/mol/ps per atom
    double ewald_rtol = 1e-5;        // erfc(beta rc) target; Coulomb uses Ewald/PME when any charge != 0
    double epsilon_r = 1.0;
    // LINCS (the .mdp's lincs-order, lincs-iter, lincs-warnangle; GROMACS' defaults).
    int lincs_order = 4, lincs_iter = 1;
    double lincs_warnangle = 30;  // degrees
};

}  // namespace mdcore
