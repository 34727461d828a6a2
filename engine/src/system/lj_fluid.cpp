#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

#include "mdcore/generators.h"
#include "mdcore/system_summary.h"
#include "mdcore/units.h"
#include "memory_estimate.h"
#include "util/format.h"

namespace mdcore {

LjFluidSpec lj_spec() {
    LjFluidSpec s;
    s.temperature = 1.0 * s.epsilon / units::kBoltzmann;  // T* = 1
    s.natoms = 4000;
    return s;
}

LjFluidSpec argon_spec() {
    LjFluidSpec s;
    s.temperature = 94.4;
    // 1.374 g/cm^3 -> number density -> reduced density
    const double number_density = 1.374 / units::kAmuPerNm3ToGPerCm3 / s.mass;
    s.reduced_density = number_density * std::pow(s.sigma, 3);
    s.natoms = 4000;
    s.dt = 0.005;
    return s;
}

LjFluidSpec lammps_lj_spec() {
    LjFluidSpec s;
    const double tau = s.sigma * std::sqrt(s.mass / s.epsilon);
    s.reduced_density = 0.8442;
    s.temperature = 3.0 * s.epsilon / units::kBoltzmann;
    s.rc = 2.5 * s.sigma;
    s.dt = 0.005 * tau;
    s.natoms = 32000;
    return s;
}

void assign_maxwell_boltzmann(System& system, double temperature, std::uint64_t seed) {
    const std::size_t n = system.natoms();
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    system.velocities.assign(n, Vec3{0, 0, 0});
    Vec3 momentum{0, 0, 0};
    double total_mass = 0.0;
    for (std::size_t a = 0; a < n; ++a) {
        const double sd = std::sqrt(units::kBoltzmann * temperature / system.mass[a]);
        for (int d = 0; d < 3; ++d) {
            system.velocities[a][d] = sd * normal(rng);
            momentum[d] += system.mass[a] * system.velocities[a][d];
        }
        total_mass += system.mass[a];
    }
    double kinetic2 = 0.0;
    for (std::size_t a = 0; a < n; ++a)
        for (int d = 0; d < 3; ++d) {
            system.velocities[a][d] -= momentum[d] / total_mass;
            kinetic2 += system.mass[a] * system.velocities[a][d] * system.velocities[a][d];
        }
    const int dof = system.degrees_of_freedom();
    if (kinetic2 <= 0.0 || dof <= 0) return;
    const double scale = std::sqrt(dof * units::kBoltzmann * temperature / kinetic2);
    for (auto& v : system.velocities)
        for (double& c : v) c *= scale;
}

namespace {

// The atom count and box edge of an LJ spec: the generator and its summary share them.
struct LjBox {
    long natoms = 0;
    double length = 0;
};

LjBox lj_box(const LjFluidSpec& spec) {
    if (!(spec.sigma > 0 && spec.epsilon >= 0 && spec.mass > 0))
        throw std::invalid_argument("LJ parameters must be positive");
    if (!(spec.reduced_density > 0)) throw std::invalid_argument("--density must be positive");
    const double number_density = spec.reduced_density / std::pow(spec.sigma, 3);
    long natoms = 0;
    double length = 0.0;
    if (spec.natoms) {
        natoms = *spec.natoms;
        if (natoms <= 0) throw std::invalid_argument("--natoms must be positive");
        length = std::cbrt(natoms / number_density);
    } else if (spec.box_length) {
        length = *spec.box_length;
        if (!(length > 0)) throw std::invalid_argument("--box must be positive");
        const double count = number_density * length * length * length;
        if (!(count >= 0.5)) throw std::invalid_argument("--box is too small to hold an atom at this density");
        // Checked as a double first: the count of a huge box does not fit in a long.
        require_memory_for_atoms(count, Box{{length, length, length}}, spec.rc, false,
                                 "an LJ fluid in a " + format_g(length) + " nm box");
        natoms = std::lround(count);
    } else {
        throw std::invalid_argument("LJ fluid needs natoms or a box length");
    }
    require_memory_for_atoms(static_cast<double>(natoms), Box{{length, length, length}}, spec.rc, false,
                             "an LJ fluid of " + std::to_string(natoms) + " atoms");

    return {natoms, length};
}

AtomType lj_atom_type(const LjFluidSpec& spec) {
    AtomType t;
    t.name = "LJ";
    t.sigma = spec.sigma;
    t.epsilon = spec.epsilon;
    t.c6 = 4.0 * spec.epsilon * std::pow(spec.sigma, 6);
    t.c12 = 4.0 * spec.epsilon * std::pow(spec.sigma, 12);
    return t;
}

}  // namespace

SystemSummary lj_fluid_summary(const LjFluidSpec& spec, const char* kind) {
    const LjBox b = lj_box(spec);
    SystemSummary s;
    s.kind = kind;
    s.natoms = b.natoms;
    s.box.lengths = {b.length, b.length, b.length};
    s.classes = {{spec.mass, 0, 0.0, static_cast<double>(b.natoms)}};
    s.lj = make_lj_matrix({lj_atom_type(spec)}, CombinationRule::Geometric);
    s.rc = spec.rc;
    s.dt = spec.dt;
    s.temperature = spec.temperature;
    return s;
}

System make_lj_fluid(const LjFluidSpec& spec, const char* kind) {
    const auto [natoms, length] = lj_box(spec);
    System sys;
    sys.kind = kind;
    sys.box.lengths = {length, length, length};
    sys.atom_types = {lj_atom_type(spec)};
    sys.lj = make_lj_matrix(sys.atom_types, CombinationRule::Geometric);

    // Smallest fcc (4 sites per cell) or simple cubic lattice with >= natoms sites;
    // vacancies are spread evenly (every k-th site kept) so no void forms.
    const int per_cell = spec.fcc_lattice ? 4 : 1;
    long ncell = 1;
    while (per_cell * ncell * ncell * ncell < natoms) ++ncell;
    const long nsites = per_cell * ncell * ncell * ncell;
    const double a = length / ncell;
    static constexpr double basis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
    std::mt19937_64 rng(spec.seed ^ 0x9e3779b97f4a7c15ull);
    std::uniform_real_distribution<double> jitter(-spec.jitter, spec.jitter);
    sys.positions.reserve(natoms);
    for (long k = 0; k < natoms; ++k) {
        const long site = k * nsites / natoms;
        const long b = site % per_cell, cell = site / per_cell;
        const long ix = cell % ncell, iy = (cell / ncell) % ncell, iz = cell / (ncell * ncell);
        Vec3 p{(ix + basis[b][0] + 0.25) * a, (iy + basis[b][1] + 0.25) * a, (iz + basis[b][2] + 0.25) * a};
        for (double& c : p) {
            c += spec.jitter > 0 ? jitter(rng) : 0.0;
            c -= length * std::floor(c / length);
        }
        sys.positions.push_back(p);
    }
    sys.type.assign(natoms, 0);
    sys.charge.assign(natoms, 0.0);
    sys.mass.assign(natoms, spec.mass);
    sys.removed_dof = 3;
    sys.rc = spec.rc;
    sys.dt = spec.dt;
    sys.temperature = spec.temperature;
    assign_maxwell_boltzmann(sys, spec.temperature, spec.seed);
    return sys;
}

}  // namespace mdcore
