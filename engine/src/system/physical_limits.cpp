#include "system/physical_limits.h"

#include <cmath>

#include "util/format.h"

namespace mdcore::limits {
namespace {

std::string out_of_range(const std::string& what, double v, double lo, double hi, const std::string& unit) {
    if (std::isfinite(v) && v >= lo && v <= hi) return {};
    return what + " " + format_g(v) + " " + unit + " is outside the accepted range [" + format_g(lo) + ", " +
           format_g(hi) + "] " + unit;
}

const char* const kAxis[3] = {"x", "y", "z"};

}  // namespace

std::string mass_problem(double mass) { return out_of_range("mass", mass, kMinMass, kMaxMass, "amu"); }

std::string charge_problem(double charge) { return out_of_range("charge", charge, -kMaxAbsCharge, kMaxAbsCharge, "e"); }

std::string lj_problem(const AtomType& t) {
    const double max_c6 = 4.0 * kMaxEpsilon * std::pow(kMaxSigma, 6);
    const double max_c12 = 4.0 * kMaxEpsilon * std::pow(kMaxSigma, 12);
    for (const std::string& p : {out_of_range("LJ sigma", t.sigma, 0.0, kMaxSigma, "nm"),
                                 out_of_range("LJ epsilon", t.epsilon, 0.0, kMaxEpsilon, "kJ/mol"),
                                 out_of_range("LJ c6", t.c6, 0.0, max_c6, "kJ mol^-1 nm^6"),
                                 out_of_range("LJ c12", t.c12, 0.0, max_c12, "kJ mol^-1 nm^12")})
        if (!p.empty()) return p;
    return {};
}

std::string box_problem(const Box& box) {
    for (int d = 0; d < 3; ++d) {
        const double L = box.lengths[d];
        if (!(std::isfinite(L) && L > 0.0 && L <= kMaxBoxEdge))
            return std::string("box edge ") + kAxis[d] + " = " + format_g(L) + " nm is outside (0, " +
                   format_g(kMaxBoxEdge) + "] nm";
    }
    return {};
}

std::string position_problem(const Vec3& x, const Box& box) {
    for (int d = 0; d < 3; ++d) {
        const double L = box.lengths[d];
        const double lo = -kMaxBoxLengthsOutside * L, hi = (1.0 + kMaxBoxLengthsOutside) * L;
        if (!(std::isfinite(x[d]) && x[d] >= lo && x[d] <= hi))
            return std::string("coordinate ") + kAxis[d] + " = " + format_g(x[d]) + " nm is more than " +
                   format_g(kMaxBoxLengthsOutside) + " box lengths outside the box (accepted: [" + format_g(lo) + ", " + format_g(hi) +
                   "] nm)";
    }
    return {};
}

std::string velocity_problem(const Vec3& v) {
    const double speed = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (std::isfinite(speed) && speed <= kMaxSpeed) return {};
    return "speed " + format_g(speed) + " nm/ps is above the speed of light (" + format_g(kMaxSpeed) + " nm/ps)";
}

}  // namespace mdcore::limits
