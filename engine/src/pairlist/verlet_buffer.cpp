// Verlet-buffer estimate after Páll & Hess, Comput. Phys. Commun. 184, 2641 (2013),
// following the algorithm of GROMACS' calc_verletbuf.cpp (own implementation).
//
// Model: over the lifetime t of a pair list every atom moves by a Gaussian
// displacement with per-dimension variance kB*T*t^2/m (free ballistic motion,
// which ignores interactions and therefore overestimates on long time scales).
// A pair that starts beyond rlist and ends inside rc is missing from the list;
// its energy error is the shifted potential at its final distance, expanded to
// third order around rc. Integrating that error over the Gaussian tail and the
// uniform pair density at the list surface gives the energy drift.
//
// Constrained atoms (water H) move as GROMACS models them: a rotation about the
// centre of mass of the atom and its heavier partner (2 DOF, variance bounded by
// the arm length) plus that centre's free motion, the 2-DOF distribution replaced
// by a shifted, scaled Gaussian that bounds it from above.
//
// Known simplifications with respect to GROMACS:
//  - No virtual-site mass handling.
//  - Uniform density (GROMACS can use an effective, locally weighted density).
//  - Only inertial dynamics (no Brownian-dynamics displacement model).
#include "pairlist/verlet_buffer.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

#include "mdcore/units.h"
#include "nonbonded/interaction_modifiers.h"

namespace mdcore {

namespace {

constexpr double kResolution = 0.001;  // nm, buffer resolution used by GROMACS

using PotDerivatives = PotentialDerivatives;

// Derivatives of -1/r^6 and 1/r^12 at rc (multiply by c6 and c12 respectively).
// Potential shifts leave them unchanged.
PotDerivatives lj_dispersion_derivatives(double rc) {
    PotDerivatives d;
    d.md1 = -6.0 * std::pow(rc, -7.0);
    d.d2 = 7.0 * d.md1 / rc;
    d.md3 = 8.0 * d.d2 / rc;
    return d;
}

PotDerivatives lj_repulsion_derivatives(double rc) {
    PotDerivatives d;
    d.md1 = 12.0 * std::pow(rc, -13.0);
    d.d2 = 13.0 * d.md1 / rc;
    d.md3 = 14.0 * d.d2 / rc;
    return d;
}

// Derivatives of elfac*erfc(beta r)/r at rc (multiply by qi*qj). Like GROMACS we keep
// only -V' and V'': the Taylor series is used to second order for Coulomb.
PotDerivatives ewald_derivatives(double beta, double rc, double elfac) {
    PotDerivatives d;
    if (beta <= 0.0) return d;
    const double br = beta * rc;
    const double gauss = std::exp(-br * br) * 2.0 / std::sqrt(std::numbers::pi);
    const double erfc_br = std::erfc(br);
    d.md1 = elfac * (beta * gauss / rc + erfc_br / (rc * rc));
    d.d2 = elfac / (rc * rc) * (2.0 * beta * (1.0 + br * br) * gauss + 2.0 * erfc_br / rc);
    return d;
}

// Of elfac (1/r + k_rf r^2 - c_rf); -V' vanishes for epsilon_rf = infinity.
PotDerivatives reaction_field_derivatives(double epsilon_r, double epsilon_rf, double rc, double elfac) {
    const double k_rf = reaction_field_terms(epsilon_r, epsilon_rf, rc).k_rf;
    PotDerivatives d;
    d.md1 = elfac * (1.0 / (rc * rc) - 2.0 * k_rf * rc);
    d.d2 = elfac * (2.0 / (rc * rc * rc) + 2.0 * k_rf);
    return d;
}

// With force- or potential-switch V, V' and V'' vanish at rc: only -V''' is
// left. Force switch: F'' of the switched force (GROMACS' verletbuf writes
// rc^(p+3) where rc^-(p+3) is meant and drops the factor p of the switch terms,
// a far larger value and buffer). Potential switch: -S''' V at rc, with
// S''' = -60 / (rc - r1)^3 there.
void switched_lj_derivatives(const VerletBufferParams& p, PotDerivatives& disp, PotDerivatives& rep) {
    disp = rep = PotDerivatives{};
    if (p.vdw_modifier == VdwModifier::ForceSwitch) {
        disp.md3 = -force_switch_md3(6.0, p.rvdw_switch, p.rc);
        rep.md3 = force_switch_md3(12.0, p.rvdw_switch, p.rc);
    } else {
        const double d = p.rc - p.rvdw_switch;
        const double md3_switch = 60.0 / (d * d * d);
        disp.md3 = -std::pow(p.rc, -6.0) * md3_switch;
        rep.md3 = std::pow(p.rc, -12.0) * md3_switch;
    }
}

// Energy error (energy * length; the line density is applied by the caller) of one
// atom pair whose relative radial displacement is Gaussian with variance s2, for a
// buffer r_buffer. It is the integral over all pairs that start beyond rlist of the
// Taylor-expanded potential at the depth w they penetrate inside rc:
//   md1*w + d2*w^2/2 + md3*w^3/6, integrated over start position and displacement,
// which yields the Gaussian tail moments below.
// A constrained atom's variance in two parts: the rotation about the pair's centre
// of mass (2 DOF) and the centre's motion (3 DOF). The rotational mean-square
// displacement over arm^2 saturates (it cannot exceed twice the arm); the rational
// form a Taylor expansion gives bounds it from above and is held constant past its
// maximum, as in GROMACS' constrained_atom_sigma2.
struct AtomSigma2 {
    double s2_2d = 0.0;  // rotation (0 when unconstrained)
    double s2_3d = 0.0;  // free or centre-of-mass motion
    bool constrained() const { return s2_2d > 0.0; }
    double total() const { return s2_2d + s2_3d; }
};

// Independent displacements of the two atoms: their variances add.
double pair_variance(const AtomSigma2& si, const AtomSigma2& sj) { return si.total() + sj.total(); }

AtomSigma2 atom_sigma2(double kt_fac, const BufferAtomClass& c) {
    AtomSigma2 s;
    const bool constrained = c.constraint_mass > 0.4 * c.mass && c.constraint_length > 0.0;
    if (!constrained) {
        s.s2_3d = kt_fac / c.mass;
        return s;
    }
    const double mass_fraction = c.constraint_mass / (c.mass + c.constraint_mass);
    const double s2_rot = kt_fac * mass_fraction / c.mass;  // arc length variance
    const double arm = c.constraint_length * mass_fraction;  // atom to the pair's centre
    constexpr double a = 1.0 / 3.0, b = 2.0 / 45.0;
    const double rel = std::min(s2_rot / (arm * arm), 1.0 / std::sqrt(b));
    s.s2_2d = arm * arm * rel / (1.0 + a * rel + b * rel * rel);
    s.s2_3d = kt_fac / (c.mass + c.constraint_mass);
    return s;
}

// The 2-DOF radial distribution sqrt(pi/2) erfc(r/(sqrt(2) s))/(2 s) bounded by
// scale * Gaussian(s, r + shift), matched in value and slope at x.
void two_dof_gaussian(double s2, double x, double& shift, double& scale) {
    const double ex = std::exp(-x * x / (2.0 * s2));
    const double er = std::erfc(x / std::sqrt(2.0 * s2));
    shift = -x + std::sqrt(2.0 * s2 / std::numbers::pi) * ex / er;
    scale = 0.5 * std::numbers::pi * std::exp(ex * ex / (std::numbers::pi * er * er)) * er;
}

double energy_drift_atom_pair(const AtomSigma2& si, const AtomSigma2& sj, double r_buffer, const PotDerivatives& der) {
    const double s2 = pair_variance(si, sj);
    if (s2 <= 0.0) return 0.0;
    const double s = std::sqrt(s2);
    double rb = r_buffer;
    double scale = 1.0;
    double c_exp = 0.0, c_erfc = 0.0;
    // Beyond erfc's argument 8 both tails are below 1e-29 (and the 2-DOF fit
    // would divide by an underflowed erfc): the pair contributes nothing.
    constexpr double kErfcArgMax = 8.0;
    if (rb * rb <= 2.0 * s2 * kErfcArgMax * kErfcArgMax) {
        for (const AtomSigma2* a : {&si, &sj}) {
            if (!a->constrained()) continue;
            double sh = 0.0, sc = 1.0;
            two_dof_gaussian(a->s2_2d, r_buffer * a->s2_2d / s2, sh, sc);
            rb += sh;
            scale *= sc;
        }
        c_exp = std::exp(-rb * rb / (2.0 * s2)) / std::sqrt(2.0 * std::numbers::pi);
        c_erfc = 0.5 * std::erfc(rb / std::sqrt(2.0 * s2));
    }
    const double rb2 = rb * rb;

    const double pot1 = der.md1 / 2.0 * ((rb2 + s2) * c_erfc - rb * s * c_exp);
    const double pot2 =
        der.d2 / 6.0 * (s * (rb2 + 2.0 * s2) * c_exp - rb * (rb2 + 3.0 * s2) * c_erfc);
    const double pot3 = der.md3 / 24.0 *
                        ((rb2 * rb2 + 6.0 * rb2 * s2 + 3.0 * s2 * s2) * c_erfc -
                         rb * s * (rb2 + 5.0 * s2) * c_exp);
    return scale * (pot1 + pot2 + pot3);
}

// Fraction of the atom pairs at distance rlist of a cluster pair that are not in the
// cluster pair list (GROMACS' surface_frac): the surface at distance rlist around a
// cluster of n atoms (HCP worst-case spacing, tetrahedron for n = 4) relative to n
// single-atom spheres. Clusters put extra pairs in the list, an implicit buffer.
double surface_frac(int cluster_size, double particle_distance, double rlist) {
    if (rlist < 0.5 * particle_distance) return 1.0;  // spheres do not overlap
    const double d = 0.5 * particle_distance / rlist;
    double area_rel = 1.0;
    int n = 1;
    if (cluster_size >= 4) {
        // Taylor expansion of the surface around a regular tetrahedron.
        const double d2 = d * d;
        area_rel = 1.0 + 1.0 / std::numbers::pi *
                             (6.0 * std::acos(1.0 / std::sqrt(3.0)) * d +
                              std::sqrt(3.0) * d2 *
                                  (1.0 + 5.0 / 18.0 * d2 + 7.0 / 45.0 * d2 * d2 +
                                   83.0 / 756.0 * d2 * d2 * d2));
        n = 4;
    } else if (cluster_size >= 2) {
        area_rel = 1.0 + d;  // two overlapping spheres
        n = 2;
    }
    // Sizes above 4 use the 4 formula and size 3 the 2 formula: both overestimate
    // the fraction, so the buffer stays conservative.
    return area_rel / n;
}

struct Prepared {
    PotDerivatives lj_disp;
    PotDerivatives lj_rep;
    PotDerivatives elec;  // per unit charge product
    double natoms = 0.0;
    double particle_distance = 0.0;
    double min_mass = 0.0;
};

Prepared prepare(const VerletBufferParams& p) {
    if (p.volume <= 0.0 || p.rc <= 0.0 || p.dt <= 0.0 || p.temperature < 0.0) {
        throw std::invalid_argument("verlet buffer: volume, rc and dt must be > 0, T >= 0");
    }
    const auto ntypes2 = static_cast<std::size_t>(p.num_lj_types) * p.num_lj_types;
    if (p.c6.size() != ntypes2 || p.c12.size() != ntypes2) {
        throw std::invalid_argument("verlet buffer: c6/c12 must have num_lj_types^2 entries");
    }
    Prepared prep;
    const CutoffDerivatives der = cutoff_derivatives(p);
    prep.lj_disp = der.dispersion;
    prep.lj_rep = der.repulsion;
    prep.elec = der.coulomb;
    for (const auto& c : p.classes) {
        if (c.lj_type < 0 || c.lj_type >= p.num_lj_types) {
            throw std::invalid_argument("verlet buffer: atom class has invalid lj_type");
        }
        prep.natoms += c.count;
        if (c.mass > 0.0 && c.count > 0.0) {
            prep.min_mass = prep.min_mass > 0.0 ? std::min(prep.min_mass, c.mass) : c.mass;
        }
    }
    if (prep.natoms > 0.0) {
        // Worst case (largest spacing) for the cluster geometry: HCP packing.
        prep.particle_distance = std::cbrt(p.volume * std::sqrt(2.0) / prep.natoms);
    }
    return prep;
}

// Drift per atom per ps. kt_fac = kB*T*t^2 (divide by mass for the variance).
double drift_for(const VerletBufferParams& p, const Prepared& prep, double kt_fac,
                 int list_lifetime_steps, double rlist) {
    if (kt_fac <= 0.0 || prep.natoms <= 0.0) return 0.0;
    const double r_buffer = rlist - p.rc;
    double drift_tot = 0.0;
    const auto& cls = p.classes;
    for (std::size_t i = 0; i < cls.size(); ++i) {
        // Massless particles (e.g. virtual sites) have no thermal displacement model here.
        if (cls[i].mass <= 0.0 || cls[i].count <= 0.0) continue;
        const AtomSigma2 si = atom_sigma2(kt_fac, cls[i]);
        for (std::size_t j = i; j < cls.size(); ++j) {
            if (cls[j].mass <= 0.0 || cls[j].count <= 0.0) continue;
            const AtomSigma2 sj = atom_sigma2(kt_fac, cls[j]);
            const double s2 = pair_variance(si, sj);

            const std::size_t tij =
                static_cast<std::size_t>(cls[i].lj_type) * p.num_lj_types + cls[j].lj_type;
            const double c6 = p.c6[tij];
            const double c12 = p.c12[tij];
            PotDerivatives der;
            der.md1 = c6 * prep.lj_disp.md1 + c12 * prep.lj_rep.md1;
            der.d2 = c6 * prep.lj_disp.d2 + c12 * prep.lj_rep.d2;
            der.md3 = c6 * prep.lj_disp.md3 + c12 * prep.lj_rep.md3;
            const double qq = cls[i].charge * cls[j].charge;
            der.md1 += qq * prep.elec.md1;
            der.d2 += qq * prep.elec.d2;

            double pot = energy_drift_atom_pair(si, sj, r_buffer, der);

            // Number of distinct atom pairs; a class with itself counts each pair once.
            if (j == i) {
                pot *= cls[i].count * (cls[i].count - 1.0) / 2.0;
            } else {
                pot *= cls[i].count * cls[j].count;
            }
            // Pair density at the list surface; GROMACS takes the effective mean r^2 of
            // the missed pairs as (rlist + sigma)^2 rather than rc^2.
            const double r_eff = rlist + std::sqrt(s2);
            pot *= 4.0 * std::numbers::pi * r_eff * r_eff / p.volume;

            // Sum magnitudes: do not rely on cancellation between class pairs.
            drift_tot += std::abs(pot);
        }
    }

    // Cluster pair lists contain extra pairs beyond rlist (implicit buffer).
    drift_tot *= surface_frac(std::min(p.cluster_i, 4), prep.particle_distance, rlist) *
                 surface_frac(std::min(p.cluster_j, 4), prep.particle_distance, rlist);

    // The displacement above is the one at the last step a list is used
    // (lifetime = nstlist - 1 steps after the build). Like GROMACS, that error is
    // charged once per list period of nstlist = lifetime + 1 steps; dividing by the
    // number of atoms gives kJ/mol/ps per atom.
    return drift_tot / ((list_lifetime_steps + 1) * p.dt * prep.natoms);
}

double kt_factor(const VerletBufferParams& p, int list_lifetime_steps) {
    const double t = list_lifetime_steps * p.dt;
    return units::kBoltzmann * p.temperature * t * t;
}

}  // namespace

CutoffDerivatives cutoff_derivatives(const VerletBufferParams& p) {
    CutoffDerivatives d;
    if (p.vdw_modifier == VdwModifier::PotentialShift) {
        d.dispersion = lj_dispersion_derivatives(p.rc);
        d.repulsion = lj_repulsion_derivatives(p.rc);
    } else {
        switched_lj_derivatives(p, d.dispersion, d.repulsion);
    }
    const double elfac = units::kCoulomb / p.epsilon_r;
    d.coulomb = p.coulomb_type == CoulombType::ReactionField
                    ? reaction_field_derivatives(p.epsilon_r, p.epsilon_rf, p.rc, elfac)
                    : ewald_derivatives(p.ewald_beta, p.rc, elfac);
    return d;
}

double estimate_verlet_drift(const VerletBufferParams& params, int list_lifetime_steps,
                             double rlist) {
    const Prepared prep = prepare(params);
    if (list_lifetime_steps <= 0) return 0.0;
    // A list shorter than the cut-off is outside the model; evaluate it at rc.
    rlist = std::max(rlist, params.rc);
    return drift_for(params, prep, kt_factor(params, list_lifetime_steps), list_lifetime_steps,
                     rlist);
}

double estimate_rlist(const VerletBufferParams& params, int list_lifetime_steps) {
    const Prepared prep = prepare(params);
    if (list_lifetime_steps <= 0 || prep.min_mass <= 0.0) return params.rc;
    const double kt_fac = kt_factor(params, list_lifetime_steps);
    if (kt_fac <= 0.0) return params.rc;

    auto drift_at = [&](long ib) {
        return drift_for(params, prep, kt_fac, list_lifetime_steps, params.rc + ib * kResolution);
    };

    // Upper bound: GROMACS' 5 * 2*sqrt(kT t^2/m_min), where the drift is negligible.
    // Grow it if a very strict tolerance still is not met there, so the result
    // always satisfies the tolerance.
    long ib1 = static_cast<long>(5.0 * 2.0 * std::sqrt(kt_fac / prep.min_mass) / kResolution) + 1;
    const long ib_max = static_cast<long>(100.0 / kResolution);  // 100 nm: give up
    while (drift_at(ib1) > params.drift_tolerance && ib1 < ib_max) ib1 *= 2;

    // Bisection for the smallest buffer index with drift <= tolerance; the drift
    // decreases monotonically with the buffer (Gaussian tail beats the r^2 growth).
    long ib0 = -1;
    while (ib1 - ib0 > 1) {
        const long ib = (ib0 + ib1) / 2;
        if (drift_at(ib) > params.drift_tolerance) {
            ib0 = ib;
        } else {
            ib1 = ib;
        }
    }
    return params.rc + ib1 * kResolution;
}

}  // namespace mdcore
