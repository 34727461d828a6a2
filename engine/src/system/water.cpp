#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

#include "integrate/settle.h"
#include "mdcore/engine.h"
#include "mdcore/generators.h"
#include "mdcore/units.h"

namespace mdcore {
namespace {

constexpr double kMassO = 15.9994, kMassH = 1.008, kMassNa = 22.98977, kMassCl = 35.453;
constexpr double kDoh = 0.1, kDhh = 0.163299;

AtomType lj_type(const char* name, double sigma, double epsilon) {
    AtomType t;
    t.name = name;
    t.sigma = sigma;
    t.epsilon = epsilon;
    t.c6 = 4.0 * epsilon * std::pow(sigma, 6);
    t.c12 = 4.0 * epsilon * std::pow(sigma, 12);
    return t;
}

// Uniform random rotation matrix (Shoemake's quaternion method).
std::array<Vec3, 3> random_rotation(std::mt19937_64& rng) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const double u1 = u(rng), u2 = 2 * M_PI * u(rng), u3 = 2 * M_PI * u(rng);
    const double a = std::sqrt(1 - u1), b = std::sqrt(u1);
    const double w = a * std::sin(u2), x = a * std::cos(u2), y = b * std::sin(u3), z = b * std::cos(u3);
    return {Vec3{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
            Vec3{2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
            Vec3{2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
}

}  // namespace

void assign_constrained_velocities(System& sys, double temperature, std::uint64_t seed) {
    assign_maxwell_boltzmann(sys, temperature, seed);
    if (sys.settles.empty()) return;
    const std::size_t n = sys.natoms();
    std::vector<double> x(n), y(n), z(n), vx(n), vy(n), vz(n);
    for (std::size_t a = 0; a < n; ++a) {
        x[a] = sys.positions[a][0];
        y[a] = sys.positions[a][1];
        z[a] = sys.positions[a][2];
        vx[a] = sys.velocities[a][0];
        vy[a] = sys.velocities[a][1];
        vz[a] = sys.velocities[a][2];
    }
    std::vector<SettleTriple> triples;
    for (const Settle& s : sys.settles) {
        triples.push_back({s.o, s.h1, s.h2});
        // Minimum image of each H relative to its O for the velocity projection.
        for (int h : {s.h1, s.h2}) {
            double* c[3] = {&x[h], &y[h], &z[h]};
            const double o[3] = {x[s.o], y[s.o], z[s.o]};
            for (int d = 0; d < 3; ++d) *c[d] -= sys.box.lengths[d] * std::round((*c[d] - o[d]) / sys.box.lengths[d]);
        }
    }
    const Settle& s0 = sys.settles.front();
    SettleParameters p{sys.mass[s0.o], sys.mass[s0.h1], s0.d_oh, s0.d_hh};
    settle_velocities(p, triples, x.data(), y.data(), z.data(), vx.data(), vy.data(), vz.data(), 1);
    double k2 = 0.0;
    for (std::size_t a = 0; a < n; ++a) k2 += sys.mass[a] * (vx[a] * vx[a] + vy[a] * vy[a] + vz[a] * vz[a]);
    const double scale = k2 > 0 ? std::sqrt(sys.degrees_of_freedom() * units::kBoltzmann * temperature / k2) : 0.0;
    for (std::size_t a = 0; a < n; ++a) sys.velocities[a] = {vx[a] * scale, vy[a] * scale, vz[a] * scale};
}

System make_water_system(const WaterSpec& spec) {
    if (spec.nwater <= 0) throw std::invalid_argument("--nwater must be positive");
    if (!(spec.density > 0)) throw std::invalid_argument("--density must be positive");
    if (spec.nacl_molar < 0) throw std::invalid_argument("--nacl must not be negative");

    // Box from the water mass (ion pairs replace waters, so the count is fixed first).
    const double water_mass = kMassO + 2 * kMassH;
    const double volume = spec.nwater * water_mass * units::kAmuPerNm3ToGPerCm3 / spec.density;  // nm^3
    const double length = std::cbrt(volume);
    const long npairs = std::lround(spec.nacl_molar * volume * 1e-24 * units::kAvogadro);
    if (2 * npairs >= spec.nwater) throw std::invalid_argument("--nacl is too high for --nwater");
    const long nmol = spec.nwater;  // lattice sites; 2*npairs of them become ions

    System sys;
    sys.kind = npairs > 0 ? "water-ions" : "water";
    sys.box.lengths = {length, length, length};
    // Types: OW, HW (no LJ), Na, Cl.
    // Ion types only when ions exist: water alone keeps a geometric LJ matrix,
    // which the kernels evaluate without table gathers.
    sys.atom_types = {lj_type("OW", 0.316557, 0.650194), lj_type("HW", 0.0, 0.0)};
    if (npairs > 0) {
        sys.atom_types.push_back(lj_type("NA", 0.2159, 1.47545));
        sys.atom_types.push_back(lj_type("CL", 0.4830, 0.05349));
    }
    sys.lj = make_lj_matrix(sys.atom_types, CombinationRule::LorentzBerthelot);

    std::mt19937_64 rng(spec.seed);
    // Which sites become ions: a seeded shuffle picks 2*npairs sites.
    std::vector<int> role(nmol, 0);  // 0 water, 1 Na, 2 Cl
    {
        std::vector<long> idx(nmol);
        for (long k = 0; k < nmol; ++k) idx[k] = k;
        std::shuffle(idx.begin(), idx.end(), rng);
        for (long k = 0; k < npairs; ++k) {
            role[idx[2 * k]] = 1;
            role[idx[2 * k + 1]] = 2;
        }
    }
    long ncell = 1;
    while (ncell * ncell * ncell < nmol) ++ncell;
    const long nsites = ncell * ncell * ncell;
    const double a = length / ncell;
    const double half_angle = std::asin(0.5 * kDhh / kDoh);
    const Vec3 h_local[2] = {{kDoh * std::sin(half_angle), kDoh * std::cos(half_angle), 0.0},
                             {-kDoh * std::sin(half_angle), kDoh * std::cos(half_angle), 0.0}};
    int resnr = 0;
    for (long k = 0; k < nmol; ++k) {
        const long site = k * nsites / nmol;
        const Vec3 o{(site % ncell + 0.5) * a, ((site / ncell) % ncell + 0.5) * a, (site / (ncell * ncell) + 0.5) * a};
        ++resnr;
        auto add = [&](const Vec3& p, int type, double q, double m, const char* atom, const char* res) {
            sys.positions.push_back(p);
            sys.type.push_back(type);
            sys.charge.push_back(q);
            sys.mass.push_back(m);
            sys.atom_name.push_back(atom);
            sys.residue_name.push_back(res);
            sys.residue_number.push_back(resnr);
        };
        if (role[k] == 1) {
            add(o, 2, 1.0, kMassNa, "NA", "NA");
            continue;
        }
        if (role[k] == 2) {
            add(o, 3, -1.0, kMassCl, "CL", "CL");
            continue;
        }
        const auto rot = random_rotation(rng);
        const int io = static_cast<int>(sys.positions.size());
        add(o, 0, -0.8476, kMassO, "OW", "SOL");
        for (int h = 0; h < 2; ++h) {
            Vec3 p = o;
            for (int d = 0; d < 3; ++d)
                for (int e = 0; e < 3; ++e) p[d] += rot[d][e] * h_local[h][e];
            add(p, 1, 0.4238, kMassH, h == 0 ? "HW1" : "HW2", "SOL");
        }
        sys.settles.push_back({io, io + 1, io + 2, kDoh, kDhh});
    }
    const std::size_t n = sys.positions.size();
    sys.exclusions.assign(n, {});
    for (const Settle& s : sys.settles) {
        sys.exclusions[s.o] = {s.h1, s.h2};
        sys.exclusions[s.h1] = {s.o, s.h2};
        sys.exclusions[s.h2] = {s.o, s.h1};
    }
    for (auto& p : sys.positions)
        for (int d = 0; d < 3; ++d) p[d] -= length * std::floor(p[d] / length);
    sys.removed_dof = 3 + 3 * static_cast<int>(sys.settles.size());
    sys.rc = spec.rc;
    sys.dt = spec.dt;
    sys.temperature = spec.temperature;
    assign_constrained_velocities(sys, spec.temperature, spec.seed);

    if (spec.relax_steps > 0) {
        // Random orientations leave a few hot contacts: relax them with small steps
        // and strong coupling, then restore the requested time step and velocities.
        const double dt = sys.dt;
        sys.dt = 0.0005;
        RunConfig cfg;
        cfg.threads = spec.threads;
        RunControl control;
        control.steps = spec.relax_steps;
        control.thermostat = Thermostat::VRescale;
        control.tau_t = 0.01;
        control.seed = spec.seed + 1;
        control.nstcalcenergy = spec.relax_steps;
        run(sys, cfg, control);
        sys.dt = dt;
        assign_constrained_velocities(sys, spec.temperature, spec.seed + 2);
    }
    return sys;
}

}  // namespace mdcore
