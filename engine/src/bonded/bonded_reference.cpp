#include "bonded/bonded_reference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "mdcore/units.h"

namespace mdcore {

namespace {

constexpr double kPi = std::numbers::pi;
// GROMACS' GMX_DOUBLE_EPS, the tolerance of its angle and dihedral guards.
constexpr double kEps = std::numeric_limits<double>::epsilon();

Vec3 operator-(const Vec3& a, const Vec3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
Vec3 operator+(const Vec3& a, const Vec3& b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
Vec3 operator*(double s, const Vec3& a) { return {s * a[0], s * a[1], s * a[2]}; }
double dot(const Vec3& a, const Vec3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
Vec3 cross(const Vec3& a, const Vec3& b) {
    return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

class Evaluator {
public:
    Evaluator(const std::vector<Vec3>& x, const Box& box, std::vector<Vec3>& f) : x_(x), box_(box), f_(f) {}

    // x[i] - x[j], minimum image in the periodic dimensions.
    Vec3 dx(int i, int j) const {
        Vec3 d = x_[i] - x_[j];
        for (int k = 0; k < 3; ++k) {
            const double l = box_.lengths[k];
            if (l > 0.0) d[k] -= l * std::round(d[k] / l);
        }
        return d;
    }
    void add(int i, const Vec3& v) {
        for (int k = 0; k < 3; ++k) f_[i][k] += v[k];
    }

    // V = kb/2 (r - b0)^2 on the pair i-j; returns V.
    double harmonic_bond(int i, int j, double b0, double kb) {
        const Vec3 d = dx(i, j);
        const double r2 = dot(d, d);
        // GROMACS skips a bond of zero length entirely, energy included.
        if (r2 == 0.0) return 0.0;
        const double r = std::sqrt(r2);
        const double fr = -kb * (r - b0) / r;  // F_i = fr * d
        add(i, fr * d);
        add(j, -fr * d);
        return 0.5 * kb * (r - b0) * (r - b0);
    }

    double g96_bond(const G96Bond& b) {
        const Vec3 d = dx(b.atoms[0], b.atoms[1]);
        const double diff = dot(d, d) - b.b0 * b.b0;
        const double fr = -b.kb * diff;  // -dV/d(r^2) * 2
        add(b.atoms[0], fr * d);
        add(b.atoms[1], -fr * d);
        return 0.25 * b.kb * diff * diff;
    }

    // The angle i-j-k and the forces of dV/dtheta on it; returns theta.
    // At 0 or 180 degrees 1 - cos^2 is kept at least eps, as GROMACS' SIMD
    // kernel does, so the force stays finite (and tends to zero).
    double angle_theta(int i, int j, int k, Vec3& rij, Vec3& rkj, double& cos_theta) {
        rij = dx(i, j);
        rkj = dx(k, j);
        const double rij2 = dot(rij, rij), rkj2 = dot(rkj, rkj);
        const double p = rij2 * rkj2;
        cos_theta = p > 0.0 ? std::clamp(dot(rij, rkj) / std::sqrt(p), -1.0, 1.0) : 1.0;
        return std::acos(cos_theta);
    }
    void angle_force(int i, int j, int k, const Vec3& rij, const Vec3& rkj, double cos_theta, double dvdtheta) {
        const double rij2 = dot(rij, rij), rkj2 = dot(rkj, rkj);
        if (rij2 == 0.0 || rkj2 == 0.0) return;  // no defined direction
        const double ip = dot(rij, rkj);
        const double cos2 = std::min(ip * ip / (rij2 * rkj2), 1.0 - kEps);
        // F_i = -dV/dtheta dtheta/dx_i, dtheta/dx_i = -(rkj/(|rij||rkj|) - cos rij/|rij|^2) / sin
        const double st = dvdtheta / std::sqrt(1.0 - cos2);
        const double cik = st / std::sqrt(rij2 * rkj2);
        const Vec3 fi = cik * rkj - (st * cos_theta / rij2) * rij;
        const Vec3 fk = cik * rij - (st * cos_theta / rkj2) * rkj;
        add(i, fi);
        add(k, fk);
        add(j, -1.0 * (fi + fk));
    }

    double harmonic_angle(int i, int j, int k, double theta0, double kt) {
        Vec3 rij, rkj;
        double c;
        const double theta = angle_theta(i, j, k, rij, rkj, c);
        angle_force(i, j, k, rij, rkj, c, kt * (theta - theta0));
        return 0.5 * kt * (theta - theta0) * (theta - theta0);
    }

    double g96_angle(const G96Angle& a) {
        const int i = a.atoms[0], j = a.atoms[1], k = a.atoms[2];
        Vec3 rij, rkj;
        double c;
        angle_theta(i, j, k, rij, rkj, c);
        const double rij2 = dot(rij, rij), rkj2 = dot(rkj, rkj);
        const double diff = c - a.cos_theta0;
        if (rij2 > 0.0 && rkj2 > 0.0) {
            // F_i = -k (c - c0) dc/dx_i, dc/dx_i = rkj/(|rij||rkj|) - c rij/|rij|^2
            const double g = -a.k * diff;
            const double inv = 1.0 / std::sqrt(rij2 * rkj2);
            const Vec3 fi = g * (inv * rkj - (c / rij2) * rij);
            const Vec3 fk = g * (inv * rij - (c / rkj2) * rkj);
            add(i, fi);
            add(k, fk);
            add(j, -1.0 * (fi + fk));
        }
        return 0.5 * a.k * diff * diff;
    }

    // Dihedral i-j-k-l in GROMACS' (IUPAC) convention, trans = 180 degrees.
    struct Dihedral {
        Vec3 rij, rkj, rkl, m, n;
        double phi;
    };
    Dihedral dihedral(int i, int j, int k, int l) const {
        Dihedral d;
        d.rij = dx(i, j);
        d.rkj = dx(k, j);
        d.rkl = dx(k, l);
        d.m = cross(d.rij, d.rkj);
        d.n = cross(d.rkj, d.rkl);
        const Vec3 w = cross(d.m, d.n);
        // atan2(0, 0) = 0 for a collinear triple, as in GROMACS
        const double phi = std::atan2(std::sqrt(dot(w, w)), dot(d.m, d.n));
        d.phi = dot(d.rij, d.n) < 0.0 ? -phi : phi;
        return d;
    }
    // Forces of dV/dphi (Bekker's form, as GROMACS' do_dih_fup). Nothing when a
    // triple is (nearly) collinear: the plane normal, hence phi, is undefined.
    void dihedral_force(int i, int j, int k, int l, const Dihedral& d, double dvdphi) {
        const double mm = dot(d.m, d.m), nn = dot(d.n, d.n), rkj2 = dot(d.rkj, d.rkj);
        const double tol = rkj2 * kEps;
        if (!(mm > tol && nn > tol)) return;
        const double rkj = std::sqrt(rkj2);
        const Vec3 fi = (-dvdphi * rkj / mm) * d.m;
        const Vec3 fl = (dvdphi * rkj / nn) * d.n;
        const double p = dot(d.rij, d.rkj) / rkj2;
        const double q = dot(d.rkl, d.rkj) / rkj2;
        const Vec3 s = p * fi - q * fl;
        add(i, fi);
        add(j, -1.0 * (fi - s));
        add(k, -1.0 * (fl + s));
        add(l, fl);
    }

    double periodic_dihedral(const PeriodicDihedral& p) {
        const auto& a = p.atoms;
        const Dihedral d = dihedral(a[0], a[1], a[2], a[3]);
        const double arg = p.multiplicity * d.phi - p.phi0;
        dihedral_force(a[0], a[1], a[2], a[3], d, -p.k * p.multiplicity * std::sin(arg));
        return p.k * (1.0 + std::cos(arg));
    }

    double harmonic_improper(const HarmonicImproper& h) {
        const auto& a = h.atoms;
        const Dihedral d = dihedral(a[0], a[1], a[2], a[3]);
        double dp = d.phi - h.xi0;
        // One period shift into [-pi, pi], GROMACS' makePeriodic.
        if (dp > kPi)
            dp -= 2.0 * kPi;
        else if (dp < -kPi)
            dp += 2.0 * kPi;
        dihedral_force(a[0], a[1], a[2], a[3], d, h.k * dp);
        return 0.5 * h.k * dp * dp;
    }

    double ryckaert_bellemans(const RyckaertBellemans& rb) {
        const auto& a = rb.atoms;
        const Dihedral d = dihedral(a[0], a[1], a[2], a[3]);
        const double psi = d.phi < 0.0 ? d.phi + kPi : d.phi - kPi;
        // sin and cos of psi directly: 1 - cos^2 loses accuracy near 0 and pi.
        const double c = std::cos(psi), s = std::sin(psi);
        double v = 0.0, dvdc = 0.0, cn = 1.0;
        for (int n = 0; n < 6; ++n) {
            if (n > 0) dvdc += n * rb.c[n] * cn;  // cn = c^(n-1) here
            if (n > 0) cn *= c;
            v += rb.c[n] * cn;
        }
        dihedral_force(a[0], a[1], a[2], a[3], d, -dvdc * s);
        return v;
    }

    void pair14(const Pair14& p, double coulomb_factor, double& e_lj, double& e_coul) {
        const Vec3 d = dx(p.atoms[0], p.atoms[1]);
        const double r2 = dot(d, d);
        const double rinv2 = 1.0 / r2, rinv = std::sqrt(rinv2);
        const double rinv6 = rinv2 * rinv2 * rinv2;
        const double vlj = p.c12 * rinv6 * rinv6 - p.c6 * rinv6;
        const double vc = coulomb_factor * p.qq * rinv;
        // -dV/dr / r
        const double fr = (12.0 * p.c12 * rinv6 * rinv6 - 6.0 * p.c6 * rinv6 + vc) * rinv2;
        add(p.atoms[0], fr * d);
        add(p.atoms[1], -fr * d);
        e_lj += vlj;
        e_coul += vc;
    }

    double position_restraint(const PositionRestraint& r) {
        Vec3 d = x_[r.atom] - r.reference;
        for (int k = 0; k < 3; ++k) {
            const double l = box_.lengths[k];
            if (l > 0.0) d[k] -= l * std::round(d[k] / l);
        }
        double v = 0.0;
        for (int k = 0; k < 3; ++k) {
            v += 0.5 * r.k[k] * d[k] * d[k];
            f_[r.atom][k] -= r.k[k] * d[k];
        }
        return v;
    }

    double cmap(const CmapTorsion& c, const CmapGrid& grid, const std::vector<std::array<double, 4>>& deriv) {
        const auto& a = c.atoms;
        const Dihedral d1 = dihedral(a[0], a[1], a[2], a[3]);
        const Dihedral d2 = dihedral(a[1], a[2], a[3], a[4]);
        const int n = grid.n;
        // Grid coordinates in [0, 2 pi): phi + pi, as GROMACS' cmap_dihs.
        auto shifted = [](double phi) {
            double x = phi + kPi;
            if (x < 0.0)
                x += 2.0 * kPi;
            else if (x >= 2.0 * kPi)
                x -= 2.0 * kPi;
            return x;
        };
        const double x1 = shifted(d1.phi), x2 = shifted(d2.phi);
        const double dx_rad = 2.0 * kPi / n;
        // x / dx can round up to n just below 2 pi; the last cell covers it then.
        const int i1 = std::min(static_cast<int>(x1 / dx_rad), n - 1);
        const int i2 = std::min(static_cast<int>(x2 / dx_rad), n - 1);
        const std::array<double, 16> tc = cmap_cell_coefficients(deriv, n, i1, i2);
        const double dx_deg = 360.0 / n;
        const double rad2deg = 180.0 / kPi;
        const double t = (x1 * rad2deg - i1 * dx_deg) / dx_deg;
        const double u = (x2 * rad2deg - i2 * dx_deg) / dx_deg;
        double e = 0.0, dedt = 0.0, dedu = 0.0;
        for (int i = 0; i < 4; ++i) {
            for (int j = 0; j < 4; ++j) {
                const double cij = tc[i * 4 + j];
                e += cij * std::pow(t, i) * std::pow(u, j);
                if (i > 0) dedt += i * cij * std::pow(t, i - 1) * std::pow(u, j);
                if (j > 0) dedu += j * cij * std::pow(t, i) * std::pow(u, j - 1);
            }
        }
        // dE/dphi per radian: one grid step is dx_deg degrees.
        const double scale = rad2deg / dx_deg;
        dihedral_force(a[0], a[1], a[2], a[3], d1, dedt * scale);
        dihedral_force(a[1], a[2], a[3], a[4], d2, dedu * scale);
        return e;
    }

private:
    const std::vector<Vec3>& x_;
    const Box& box_;
    std::vector<Vec3>& f_;
};

// Natural cubic spline second derivatives of y on an even grid of spacing dx
// (grompp's spline1d; u is scratch of n).
void spline_second_derivatives(double dx, const double* y, int n, double* u, double* y2) {
    y2[0] = 0.0;
    u[0] = 0.0;
    for (int i = 1; i < n - 1; ++i) {
        const double p = 0.5 * y2[i - 1] + 2.0;
        y2[i] = -0.5 / p;
        const double q = (y[i + 1] - 2.0 * y[i] + y[i - 1]) / dx;
        u[i] = (3.0 * q / dx - 0.5 * u[i - 1]) / p;
    }
    y2[n - 1] = 0.0;
    for (int i = n - 2; i >= 0; --i) y2[i] = y2[i] * y2[i + 1] + u[i];
}

// The spline's value and slope at x (grompp's interpolate1d).
void spline_at(double xmin, double dx, const double* y, const double* y2, double x, double& v, double& slope) {
    const int ix = static_cast<int>((x - xmin) / dx);
    const double a = (xmin + (ix + 1) * dx - x) / dx;
    const double b = (x - xmin - ix * dx) / dx;
    v = a * y[ix] + b * y[ix + 1] + ((a * a * a - a) * y2[ix] + (b * b * b - b) * y2[ix + 1]) * (dx * dx) / 6.0;
    slope = (y[ix + 1] - y[ix]) / dx - (3.0 * a * a - 1.0) / 6.0 * dx * y2[ix] +
            (3.0 * b * b - 1.0) / 6.0 * dx * y2[ix + 1];
}

}  // namespace

std::vector<std::array<double, 4>> cmap_grid_derivatives(const CmapGrid& grid) {
    const int n = grid.n;
    const int n2 = 2 * n;
    const double dx = 360.0 / n;
    // The grid is laid out twice over [-360, 360) so the non-periodic natural
    // splines are far from their ends where they are read.
    const double xmin = -180.0 - dx * n / 2;
    std::vector<double> big(static_cast<std::size_t>(n2) * n2), big_y2(big.size());
    std::vector<double> u(n2), yy(n2), y1(n2), u2(n2);
    for (int i = 0; i < n2; ++i) {
        const int ii = (i + n - n / 2) % n;
        for (int j = 0; j < n2; ++j) big[i * n2 + j] = grid.values[ii * n + (j + n - n / 2) % n];
    }
    for (int i = 0; i < n2; ++i) spline_second_derivatives(dx, &big[i * n2], n2, u.data(), &big_y2[i * n2]);

    std::vector<std::array<double, 4>> out(static_cast<std::size_t>(n) * n);
    for (int ii = 0; ii < n; ++ii) {
        const double phi = ii * dx - 180.0;
        for (int jj = 0; jj < n; ++jj) {
            const double psi = jj * dx - 180.0;
            // Along psi in every row, then splines of those values and slopes along phi.
            for (int k = 0; k < n2; ++k) spline_at(xmin, dx, &big[k * n2], &big_y2[k * n2], psi, yy[k], y1[k]);
            double v, v1, v2, v12;
            spline_second_derivatives(dx, yy.data(), n2, u.data(), u2.data());
            spline_at(xmin, dx, yy.data(), u2.data(), phi, v, v1);
            spline_second_derivatives(dx, y1.data(), n2, u.data(), u2.data());
            spline_at(xmin, dx, y1.data(), u2.data(), phi, v2, v12);
            out[ii * n + jj] = {grid.values[ii * n + jj], v1, v2, v12};
        }
    }
    return out;
}

std::array<double, 16> cmap_cell_coefficients(const std::vector<std::array<double, 4>>& d, int n, int iphi,
                                              int ipsi) {
    const int ip1 = iphi + 1 == n ? 0 : iphi + 1;
    const int jp1 = ipsi + 1 == n ? 0 : ipsi + 1;
    const double h = 360.0 / n;  // derivatives per degree -> per cell
    const std::array<double, 4>& c00 = d[iphi * n + ipsi];
    const std::array<double, 4>& c10 = d[ip1 * n + ipsi];
    const std::array<double, 4>& c01 = d[iphi * n + jp1];
    const std::array<double, 4>& c11 = d[ip1 * n + jp1];
    // Bicubic Hermite: c = M F M^T with F rows {f(0,.), f(1,.), f_t(0,.), f_t(1,.)}
    // and columns {(.,0), (.,1), _u(.,0), _u(.,1)}.
    const double F[4][4] = {
        {c00[0], c01[0], c00[2] * h, c01[2] * h},
        {c10[0], c11[0], c10[2] * h, c11[2] * h},
        {c00[1] * h, c01[1] * h, c00[3] * h * h, c01[3] * h * h},
        {c10[1] * h, c11[1] * h, c10[3] * h * h, c11[3] * h * h},
    };
    static constexpr double M[4][4] = {{1, 0, 0, 0}, {0, 0, 1, 0}, {-3, 3, -2, -1}, {2, -2, 1, 1}};
    double MF[4][4] = {};
    for (int i = 0; i < 4; ++i)
        for (int k = 0; k < 4; ++k)
            for (int j = 0; j < 4; ++j) MF[i][j] += M[i][k] * F[k][j];
    std::array<double, 16> c{};
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
            for (int k = 0; k < 4; ++k) c[i * 4 + j] += MF[i][k] * M[j][k];
    return c;
}

BondedEnergies compute_bonded_reference(const BondedInteractions& terms, const std::vector<Vec3>& x, const Box& box,
                                        std::vector<Vec3>& f) {
    if (f.size() < x.size()) f.resize(x.size(), Vec3{0.0, 0.0, 0.0});
    Evaluator ev(x, box, f);
    BondedEnergies e;
    for (const auto& b : terms.bonds) e.bond += ev.harmonic_bond(b.atoms[0], b.atoms[1], b.b0, b.kb);
    for (const auto& b : terms.g96_bonds) e.g96_bond += ev.g96_bond(b);
    for (const auto& a : terms.angles) e.angle += ev.harmonic_angle(a.atoms[0], a.atoms[1], a.atoms[2], a.theta0, a.k);
    for (const auto& a : terms.g96_angles) e.g96_angle += ev.g96_angle(a);
    for (const auto& a : terms.urey_bradley) {
        e.urey_bradley += ev.harmonic_angle(a.atoms[0], a.atoms[1], a.atoms[2], a.theta0, a.k_theta);
        e.urey_bradley += ev.harmonic_bond(a.atoms[0], a.atoms[2], a.r13, a.k_ub);
    }
    for (const auto& d : terms.proper_dihedrals) e.proper_dihedral += ev.periodic_dihedral(d);
    for (const auto& d : terms.periodic_impropers) e.periodic_improper += ev.periodic_dihedral(d);
    for (const auto& d : terms.impropers) e.improper += ev.harmonic_improper(d);
    for (const auto& d : terms.rb_dihedrals) e.rb += ev.ryckaert_bellemans(d);
    const double coulomb_factor = units::kCoulomb / terms.epsilon_r;
    for (const auto& p : terms.pairs) ev.pair14(p, coulomb_factor, e.lj14, e.coulomb14);
    if (!terms.cmap.empty()) {
        std::vector<std::vector<std::array<double, 4>>> deriv;
        for (const auto& g : terms.cmap_grids) deriv.push_back(cmap_grid_derivatives(g));
        for (const auto& c : terms.cmap) e.cmap += ev.cmap(c, terms.cmap_grids[c.grid], deriv[c.grid]);
    }
    for (const auto& r : terms.position_restraints) e.position_restraint += ev.position_restraint(r);
    return e;
}

}  // namespace mdcore
