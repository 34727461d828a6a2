#include "nonbonded/reference_kernel.h"

#include <algorithm>
#include <cmath>

#include "mdcore/units.h"
#include "nonbonded/interaction_modifiers.h"

namespace mdcore {

namespace {

// The manual's force switch of alpha/r^(alpha+1) (A, B with alpha included):
//   F(r) = alpha/r^(alpha+1) + A (r-r1)^2 + B (r-r1)^3,
//   V(r) = 1/r^alpha - A/3 (r-r1)^3 - B/4 (r-r1)^4 - C.
PairEnergyForce force_switched_power(double r, double alpha, double r1, double rc) {
    const ForceSwitchTerms t = force_switch_terms(alpha, r1, rc);
    const double A = alpha * t.a, B = alpha * t.b;
    const double d = rc - r1;
    const double C = std::pow(rc, -alpha) - A / 3.0 * d * d * d - B / 4.0 * d * d * d * d;
    const double x = std::max(r - r1, 0.0);
    return {std::pow(r, -alpha) - A / 3.0 * x * x * x - B / 4.0 * x * x * x * x - C,
            alpha * std::pow(r, -(alpha + 1.0)) + A * x * x + B * x * x * x};
}

}  // namespace

PairEnergyForce reference_lj_pair(double r, double c6, double c12, const ReferenceInteraction& in) {
    const double rc = in.rc;
    switch (in.vdw) {
        case VdwModifier::PotentialShift: {
            const double v = c12 * (std::pow(r, -12.0) - std::pow(rc, -12.0)) - c6 * (std::pow(r, -6.0) - std::pow(rc, -6.0));
            return {v, 12.0 * c12 * std::pow(r, -13.0) - 6.0 * c6 * std::pow(r, -7.0)};
        }
        case VdwModifier::ForceSwitch: {
            const PairEnergyForce rep = force_switched_power(r, 12.0, in.rvdw_switch, rc);
            const PairEnergyForce disp = force_switched_power(r, 6.0, in.rvdw_switch, rc);
            return {c12 * rep.v - c6 * disp.v, c12 * rep.f - c6 * disp.f};
        }
        case VdwModifier::PotentialSwitch: {
            // S(t) = 1 - 10 t^3 + 15 t^4 - 6 t^5, t = (r - r1) / (rc - r1) where positive.
            const double w = rc - in.rvdw_switch;
            const double t = std::max(r - in.rvdw_switch, 0.0) / w;
            const double s = 1.0 - 10.0 * t * t * t + 15.0 * t * t * t * t - 6.0 * t * t * t * t * t;
            const double ds = (-30.0 * t * t + 60.0 * t * t * t - 30.0 * t * t * t * t) / w;
            const double v = c12 * std::pow(r, -12.0) - c6 * std::pow(r, -6.0);
            const double f = 12.0 * c12 * std::pow(r, -13.0) - 6.0 * c6 * std::pow(r, -7.0);
            return {v * s, f * s - v * ds};
        }
    }
    return {};
}

ReferenceResult reference_forces(const System& sys, const ReferenceInteraction& in) {
    using Coulomb = ReferenceInteraction::Coulomb;
    const std::size_t n = sys.natoms();
    ReferenceResult res;
    res.forces.assign(n, Vec3{0, 0, 0});
    res.force_abs.assign(n, 0.0);
    const double rc2 = in.rc * in.rc;
    const double f = units::kCoulomb / sys.epsilon_r;
    const double beta = in.ewald_beta;
    const double ewald_shift = in.coulomb == Coulomb::Ewald ? std::erfc(beta * in.rc) / in.rc : 0.0;
    const ReactionFieldTerms rf = reaction_field_terms(sys.epsilon_r, in.epsilon_rf, in.rc);
    bool charged = false;
    double q2 = 0.0;
    for (double q : sys.charge) {
        q2 += q * q;
        charged = charged || q != 0.0;
    }
    const bool coulomb = in.coulomb != Coulomb::None && charged;
    if (coulomb)
        res.coulomb_self = in.coulomb == Coulomb::Ewald ? -f * beta / std::sqrt(M_PI) * q2 : -0.5 * f * rf.c_rf * q2;
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = i + 1; j < n; ++j) {
            const bool excluded = !sys.exclusions.empty() && std::binary_search(sys.exclusions[i].begin(),
                                                                               sys.exclusions[i].end(), static_cast<int>(j));
            if (excluded && !coulomb) continue;
            Vec3 d;
            for (int k = 0; k < 3; ++k) {
                const double L = sys.box.lengths[k];
                d[k] = sys.positions[i][k] - sys.positions[j][k];
                d[k] -= L * std::round(d[k] / L);
            }
            const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            if (r2 >= rc2) continue;
            const double r = std::sqrt(r2);
            double force = 0.0;  // -dV/dr of the pair
            double force_abs = 0.0;  // of its LJ and Coulomb terms apart
            if (!excluded) {
                ++res.pairs_in_cutoff;
                const double c6 = sys.lj.c6_at(sys.type[i], sys.type[j]);
                const double c12 = sys.lj.c12_at(sys.type[i], sys.type[j]);
                const PairEnergyForce lj = reference_lj_pair(r, c6, c12, in);
                res.lj += lj.v;
                force += lj.f;
                force_abs += std::abs(lj.f);
                res.lj_abs += c12 * std::pow(r, -12.0) + c6 * std::pow(r, -6.0);
            }
            if (coulomb) {
                const double qq = f * sys.charge[i] * sys.charge[j];
                double v = 0.0, fc = 0.0;
                const double k = excluded ? 0.0 : 1.0;  // the 1/r term of interacting pairs only
                if (in.coulomb == Coulomb::Ewald) {
                    const double gauss = 2.0 * beta / std::sqrt(M_PI) * std::exp(-beta * beta * r2);
                    // Interacting: erfc(br)/r - shift; excluded: -erf(br)/r.
                    v = (k - std::erf(beta * r)) / r - k * ewald_shift;
                    fc = (k - std::erf(beta * r)) / r2 + gauss / r;
                } else {
                    v = k / r + rf.k_rf * r2 - rf.c_rf;
                    fc = k / r2 - 2.0 * rf.k_rf * r;
                }
                res.coulomb += qq * v;
                force += qq * fc;
                force_abs += std::abs(qq * fc);
            }
            for (int c = 0; c < 3; ++c) {
                res.forces[i][c] += force * d[c] / r;
                res.forces[j][c] -= force * d[c] / r;
            }
            res.force_abs[i] += force_abs;
            res.force_abs[j] += force_abs;
        }
    }
    return res;
}

ReferenceResult reference_lj_forces(const System& sys, double rc) {
    ReferenceInteraction in;
    in.rc = rc;
    return reference_forces(sys, in);
}

}  // namespace mdcore
