#pragma once
// Constants of the LJ force- and potential-switch modifiers and of reaction-field
// electrostatics (GROMACS manual, "Modified non-bonded interactions" and
// "Reaction field"), in double precision: the kernels take float copies, the
// reference kernel and the Verlet-buffer estimate use them as they are.
#include <cmath>

namespace mdcore {

// Force switch of the r^-p term between r1 and rc, in the kernels' form with
// p absorbed (they hold 6 C6 and 12 C12), x = max(r - r1, 0):
//   F(r) / p = r^-(p+1) + a x^2 + b x^3
//   V(r)     = r^-p - p (a/3 x^3 + b/4 x^4) + cpot
// F, dF/dr and V are zero at rc, so the force is continuous and smooth there.
struct ForceSwitchTerms {
    double a = 0.0, b = 0.0, cpot = 0.0;
};

inline ForceSwitchTerms force_switch_terms(double p, double r1, double rc) {
    const double d = rc - r1;
    const double rc_p2 = std::pow(rc, p + 2.0);
    ForceSwitchTerms t;
    t.a = -((p + 4.0) * rc - (p + 1.0) * r1) / (rc_p2 * d * d);
    t.b = ((p + 3.0) * rc - (p + 1.0) * r1) / (rc_p2 * d * d * d);
    t.cpot = -std::pow(rc, -p) + p * (t.a / 3.0 * d * d * d + t.b / 4.0 * d * d * d * d);
    return t;
}

// -V'''(rc) of a force-switched r^-p (V'(rc) = V''(rc) = 0): what the Verlet
// buffer estimate keeps of it. F'' of the form above at rc.
inline double force_switch_md3(double p, double r1, double rc) {
    const ForceSwitchTerms t = force_switch_terms(p, r1, rc);
    return p * ((p + 1.0) * (p + 2.0) * std::pow(rc, -(p + 3.0)) + 2.0 * t.a + 6.0 * t.b * (rc - r1));
}

// Potential switch: V_sw = S(r) V(r), S = 1 + c3 x^3 + c4 x^4 + c5 x^5 with
// x = max(r - r1, 0); S is 1 at r1 and 0 at rc, S' and S'' vanish at both.
struct PotentialSwitchTerms {
    double c3 = 0.0, c4 = 0.0, c5 = 0.0;
};

inline PotentialSwitchTerms potential_switch_terms(double r1, double rc) {
    const double d = rc - r1;
    return {-10.0 / (d * d * d), 15.0 / (d * d * d * d), -6.0 / (d * d * d * d * d)};
}

// Reaction field with dielectric epsilon_rf beyond rc (0: infinity) in a medium
// of epsilon_r: V = f qq (1/r + k_rf r^2 - c_rf), zero at rc.
struct ReactionFieldTerms {
    double k_rf = 0.0, c_rf = 0.0;
};

inline ReactionFieldTerms reaction_field_terms(double epsilon_r, double epsilon_rf, double rc) {
    const double rc3 = rc * rc * rc;
    const double k = epsilon_rf == 0.0 ? 0.5 / rc3 : (epsilon_rf - epsilon_r) / ((2.0 * epsilon_rf + epsilon_r) * rc3);
    return {k, 1.0 / rc + k * rc * rc};
}

}  // namespace mdcore
