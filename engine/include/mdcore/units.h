#pragma once
// Physical constants in GROMACS units (nm, ps, amu, kJ/mol, e, K).
namespace mdcore::units {
inline constexpr double kBoltzmann = 0.0083144626;   // kJ mol^-1 K^-1
inline constexpr double kCoulomb = 138.935458;       // kJ mol^-1 nm e^-2
inline constexpr double kAvogadro = 6.02214076e23;   // mol^-1
// amu / nm^3 -> g / cm^3
inline constexpr double kAmuPerNm3ToGPerCm3 = 1.66053906660e-3;
// kJ mol^-1 nm^-3 -> bar, rounded as GROMACS rounds it (PRESFAC), so pressures compare digit for digit
inline constexpr double kBarPerKjMolNm3 = 16.6054;
}  // namespace mdcore::units
