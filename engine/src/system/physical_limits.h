#pragma once
// Sane ranges for per-atom and per-type inputs. Values outside them are typos or
// hostile input (an atom at 1e300 nm, epsilon 1e300) that would otherwise run to
// NaN energies; every reader and System::validate() check against these, so one
// table decides what is accepted. Each check returns an empty string when the
// value is fine, else a phrase naming the value and the limit.
#include <string>

#include "mdcore/system.h"

namespace mdcore::limits {

inline constexpr double kMinMass = 1e-3;            // amu (lighter than any atom by far)
inline constexpr double kMaxMass = 1e6;             // amu (a large coarse-grained bead)
inline constexpr double kMaxAbsCharge = 100.0;      // e
inline constexpr double kMaxSigma = 10.0;           // nm
inline constexpr double kMaxEpsilon = 1e4;          // kJ/mol (real ones are below 10)
inline constexpr double kMaxSpeed = 299792.458;     // nm/ps: the speed of light
inline constexpr double kMaxBoxEdge = 1e6;          // nm
inline constexpr double kMaxBoxLengthsOutside = 3;  // atoms within [-3 L, 4 L] per dimension

std::string mass_problem(double mass);
std::string charge_problem(double charge);
// sigma, epsilon, c6 and c12 of one type (all non-negative and finite, c6/c12
// bounded by what the largest sigma and epsilon give).
std::string lj_problem(const AtomType& type);
std::string box_problem(const Box& box);
std::string position_problem(const Vec3& x, const Box& box);
std::string velocity_problem(const Vec3& v);

}  // namespace mdcore::limits
