#include "bonded/bonded_force.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>

#include "bonded/bonded_reference.h"
#include "mdcore/units.h"

namespace mdcore {

namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kEps = std::numeric_limits<double>::epsilon();  // GMX_DOUBLE_EPS

// Relative cost of one interaction of each list (BondedForce::List order), from
// timing each kernel alone (acos and atan2 dominate); they only steer the split.
constexpr double kCost[BondedForce::kNumLists] = {1.0, 0.8, 5.0, 2.0, 5.5, 4.5, 4.5, 6.5, 4.0, 1.1, 15.0, 0.7};

struct V3 {
    double x, y, z;
};
inline V3 operator-(V3 a, V3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
inline V3 operator+(V3 a, V3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
inline V3 operator*(double s, V3 a) { return {s * a.x, s * a.y, s * a.z}; }
inline double dot(V3 a, V3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline V3 cross(V3 a, V3 b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }

// One part's view: its local positions and forces (xyz interleaved) and the box.
struct Ctx {
    const double* x;
    double* f;
    double l[3];
    double inv[3];  // 1 / l, 0 where not periodic (so the shift below is 0)

    V3 shortest(V3 d) const {
        d.x -= l[0] * std::nearbyint(d.x * inv[0]);
        d.y -= l[1] * std::nearbyint(d.y * inv[1]);
        d.z -= l[2] * std::nearbyint(d.z * inv[2]);
        return d;
    }
    V3 pos(int i) const { return {x[3 * i], x[3 * i + 1], x[3 * i + 2]}; }
    V3 dx(int i, int j) const { return shortest(pos(i) - pos(j)); }
    void add(int i, V3 v) const {
        double* p = f + 3 * i;
        p[0] += v.x;
        p[1] += v.y;
        p[2] += v.z;
    }
    void sub(int i, V3 v) const {
        double* p = f + 3 * i;
        p[0] -= v.x;
        p[1] -= v.y;
        p[2] -= v.z;
    }
};

// Harmonic bond; a zero-length one is skipped, energy included, as in GROMACS.
template <bool E>
inline void bond(const Ctx& c, int i, int j, double b0, double kb, double& e) {
    const V3 d = c.dx(i, j);
    const double r2 = dot(d, d);
    if (r2 == 0.0) return;
    const double r = std::sqrt(r2);
    const double dr = r - b0;
    const V3 fi = (-kb * dr / r) * d;
    c.add(i, fi);
    c.sub(j, fi);
    if constexpr (E) e += 0.5 * kb * dr * dr;
}

// Harmonic angle. 1 - cos^2 is kept at least eps (GROMACS' SIMD guard) so the
// force stays finite at 0 and 180 degrees; coincident atoms get no force.
template <bool E>
inline void angle(const Ctx& c, int i, int j, int k, double theta0, double kt, double& e) {
    const V3 rij = c.dx(i, j), rkj = c.dx(k, j);
    const double rij2 = dot(rij, rij), rkj2 = dot(rkj, rkj), ip = dot(rij, rkj);
    const double p = rij2 * rkj2;
    if (!(p > 0.0)) {
        if constexpr (E) e += 0.5 * kt * theta0 * theta0;  // theta = 0 then
        return;
    }
    const double inv = 1.0 / std::sqrt(p);
    const double cs = std::clamp(ip * inv, -1.0, 1.0);
    const double dtheta = std::acos(cs) - theta0;
    const double cos2 = std::min(ip * ip / p, 1.0 - kEps);
    const double st = kt * dtheta / std::sqrt(1.0 - cos2);
    const double cik = st * inv;
    const V3 fi = cik * rkj - (st * cs / rij2) * rij;
    const V3 fk = cik * rij - (st * cs / rkj2) * rkj;
    c.add(i, fi);
    c.add(k, fk);
    c.sub(j, fi + fk);
    if constexpr (E) e += 0.5 * kt * dtheta * dtheta;
}

struct Dih {
    V3 rij, rkj, rkl, m, n;
    double phi;
};

// GROMACS' dihedral: trans = 180 degrees, sign of rij . n; 0 for a collinear triple.
inline Dih dihedral(const Ctx& c, int i, int j, int k, int l) {
    Dih d{};
    d.rij = c.dx(i, j);
    d.rkj = c.dx(k, j);
    d.rkl = c.dx(k, l);
    d.m = cross(d.rij, d.rkj);
    d.n = cross(d.rkj, d.rkl);
    const V3 w = cross(d.m, d.n);
    const double phi = std::atan2(std::sqrt(dot(w, w)), dot(d.m, d.n));
    d.phi = dot(d.rij, d.n) < 0.0 ? -phi : phi;
    return d;
}

// Forces of dV/dphi; none when a triple is (nearly) collinear, as do_dih_fup.
inline void dihedral_forces(const Ctx& c, int i, int j, int k, int l, const Dih& d, double dvdphi) {
    const double mm = dot(d.m, d.m), nn = dot(d.n, d.n), rkj2 = dot(d.rkj, d.rkj);
    const double tol = rkj2 * kEps;
    if (!(mm > tol && nn > tol)) return;
    const double inv_rkj2 = 1.0 / rkj2;
    const double rkj = std::sqrt(rkj2);
    const V3 fi = (-dvdphi * rkj / mm) * d.m;
    const V3 fl = (dvdphi * rkj / nn) * d.n;
    const double p = dot(d.rij, d.rkj) * inv_rkj2;
    const double q = dot(d.rkl, d.rkj) * inv_rkj2;
    const V3 s = p * fi - q * fl;
    c.add(i, fi);
    c.sub(j, fi - s);
    c.sub(k, fl + s);
    c.add(l, fl);
}

// Periodic dihedrals; consecutive terms on the same atoms (type 9) share the
// geometry and one force spread, as GROMACS' pdihs. cos and sin of phi come from
// the plane normals (|m x n| = |rkj| |rij . n|), those of n phi by complex powers:
// the same values as GROMACS' atan2, sin and cos to rounding, at a fraction of the cost.
template <bool E>
void periodic_dihedrals(const Ctx& c, const BondedForce::Torsion* list, int begin, int end, double& e) {
    for (int t = begin; t < end;) {
        const auto& a = list[t].atoms;
        Dih d{};
        d.rij = c.dx(a[0], a[1]);
        d.rkj = c.dx(a[2], a[1]);
        d.rkl = c.dx(a[2], a[3]);
        d.m = cross(d.rij, d.rkj);
        d.n = cross(d.rkj, d.rkl);
        const double mn2 = dot(d.m, d.m) * dot(d.n, d.n);
        double cos_phi = 1.0, sin_phi = 0.0;  // phi = 0 for a collinear triple, as atan2(0, 0)
        if (mn2 > 0.0) {
            const double inv = 1.0 / std::sqrt(mn2);
            cos_phi = dot(d.m, d.n) * inv;
            sin_phi = std::sqrt(dot(d.rkj, d.rkj)) * dot(d.rij, d.n) * inv;
        }
        double dvdphi = 0.0;
        do {
            const BondedForce::Torsion& p = list[t];
            double cn = 1.0, sn = 0.0;  // cos and sin of n phi
            for (int k = 0; k < std::abs(p.multiplicity); ++k) {
                const double cc = cn * cos_phi - sn * sin_phi;
                sn = sn * cos_phi + cn * sin_phi;
                cn = cc;
            }
            if (p.multiplicity < 0) sn = -sn;
            const double sin_arg = sn * p.cos_phi0 - cn * p.sin_phi0;
            dvdphi -= p.k * p.multiplicity * sin_arg;
            if constexpr (E) e += p.k * (1.0 + cn * p.cos_phi0 + sn * p.sin_phi0);
            ++t;
        } while (t < end && list[t].atoms == a);
        dihedral_forces(c, a[0], a[1], a[2], a[3], d, dvdphi);
    }
}

template <bool E>
inline void improper(const Ctx& c, const HarmonicImproper& h, double& e) {
    const auto& a = h.atoms;
    const Dih d = dihedral(c, a[0], a[1], a[2], a[3]);
    double dp = d.phi - h.xi0;
    if (dp > kPi)
        dp -= 2.0 * kPi;
    else if (dp < -kPi)
        dp += 2.0 * kPi;
    dihedral_forces(c, a[0], a[1], a[2], a[3], d, h.k * dp);
    if constexpr (E) e += 0.5 * h.k * dp * dp;
}

// psi = phi -+ pi, so cos psi = -cos phi and sin psi = -sin phi: no trig calls.
template <bool E>
inline void ryckaert_bellemans(const Ctx& c, const RyckaertBellemans& rb, double& e) {
    const auto& a = rb.atoms;
    Dih d{};
    d.rij = c.dx(a[0], a[1]);
    d.rkj = c.dx(a[2], a[1]);
    d.rkl = c.dx(a[2], a[3]);
    d.m = cross(d.rij, d.rkj);
    d.n = cross(d.rkj, d.rkl);
    const double mn2 = dot(d.m, d.m) * dot(d.n, d.n);
    double cp = -1.0, sp = 0.0;  // phi = 0 for a collinear triple
    if (mn2 > 0.0) {
        const double inv = 1.0 / std::sqrt(mn2);
        cp = -dot(d.m, d.n) * inv;
        sp = -std::sqrt(dot(d.rkj, d.rkj)) * dot(d.rij, d.n) * inv;
    }
    const auto& k = rb.c;
    // V and dV/dcos by Horner
    const double dvdc = k[1] + cp * (2.0 * k[2] + cp * (3.0 * k[3] + cp * (4.0 * k[4] + cp * 5.0 * k[5])));
    dihedral_forces(c, a[0], a[1], a[2], a[3], d, -dvdc * sp);
    if constexpr (E) e += k[0] + cp * (k[1] + cp * (k[2] + cp * (k[3] + cp * (k[4] + cp * k[5]))));
}

template <bool E>
inline void pair14(const Ctx& c, const Pair14& p, double coulomb_factor, double& e_lj, double& e_coul) {
    const V3 d = c.dx(p.atoms[0], p.atoms[1]);
    const double rinv2 = 1.0 / dot(d, d);
    const double rinv = std::sqrt(rinv2);
    const double rinv6 = rinv2 * rinv2 * rinv2;
    const double vc = coulomb_factor * p.qq * rinv;
    const double fr = (12.0 * p.c12 * rinv6 * rinv6 - 6.0 * p.c6 * rinv6 + vc) * rinv2;
    const V3 fi = fr * d;
    c.add(p.atoms[0], fi);
    c.sub(p.atoms[1], fi);
    if constexpr (E) {
        e_lj += p.c12 * rinv6 * rinv6 - p.c6 * rinv6;
        e_coul += vc;
    }
}

// Grid coordinate of a dihedral, phi + pi in [0, 2 pi), as cmap_dihs.
inline double cmap_coordinate(double phi) {
    double x = phi + kPi;
    if (x < 0.0)
        x += 2.0 * kPi;
    else if (x >= 2.0 * kPi)
        x -= 2.0 * kPi;
    return x;
}

template <bool E>
inline void cmap(const Ctx& c, const CmapTorsion& t, int n, const double* coeff, double& e) {
    const auto& a = t.atoms;
    const Dih d1 = dihedral(c, a[0], a[1], a[2], a[3]);
    const Dih d2 = dihedral(c, a[1], a[2], a[3], a[4]);
    const double x1 = cmap_coordinate(d1.phi), x2 = cmap_coordinate(d2.phi);
    const double dx_rad = 2.0 * kPi / n;
    const int i1 = std::min(static_cast<int>(x1 / dx_rad), n - 1);
    const int i2 = std::min(static_cast<int>(x2 / dx_rad), n - 1);
    const double* tc = coeff + 16 * (i1 * n + i2);
    // Cell coordinates in degrees, as GROMACS (its rounding, too)
    const double dx_deg = 360.0 / n;
    constexpr double rad2deg = 180.0 / kPi;
    const double tt = (x1 * rad2deg - i1 * dx_deg) / dx_deg;
    const double tu = (x2 * rad2deg - i2 * dx_deg) / dx_deg;
    double v = 0.0, dv1 = 0.0, dv2 = 0.0;
    for (int i = 3; i >= 0; --i) {
        const double* r = tc + 4 * i;  // coefficients of t^i
        v = tt * v + ((r[3] * tu + r[2]) * tu + r[1]) * tu + r[0];
        dv1 = tu * dv1 + (3.0 * tc[12 + i] * tt + 2.0 * tc[8 + i]) * tt + tc[4 + i];
        dv2 = tt * dv2 + (3.0 * r[3] * tu + 2.0 * r[2]) * tu + r[1];
    }
    const double scale = rad2deg / dx_deg;
    dihedral_forces(c, a[0], a[1], a[2], a[3], d1, dv1 * scale);
    dihedral_forces(c, a[1], a[2], a[3], a[4], d2, dv2 * scale);
    if constexpr (E) e += v;
}

template <bool E>
inline void position_restraint(const Ctx& c, const PositionRestraint& r, double& e) {
    const int i = r.atom;
    const V3 d = c.shortest(c.pos(i) - V3{r.reference[0], r.reference[1], r.reference[2]});
    c.sub(i, V3{r.k[0] * d.x, r.k[1] * d.y, r.k[2] * d.z});
    if constexpr (E) e += 0.5 * (r.k[0] * d.x * d.x + r.k[1] * d.y * d.y + r.k[2] * d.z * d.z);
}

template <class T>
int key_of(const T& t) {
    return *std::min_element(t.atoms.begin(), t.atoms.end());
}
int key_of(const PositionRestraint& r) { return r.atom; }

template <class T, class F>
void for_atoms(T& t, F f) {
    for (auto& a : t.atoms) f(a);
}
template <class F>
void for_atoms(PositionRestraint& r, F f) {
    f(r.atom);
}
template <class F>
void for_atoms(const PositionRestraint& r, F f) {
    f(r.atom);
}

BondedForce::Torsion torsion(const PeriodicDihedral& d) {
    return {d.atoms, d.k, std::cos(d.phi0), std::sin(d.phi0), d.multiplicity};
}

}  // namespace

BondedForce::BondedForce(const BondedInteractions& terms, int num_threads)
    : num_threads_(std::max(1, num_threads)), coulomb_factor_(units::kCoulomb / terms.epsilon_r) {
    for (const auto& c : terms.cmap)
        if (c.grid < 0 || c.grid >= static_cast<int>(terms.cmap_grids.size()))
            throw std::invalid_argument("BondedForce: CMAP torsion names grid " + std::to_string(c.grid));
    for (const CmapGrid& g : terms.cmap_grids) {
        if (g.n < 2 || g.values.size() != static_cast<std::size_t>(g.n) * g.n)
            throw std::invalid_argument("BondedForce: CMAP grid of n = " + std::to_string(g.n) + " with " +
                                        std::to_string(g.values.size()) + " values");
        CmapTable table;
        table.n = g.n;
        table.coeff.resize(static_cast<std::size_t>(16) * g.n * g.n);
        const auto deriv = cmap_grid_derivatives(g);
        for (int i = 0; i < g.n; ++i)
            for (int j = 0; j < g.n; ++j) {
                const auto c = cmap_cell_coefficients(deriv, g.n, i, j);
                std::copy(c.begin(), c.end(), table.coeff.begin() + 16 * (i * g.n + j));
            }
        cmap_tables_.push_back(std::move(table));
    }

    bonds_ = terms.bonds;
    g96_bonds_ = terms.g96_bonds;
    angles_ = terms.angles;
    g96_angles_ = terms.g96_angles;
    urey_bradley_ = terms.urey_bradley;
    for (const auto& d : terms.proper_dihedrals) proper_.push_back(torsion(d));
    for (const auto& d : terms.periodic_impropers) periodic_impropers_.push_back(torsion(d));
    impropers_ = terms.impropers;
    rb_ = terms.rb_dihedrals;
    pairs_ = terms.pairs;
    cmap_ = terms.cmap;
    posres_ = terms.position_restraints;

    auto for_each_list = [&](auto f) {
        f(kBonds, bonds_);
        f(kG96Bonds, g96_bonds_);
        f(kAngles, angles_);
        f(kG96Angles, g96_angles_);
        f(kUreyBradley, urey_bradley_);
        f(kProper, proper_);
        f(kPeriodicImproper, periodic_impropers_);
        f(kImproper, impropers_);
        f(kRb, rb_);
        f(kPairs, pairs_);
        f(kCmap, cmap_);
        f(kPosres, posres_);
    };

    // Sorted by lowest atom (stable: type-9 terms on the same atoms stay adjacent).
    int natoms = 0;
    for_each_list([&](int, auto& v) {
        for (auto& t : v)
            for_atoms(t, [&](int a) {
                if (a < 0) throw std::invalid_argument("BondedForce: negative atom index");
                natoms = std::max(natoms, a + 1);
            });
        std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return key_of(a) < key_of(b); });
    });

    // Atom boundaries with equal estimated cost below each; every list cut there.
    const int np = num_threads_;
    std::vector<double> cost(natoms + 1, 0.0);
    double total = 0.0;
    for_each_list([&](int list, const auto& v) {
        for (const auto& t : v) cost[key_of(t)] += kCost[list];
        total += kCost[list] * static_cast<double>(v.size());
    });
    std::vector<int> cut(np + 1, natoms);
    cut[0] = 0;
    {
        double below = 0.0;
        int p = 1;
        for (int a = 0; a < natoms && p < np; ++a) {
            below += cost[a];
            while (p < np && below >= total * p / np) cut[p++] = a + 1;
        }
    }
    for_each_list([&](int list, const auto& v) {
        std::vector<int>& b = bounds_[list];
        b.assign(np + 1, static_cast<int>(v.size()));
        for (int p = 0; p < np; ++p)
            b[p] = static_cast<int>(
                std::partition_point(v.begin(), v.end(), [&](const auto& t) { return key_of(t) < cut[p]; }) -
                v.begin());
    });

    // Each part's local atoms; its interactions renumbered to them.
    parts_.resize(np);
    std::vector<int> local(natoms, -1), parts_of(natoms, 0);
    for (int p = 0; p < np; ++p) {
        Part& part = parts_[p];
        for_each_list([&](int list, auto& v) {
            for (int t = bounds_[list][p]; t < bounds_[list][p + 1]; ++t)
                for_atoms(v[t], [&](int a) { part.atoms.push_back(a); });
        });
        std::sort(part.atoms.begin(), part.atoms.end());
        part.atoms.erase(std::unique(part.atoms.begin(), part.atoms.end()), part.atoms.end());
        for (int l = 0; l < static_cast<int>(part.atoms.size()); ++l) {
            local[part.atoms[l]] = l;
            ++parts_of[part.atoms[l]];
        }
        for_each_list([&](int list, auto& v) {
            for (int t = bounds_[list][p]; t < bounds_[list][p + 1]; ++t)
                for_atoms(v[t], [&](int& a) { a = local[a]; });
        });
        part.slot = part.atoms;  // identity slots until set_slots()
        part.x.assign(3 * part.atoms.size(), 0.0);
        part.f.assign(3 * part.atoms.size(), 0.0);
    }
    // Atoms of several parts, each with its parts' local indices in part order.
    std::vector<int> shared_index(natoms, -1);
    for (int a = 0; a < natoms; ++a)
        if (parts_of[a] > 1) {
            shared_index[a] = static_cast<int>(shared_atom_.size());
            shared_atom_.push_back(a);
        }
    shared_begin_.assign(shared_atom_.size() + 1, 0);
    for (std::size_t k = 0; k < shared_atom_.size(); ++k)
        shared_begin_[k + 1] = shared_begin_[k] + parts_of[shared_atom_[k]];
    shared_refs_.resize(shared_begin_.back());
    std::vector<int> filled(shared_atom_.size(), 0);
    for (int p = 0; p < np; ++p) {
        Part& part = parts_[p];
        for (int l = 0; l < static_cast<int>(part.atoms.size()); ++l) {
            const int k = shared_index[part.atoms[l]];
            if (k < 0)
                part.own.push_back(l);
            else
                shared_refs_[shared_begin_[k] + filled[k]++] = {p, l};
        }
    }
    shared_slot_ = shared_atom_;
}

void BondedForce::set_slots(const std::vector<int>& slot_of) {
    auto slot = [&](int atom) {
        if (atom >= static_cast<int>(slot_of.size()) || slot_of[atom] < 0)
            throw std::invalid_argument("BondedForce: atom " + std::to_string(atom) + " has no slot");
        return slot_of[atom];
    };
    for (Part& part : parts_)
        for (std::size_t l = 0; l < part.atoms.size(); ++l) part.slot[l] = slot(part.atoms[l]);
    for (std::size_t k = 0; k < shared_atom_.size(); ++k) shared_slot_[k] = slot(shared_atom_[k]);
}

template <bool E>
void BondedForce::compute_part(int p, const double* x, const double* y, const double* z, const Box& box, float* fx,
                               float* fy, float* fz) {
    Part& part = parts_[p];
    const int n = static_cast<int>(part.atoms.size());
    const int* slot = part.slot.data();
    double* lx = part.x.data();
    for (int l = 0; l < n; ++l) {
        lx[3 * l] = x[slot[l]];
        lx[3 * l + 1] = y[slot[l]];
        lx[3 * l + 2] = z[slot[l]];
    }
    std::fill(part.f.begin(), part.f.end(), 0.0);
    Ctx c{lx, part.f.data(), {}, {}};
    for (int d = 0; d < 3; ++d) {
        c.l[d] = box.lengths[d];
        c.inv[d] = box.lengths[d] > 0.0 ? 1.0 / box.lengths[d] : 0.0;
    }
    BondedEnergies e;
    auto range = [&](List list) { return std::array<int, 2>{bounds_[list][p], bounds_[list][p + 1]}; };

    auto r = range(kBonds);
    for (int t = r[0]; t < r[1]; ++t) {
        const HarmonicBond& b = bonds_[t];
        bond<E>(c, b.atoms[0], b.atoms[1], b.b0, b.kb, e.bond);
    }
    r = range(kG96Bonds);
    for (int t = r[0]; t < r[1]; ++t) {
        const G96Bond& b = g96_bonds_[t];
        const V3 d = c.dx(b.atoms[0], b.atoms[1]);
        const double diff = dot(d, d) - b.b0 * b.b0;
        const V3 fi = (-b.kb * diff) * d;
        c.add(b.atoms[0], fi);
        c.sub(b.atoms[1], fi);
        if constexpr (E) e.g96_bond += 0.25 * b.kb * diff * diff;
    }
    r = range(kAngles);
    for (int t = r[0]; t < r[1]; ++t) {
        const HarmonicAngle& a = angles_[t];
        angle<E>(c, a.atoms[0], a.atoms[1], a.atoms[2], a.theta0, a.k, e.angle);
    }
    r = range(kG96Angles);
    for (int t = r[0]; t < r[1]; ++t) {
        const G96Angle& a = g96_angles_[t];
        const int i = a.atoms[0], j = a.atoms[1], k = a.atoms[2];
        const V3 rij = c.dx(i, j), rkj = c.dx(k, j);
        const double rij2 = dot(rij, rij), rkj2 = dot(rkj, rkj), p2 = rij2 * rkj2;
        const double inv = p2 > 0.0 ? 1.0 / std::sqrt(p2) : 0.0;
        const double cs = p2 > 0.0 ? std::clamp(dot(rij, rkj) * inv, -1.0, 1.0) : 1.0;
        const double diff = cs - a.cos_theta0;
        if (p2 > 0.0) {
            const double g = -a.k * diff;
            const V3 fi = g * (inv * rkj - (cs / rij2) * rij);
            const V3 fk = g * (inv * rij - (cs / rkj2) * rkj);
            c.add(i, fi);
            c.add(k, fk);
            c.sub(j, fi + fk);
        }
        if constexpr (E) e.g96_angle += 0.5 * a.k * diff * diff;
    }
    r = range(kUreyBradley);
    for (int t = r[0]; t < r[1]; ++t) {
        const UreyBradley& u = urey_bradley_[t];
        angle<E>(c, u.atoms[0], u.atoms[1], u.atoms[2], u.theta0, u.k_theta, e.urey_bradley);
        bond<E>(c, u.atoms[0], u.atoms[2], u.r13, u.k_ub, e.urey_bradley);
    }
    r = range(kProper);
    periodic_dihedrals<E>(c, proper_.data(), r[0], r[1], e.proper_dihedral);
    r = range(kPeriodicImproper);
    periodic_dihedrals<E>(c, periodic_impropers_.data(), r[0], r[1], e.periodic_improper);
    r = range(kImproper);
    for (int t = r[0]; t < r[1]; ++t) improper<E>(c, impropers_[t], e.improper);
    r = range(kRb);
    for (int t = r[0]; t < r[1]; ++t) ryckaert_bellemans<E>(c, rb_[t], e.rb);
    r = range(kPairs);
    for (int t = r[0]; t < r[1]; ++t) pair14<E>(c, pairs_[t], coulomb_factor_, e.lj14, e.coulomb14);
    r = range(kCmap);
    for (int t = r[0]; t < r[1]; ++t) {
        const CmapTable& table = cmap_tables_[cmap_[t].grid];
        cmap<E>(c, cmap_[t], table.n, table.coeff.data(), e.cmap);
    }
    r = range(kPosres);
    for (int t = r[0]; t < r[1]; ++t) position_restraint<E>(c, posres_[t], e.position_restraint);
    part.e = e;

    // Atoms only this part touches: their forces are complete.
    const double* lf = part.f.data();
    for (int l : part.own) {
        const int s = slot[l];
        fx[s] += static_cast<float>(lf[3 * l]);
        fy[s] += static_cast<float>(lf[3 * l + 1]);
        fz[s] += static_cast<float>(lf[3 * l + 2]);
    }
}

void BondedForce::reduce_shared(int t, int nt, float* fx, float* fy, float* fz) const {
    const int ns = static_cast<int>(shared_atom_.size());
    for (int k = ns * t / nt; k < ns * (t + 1) / nt; ++k) {
        double sum[3] = {0.0, 0.0, 0.0};
        for (int r = shared_begin_[k]; r < shared_begin_[k + 1]; ++r) {
            const double* v = parts_[shared_refs_[r].part].f.data() + 3 * shared_refs_[r].local;
            sum[0] += v[0];
            sum[1] += v[1];
            sum[2] += v[2];
        }
        const int s = shared_slot_[k];
        fx[s] += static_cast<float>(sum[0]);
        fy[s] += static_cast<float>(sum[1]);
        fz[s] += static_cast<float>(sum[2]);
    }
}

BondedEnergies BondedForce::compute(const double* x, const double* y, const double* z, const Box& box, float* fx,
                                    float* fy, float* fz, bool energies) {
    const int np = num_threads_;
#pragma omp parallel num_threads(np) if (np > 1)
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        // With fewer threads than parts (nested or limited OpenMP) a thread takes several.
        for (int p = t; p < np; p += nt) {
            if (energies)
                compute_part<true>(p, x, y, z, box, fx, fy, fz);
            else
                compute_part<false>(p, x, y, z, box, fx, fy, fz);
        }
#pragma omp barrier
        reduce_shared(t, nt, fx, fy, fz);
    }
    BondedEnergies e;
    if (energies)
        for (const Part& part : parts_) e += part.e;
    return e;
}

}  // namespace mdcore
