#include "nonbonded/dispersion_correction.h"

#include <cmath>
#include <numbers>
#include <vector>

#include "mdcore/units.h"
#include "nonbonded/reference_kernel.h"

namespace mdcore {

namespace {

// Simpson's rule on [a, b]; the integrands are smooth there (the modifiers are
// polynomials in r - r1 times powers of r), so 2048 panels leave rounding only.
template <class F>
double simpson(F&& f, double a, double b) {
    constexpr int kPanels = 2048;
    if (!(b > a)) return 0.0;
    const double h = (b - a) / kPanels;
    double sum = f(a) + f(b);
    for (int i = 1; i < kPanels; ++i) sum += (i % 2 ? 4.0 : 2.0) * f(a + i * h);
    return sum * h / 3.0;
}

bool corrects_repulsion(DispCorr m) { return m == DispCorr::AllEner || m == DispCorr::AllEnerPres; }
bool corrects_pressure(DispCorr m) { return m == DispCorr::EnerPres || m == DispCorr::AllEnerPres; }

}  // namespace

DispersionCorrection::TermIntegrals DispersionCorrection::integrals(int power, VdwModifier modifier,
                                                                    double rvdw_switch, double rc) {
    const double p = power;
    const double sign = power == 6 ? -1.0 : 1.0;  // dispersion attracts, repulsion repels
    ReferenceInteraction form;
    form.rc = rc;
    form.vdw = modifier;
    form.rvdw_switch = rvdw_switch;
    const double c6 = power == 6 ? 1.0 : 0.0, c12 = power == 6 ? 0.0 : 1.0;
    auto v = [&](double r) { return sign * std::pow(r, -p); };
    auto dv = [&](double r) { return -sign * p * std::pow(r, -p - 1.0); };
    // Below r0 the modified form differs from the true one by a constant: at the
    // cut-off for a potential shift, at the switch radius for the switches (zero
    // for the potential switch, which leaves the potential untouched there).
    const double r0 = modifier == VdwModifier::PotentialShift ? rc : rvdw_switch;
    const double four_pi = 4.0 * std::numbers::pi;
    TermIntegrals t;
    t.shift = v(r0) - reference_lj_pair(r0, c6, c12, form).v;
    const double tail_energy = sign * std::pow(rc, 3.0 - p) / (p - 3.0);   // int_rc^inf r^2 V
    const double tail_virial = -sign * p * std::pow(rc, 3.0 - p) / (p - 3.0);  // int_rc^inf r^3 V'
    t.energy = four_pi * (r0 * r0 * r0 * t.shift / 3.0 + tail_energy +
                          simpson([&](double r) { return r * r * (v(r) - reference_lj_pair(r, c6, c12, form).v); }, r0, rc));
    // The modified form's derivative is minus the force the reference returns.
    t.virial = four_pi * (tail_virial + simpson([&](double r) {
                              return r * r * r * (dv(r) + reference_lj_pair(r, c6, c12, form).f);
                          }, r0, rc));
    return t;
}

DispersionCorrection::DispersionCorrection(const System& system, double rc) : mode_(system.dispcorr) {
    if (mode_ == DispCorr::No) return;
    natoms_ = static_cast<double>(system.natoms());
    // Pairs by type counts (no N^2 loop), less the excluded pairs: a combination
    // that never interacts (a hydrogen without LJ bonded to its heavy atom) must
    // not move the mean.
    const int ntypes = system.lj.ntypes;
    std::vector<double> count(ntypes, 0.0);
    for (int t : system.type) count[t] += 1.0;
    double pairs = 0.0, sum6 = 0.0, sum12 = 0.0;
    for (int a = 0; a < ntypes; ++a)
        for (int b = a; b < ntypes; ++b) {
            const double n = a == b ? count[a] * (count[a] - 1.0) / 2.0 : count[a] * count[b];
            pairs += n;
            sum6 += n * system.lj.c6_at(a, b);
            sum12 += n * system.lj.c12_at(a, b);
        }
    for (std::size_t i = 0; i < system.exclusions.size(); ++i)
        for (int k : system.exclusions[i])
            if (static_cast<std::size_t>(k) > i) {
                pairs -= 1.0;
                sum6 -= system.lj.c6_at(system.type[i], system.type[k]);
                sum12 -= system.lj.c12_at(system.type[i], system.type[k]);
            }
    if (pairs > 0) {
        mean_c6_ = sum6 / pairs;
        mean_c12_ = sum12 / pairs;
    }
    dispersion_ = integrals(6, system.vdw_modifier, system.rvdw_switch, rc);
    repulsion_ = integrals(12, system.vdw_modifier, system.rvdw_switch, rc);
}

DispersionCorrectionValues DispersionCorrection::at_volume(double volume) const {
    DispersionCorrectionValues out;
    if (mode_ == DispCorr::No) return out;
    const double density = natoms_ / volume;
    // N/2 atoms' worth of pairs: each atom sees density x the integral, less
    // itself (the constant below r0 was integrated over its own position too).
    auto energy = [&](const TermIntegrals& t, double mean) { return 0.5 * natoms_ * mean * (density * t.energy - t.shift); };
    auto pressure = [&](const TermIntegrals& t, double mean) {
        return -density * density * mean * t.virial / 6.0 * units::kBarPerKjMolNm3;
    };
    out.energy = energy(dispersion_, mean_c6_);
    if (corrects_pressure(mode_)) out.pressure = pressure(dispersion_, mean_c6_);
    if (corrects_repulsion(mode_)) {
        out.energy += energy(repulsion_, mean_c12_);
        if (corrects_pressure(mode_)) out.pressure += pressure(repulsion_, mean_c12_);
    }
    return out;
}

}  // namespace mdcore
