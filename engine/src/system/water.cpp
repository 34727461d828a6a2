#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

#include "integrate/leapfrog.h"
#include "integrate/settle.h"
#include "io/gromacs_io.h"
#include "mdcore/engine.h"
#include "mdcore/generators.h"
#include "pme/pme_workspace.h"
#include "mdcore/system_summary.h"
#include "mdcore/units.h"
#include "memory_estimate.h"

namespace mdcore {

// The equilibrated cell, embedded by CMake from engine/data/spce_1000_300K.gro.
extern const char* const kEquilibratedWaterCell;

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

}  // namespace

void assign_constrained_velocities(System& sys, double temperature, std::uint64_t seed) {
    assign_maxwell_boltzmann(sys, temperature, seed);
    if (sys.settles.empty()) return;
    const std::size_t n = sys.natoms();
    SortedState soa;  // atoms in input order
    soa.resize(n);
    for (std::size_t a = 0; a < n; ++a) soa.set_atom(a, sys.positions[a], sys.velocities[a], sys.mass[a]);
    std::vector<SettleTriple> triples;
    for (const Settle& s : sys.settles) {
        triples.push_back({s.o, s.h1, s.h2});
        // Minimum image of each H relative to its O for the velocity projection.
        for (int h : {s.h1, s.h2}) {
            double* c[3] = {&soa.x[h], &soa.y[h], &soa.z[h]};
            const double o[3] = {soa.x[s.o], soa.y[s.o], soa.z[s.o]};
            for (int d = 0; d < 3; ++d) *c[d] -= sys.box.lengths[d] * std::round((*c[d] - o[d]) / sys.box.lengths[d]);
        }
    }
    const Settle& s0 = sys.settles.front();
    SettleParameters p{sys.mass[s0.o], sys.mass[s0.h1], s0.d_oh, s0.d_hh};
    settle_velocities(p, triples, soa.x.data(), soa.y.data(), soa.z.data(), soa.vx.data(), soa.vy.data(),
                      soa.vz.data(), 1);
    const double k2 = twice_kinetic_energy(soa, 1);
    const double scale = k2 > 0 ? std::sqrt(sys.degrees_of_freedom() * units::kBoltzmann * temperature / k2) : 0.0;
    for (std::size_t a = 0; a < n; ++a) sys.velocities[a] = {soa.vx[a] * scale, soa.vy[a] * scale, soa.vz[a] * scale};
}

namespace {

struct Molecule {
    Vec3 o, h1, h2;  // h1, h2 at the image nearest o
};

Vec3 sub(const Vec3& a, const Vec3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
double dot(const Vec3& a, const Vec3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
Vec3 scaled(const Vec3& a, double s) { return {a[0] * s, a[1] * s, a[2] * s}; }
Vec3 normalized(const Vec3& a) { return scaled(a, 1.0 / std::sqrt(dot(a, a))); }

// The embedded cell's waters, with exact SPC/E geometry restored (the .gro keeps
// 0.001 nm, which would leave SETTLE's reference geometry off by ~1 %).
std::vector<Molecule> equilibrated_cell(double& edge) {
    static const GroFile gro = parse_gro_text(kEquilibratedWaterCell, "engine/data/spce_1000_300K.gro");
    edge = gro.box.lengths[0];
    std::vector<Molecule> mols;
    const double half_angle = std::asin(0.5 * kDhh / kDoh);
    for (std::size_t a = 0; a + 2 < gro.positions.size(); a += 3) {
        const Vec3 o = gro.positions[a];
        Vec3 d1 = sub(gro.positions[a + 1], o), d2 = sub(gro.positions[a + 2], o);
        for (int d = 0; d < 3; ++d) {
            d1[d] -= edge * std::round(d1[d] / edge);
            d2[d] -= edge * std::round(d2[d] / edge);
        }
        const Vec3 bisector = normalized({d1[0] + d2[0], d1[1] + d2[1], d1[2] + d2[2]});
        const Vec3 in_plane = normalized(sub(d1, scaled(bisector, dot(d1, bisector))));
        const double c = kDoh * std::cos(half_angle), s = kDoh * std::sin(half_angle);
        Molecule m;
        m.o = o;
        for (int d = 0; d < 3; ++d) {
            m.h1[d] = o[d] + c * bisector[d] + s * in_plane[d];
            m.h2[d] = o[d] + c * bisector[d] - s * in_plane[d];
        }
        mols.push_back(m);
    }
    return mols;
}

// Waters whose oxygen falls in [0, cut)^3 of the cell tiled periodically, after
// shifting the cell origin by `shift` (seed-dependent configurations).
std::vector<Molecule> tile(const std::vector<Molecule>& cell, double edge, double cut, const Vec3& shift) {
    const int k = static_cast<int>(std::ceil(cut / edge));
    std::vector<Molecule> out;
    for (int ix = 0; ix < k; ++ix)
        for (int iy = 0; iy < k; ++iy)
            for (int iz = 0; iz < k; ++iz)
                for (const Molecule& m : cell) {
                    Vec3 o;
                    for (int d = 0; d < 3; ++d) {
                        double w = m.o[d] + shift[d];
                        w -= edge * std::floor(w / edge);
                        o[d] = w + edge * (d == 0 ? ix : d == 1 ? iy : iz);
                    }
                    if (o[0] >= cut || o[1] >= cut || o[2] >= cut) continue;
                    const Vec3 delta = sub(o, m.o);
                    out.push_back({o, {m.h1[0] + delta[0], m.h1[1] + delta[1], m.h1[2] + delta[2]},
                                   {m.h2[0] + delta[0], m.h2[1] + delta[1], m.h2[2] + delta[2]}});
                }
    return out;
}

// Removes molecules whose oxygen is closer than min_oo to an earlier kept one
// (minimum image in a cubic box of edge `box`): tiles cut at arbitrary planes put
// unrelated molecules face to face across the periodic boundary.
std::vector<Molecule> remove_clashes(const std::vector<Molecule>& mols, double box, double min_oo) {
    const int nc = std::max(1, static_cast<int>(box / min_oo));
    const double cell = box / nc;
    std::vector<std::vector<int>> bins(static_cast<std::size_t>(nc) * nc * nc);
    auto bin_of = [&](const Vec3& p, int d) {
        double w = p[d] - box * std::floor(p[d] / box);
        return std::min(nc - 1, static_cast<int>(w / cell));
    };
    std::vector<Molecule> kept;
    for (const Molecule& m : mols) {
        const int bx = bin_of(m.o, 0), by = bin_of(m.o, 1), bz = bin_of(m.o, 2);
        bool clash = false;
        for (int dx = -1; dx <= 1 && !clash; ++dx)
            for (int dy = -1; dy <= 1 && !clash; ++dy)
                for (int dz = -1; dz <= 1 && !clash; ++dz) {
                    const int b = ((bx + dx + nc) % nc) + nc * (((by + dy + nc) % nc) + nc * ((bz + dz + nc) % nc));
                    for (int other : bins[b]) {
                        double r2 = 0;
                        for (int d = 0; d < 3; ++d) {
                            double v = m.o[d] - kept[other].o[d];
                            v -= box * std::round(v / box);
                            r2 += v * v;
                        }
                        if (r2 < min_oo * min_oo) {
                            clash = true;
                            break;
                        }
                    }
                }
        if (clash) continue;
        bins[bx + nc * (by + nc * bz)].push_back(static_cast<int>(kept.size()));
        kept.push_back(m);
    }
    return kept;
}

// Tiles the equilibrated cell and cuts a cube that holds at least nwater oxygens,
// dropping the surplus nearest the cut faces (where tiles meet unlike neighbours
// anyway). `cut` returns the cube's edge, `seams` whether it is not a whole number
// of cells (then contacts across the seams need relaxing).
std::vector<Molecule> cut_water_cube(long nwater, std::mt19937_64& rng, double& cut, bool& seams) {
    double edge = 0.0;
    const std::vector<Molecule> cell = equilibrated_cell(edge);
    std::uniform_real_distribution<double> uniform(0.0, edge);
    const Vec3 shift{uniform(rng), uniform(rng), uniform(rng)};
    const double cell_density = cell.size() / (edge * edge * edge);
    cut = std::cbrt(nwater / cell_density);
    // A whole number of cells tiles exactly: no seams, nothing to relax.
    const double whole = std::round(cut / edge);
    if (whole >= 1 && std::abs(cut - whole * edge) < 1e-6 * edge) cut = whole * edge;
    // O-O closer than 0.25 nm (the first peak of g(r) is at 0.28) marks a seam clash.
    constexpr double kMinOO = 0.25;
    std::vector<Molecule> mols = remove_clashes(tile(cell, edge, cut, shift), cut, kMinOO);
    while (static_cast<long>(mols.size()) < nwater) {
        cut *= 1.001;
        mols = remove_clashes(tile(cell, edge, cut, shift), cut, kMinOO);
    }
    if (static_cast<long>(mols.size()) > nwater) {
        const double c = cut;
        auto face_distance = [c](const Molecule& m) {
            double d = c;
            for (int k = 0; k < 3; ++k) d = std::min({d, m.o[k], c - m.o[k]});
            return d;
        };
        std::stable_sort(mols.begin(), mols.end(),
                         [&](const Molecule& a, const Molecule& b) { return face_distance(a) > face_distance(b); });
        mols.resize(static_cast<std::size_t>(nwater));
    }
    seams = std::abs(cut / edge - std::round(cut / edge)) > 1e-9;
    return mols;
}

enum class MoleculeRole { Water, Sodium, Chloride };

// Which molecules become ions: a seeded shuffle picks 2*npairs of them.
std::vector<MoleculeRole> pick_ion_roles(std::size_t nmol, long npairs, std::mt19937_64& rng) {
    std::vector<MoleculeRole> role(nmol, MoleculeRole::Water);
    std::vector<std::size_t> idx(nmol);
    for (std::size_t k = 0; k < idx.size(); ++k) idx[k] = k;
    std::shuffle(idx.begin(), idx.end(), rng);
    for (long k = 0; k < npairs; ++k) {
        role[idx[2 * k]] = MoleculeRole::Sodium;
        role[idx[2 * k + 1]] = MoleculeRole::Chloride;
    }
    return role;
}

// Appends the molecules' atoms, scaled from the cut cube to the box of edge
// `length` (molecules move rigidly), with SETTLE entries for the waters.
void append_molecules(System& sys, const std::vector<Molecule>& mols, const std::vector<MoleculeRole>& role,
                      double scale, double length) {
    int resnr = 0;
    for (std::size_t k = 0; k < mols.size(); ++k) {
        ++resnr;
        const Vec3 o = scaled(mols[k].o, scale);
        const Vec3 delta = sub(o, mols[k].o);
        auto add = [&](const Vec3& p, int type, double q, double m, const char* atom, const char* res) {
            Vec3 w = p;
            for (double& c : w) c -= length * std::floor(c / length);
            sys.positions.push_back(w);
            sys.type.push_back(type);
            sys.charge.push_back(q);
            sys.mass.push_back(m);
            sys.atom_name.push_back(atom);
            sys.residue_name.push_back(res);
            sys.residue_number.push_back(resnr);
        };
        if (role[k] == MoleculeRole::Sodium) {
            add(o, 2, 1.0, kMassNa, "NA", "NA");
            continue;
        }
        if (role[k] == MoleculeRole::Chloride) {
            add(o, 3, -1.0, kMassCl, "CL", "CL");
            continue;
        }
        const int io = static_cast<int>(sys.positions.size());
        add(o, 0, -0.8476, kMassO, "OW", "SOL");
        add({mols[k].h1[0] + delta[0], mols[k].h1[1] + delta[1], mols[k].h1[2] + delta[2]}, 1, 0.4238, kMassH, "HW1", "SOL");
        add({mols[k].h2[0] + delta[0], mols[k].h2[1] + delta[1], mols[k].h2[2] + delta[2]}, 1, 0.4238, kMassH, "HW2", "SOL");
        sys.settles.push_back({io, io + 1, io + 2, kDoh, kDhh});
    }
    sys.exclusions.assign(sys.positions.size(), {});
    for (const Settle& s : sys.settles) {
        sys.exclusions[s.o] = {s.h1, s.h2};
        sys.exclusions[s.h1] = {s.o, s.h2};
        sys.exclusions[s.h2] = {s.o, s.h1};
    }
    sys.removed_dof = 3 + 3 * static_cast<int>(sys.settles.size());
}

// Where tiles meet (and around new ions) a few contacts are strained: relax them
// with small steps and strong coupling, then restore the time step and fresh
// velocities.
void relax_strained_contacts(System& sys, const WaterSpec& spec) {
    const double dt = sys.dt;
    sys.dt = 0.0005;
    RunConfig cfg;
    cfg.threads = spec.threads;
    cfg.one_process = true;  // under mpirun every rank builds the same box
    RunControl control;
    control.steps = spec.relax_steps;
    control.thermostat = Thermostat::VRescale;
    control.tau_t = 0.01;
    control.seed = spec.seed + 1;
    control.nstcalcenergy = spec.relax_steps;
    // Every rank under mpirun builds this box and must get the same atoms, bit for
    // bit: no timed FFT plans (a 5.2 nm box's 44^3 grid got them, and runs differed
    // in the last bits), no timed thread split.
    control.thread_balance = false;
    const PmeEstimatedPlansScope reproducible_plans;
    run(sys, cfg, control);
    sys.dt = dt;
    assign_constrained_velocities(sys, spec.temperature, spec.seed + 2);
}

// The box and composition of a water spec: the generator and its summary share them.
struct WaterBox {
    double length = 0;
    long npairs = 0;  // NaCl pairs, each replacing two waters
    std::vector<AtomType> types;
};

WaterBox water_box(const WaterSpec& spec) {
    if (spec.nwater <= 0) throw std::invalid_argument("--nwater must be positive");
    if (!(spec.density > 0)) throw std::invalid_argument("--density must be positive");
    if (spec.nacl_molar < 0) throw std::invalid_argument("--nacl must not be negative");

    // Box from the water mass (ion pairs replace waters, so the count is fixed first).
    WaterBox b;
    const double water_mass = kMassO + 2 * kMassH;
    const double volume = spec.nwater * water_mass * units::kAmuPerNm3ToGPerCm3 / spec.density;  // nm^3
    b.length = std::cbrt(volume);
    b.npairs = std::lround(spec.nacl_molar * volume * 1e-24 * units::kAvogadro);
    if (2 * b.npairs >= spec.nwater) throw std::invalid_argument("--nacl is too high for --nwater");
    require_memory_for_atoms(3.0 * spec.nwater, Box{{b.length, b.length, b.length}}, spec.rc, true,
                             "a water box of " + std::to_string(spec.nwater) + " molecules");
    // Ion types only when ions exist: water alone keeps a geometric LJ matrix,
    // which the kernels evaluate without table gathers.
    b.types = {lj_type("OW", 0.316557, 0.650194), lj_type("HW", 0.0, 0.0)};
    if (b.npairs > 0) {
        b.types.push_back(lj_type("NA", 0.2159, 1.47545));
        b.types.push_back(lj_type("CL", 0.4830, 0.05349));
    }
    return b;
}

// Largest distance of a rigid water's atoms from their mean (the update group radius).
double water_group_radius() {
    const double h = std::sqrt(kDoh * kDoh - 0.25 * kDhh * kDhh);  // O to the H-H midpoint
    return std::max(2.0 * h / 3.0, std::sqrt(0.25 * kDhh * kDhh + h * h / 9.0));
}

}  // namespace

SystemSummary water_summary(const WaterSpec& spec) {
    const WaterBox b = water_box(spec);
    const long nw = spec.nwater - 2 * b.npairs;
    SystemSummary s;
    s.kind = b.npairs > 0 ? "water-ions" : "water";
    s.natoms = 3 * nw + 2 * b.npairs;
    s.box.lengths = {b.length, b.length, b.length};
    // In (mass, type, charge) order, as summarize() lists them.
    // H constrained to O, O to H, by SETTLE's O-H distance.
    s.classes = {{kMassH, 1, 0.4238, 2.0 * nw, kMassO, kDoh}, {kMassO, 0, -0.8476, 1.0 * nw, kMassH, kDoh}};
    if (b.npairs > 0) {
        s.classes.push_back({kMassNa, 2, 1.0, 1.0 * b.npairs});
        s.classes.push_back({kMassCl, 3, -1.0, 1.0 * b.npairs});
    }
    s.lj = make_lj_matrix(b.types, CombinationRule::LorentzBerthelot);
    s.settles = nw;
    s.topology = true;
    s.update_group_radius = water_group_radius();
    s.rc = spec.rc;
    s.dt = spec.dt;
    s.temperature = spec.temperature;
    return s;
}

System make_water_system(const WaterSpec& spec) {
    const WaterBox box = water_box(spec);
    const double length = box.length;
    const long npairs = box.npairs;

    std::mt19937_64 rng(spec.seed);
    double cut = 0.0;
    bool seams = false;
    const std::vector<Molecule> mols = cut_water_cube(spec.nwater, rng, cut, seams);

    System sys;
    sys.kind = npairs > 0 ? "water-ions" : "water";
    sys.box.lengths = {length, length, length};
    sys.atom_types = box.types;
    sys.lj = make_lj_matrix(sys.atom_types, CombinationRule::LorentzBerthelot);
    append_molecules(sys, mols, pick_ion_roles(mols.size(), npairs, rng), length / cut, length);
    sys.rc = spec.rc;
    sys.dt = spec.dt;
    sys.temperature = spec.temperature;
    assign_constrained_velocities(sys, spec.temperature, spec.seed);
    // A box of whole cells without ions needs no relaxation.
    if (spec.relax_steps > 0 && (seams || npairs > 0)) relax_strained_contacts(sys, spec);
    return sys;
}

}  // namespace mdcore
