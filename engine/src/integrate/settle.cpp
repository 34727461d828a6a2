#include "integrate/settle.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace mdcore {

namespace {

struct Vec3 {
    double x, y, z;
};

inline Vec3 operator+(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
inline Vec3 operator-(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
inline Vec3 operator*(double s, Vec3 a) { return {s * a.x, s * a.y, s * a.z}; }
inline double dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline Vec3 cross(Vec3 a, Vec3 b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
inline Vec3 normalized(Vec3 a) { return (1.0 / std::sqrt(dot(a, a))) * a; }

inline Vec3 load(const double* x, const double* y, const double* z, int i) { return {x[i], y[i], z[i]}; }
inline void store(double* x, double* y, double* z, int i, Vec3 v) {
    x[i] = v.x;
    y[i] = v.y;
    z[i] = v.z;
}

// One molecule. b0,c0: reference O->H1, O->H2; a1,b1,c1: unconstrained
// positions. Writes the constrained positions; false if there is no solution.
bool settle_one(const SettleGeometry& g, Vec3 b0, Vec3 c0, Vec3 a1, Vec3 b1, Vec3 c1, Vec3& a3, Vec3& b3, Vec3& c3) {
    const Vec3 com = g.inv_m_total * (g.m_o * a1 + g.m_h * (b1 + c1));
    const Vec3 a1d = a1 - com, b1d = b1 - com, c1d = c1 - com;

    // Frame: Z normal to the reference plane, X perpendicular to Z and to the
    // new O direction, so O has no X component (paper's canonical frame).
    const Vec3 ez = normalized(cross(b0, c0));
    Vec3 xdir = cross(a1d, ez);
    // O exactly on the normal through the centre of mass: any X in the plane will do.
    if (!(dot(xdir, xdir) > 1e-30 * dot(a1d, a1d))) xdir = b0;
    const Vec3 ex = normalized(xdir);
    const Vec3 ey = cross(ez, ex);

    const double xb0 = dot(ex, b0), yb0 = dot(ey, b0);
    const double xc0 = dot(ex, c0), yc0 = dot(ey, c0);
    const double za1 = dot(ez, a1d);
    const double xb1 = dot(ex, b1d), yb1 = dot(ey, b1d), zb1 = dot(ez, b1d);
    const double xc1 = dot(ex, c1d), yc1 = dot(ey, c1d), zc1 = dot(ez, c1d);

    // Tilt of the bisector out of the reference plane (phi) and about it (psi):
    // fixed by the out-of-plane coordinates, which the rotation about Z keeps.
    const double sinphi = za1 / g.ra;
    const double cos2phi = 1.0 - sinphi * sinphi;
    if (!(cos2phi > 0.0)) return false;
    const double cosphi = std::sqrt(cos2phi);
    const double sinpsi = (zb1 - zc1) / (2.0 * g.rc * cosphi);
    const double cos2psi = 1.0 - sinpsi * sinpsi;
    if (!(cos2psi > 0.0)) return false;
    const double cospsi = std::sqrt(cos2psi);

    const double ya2 = g.ra * cosphi;
    const double xb2 = -g.rc * cospsi;
    const double t1 = -g.rb * cosphi;
    const double t2 = g.rc * sinpsi * sinphi;
    const double yb2 = t1 - t2;
    const double yc2 = t1 + t2;

    // In-plane rotation theta: the displacements must be bond-directed
    // (no torque about the reference bonds), which gives
    // alpha sin + beta cos = gamma.
    const double alpha = xb2 * (xb0 - xc0) + yb0 * yb2 + yc0 * yc2;
    const double beta = xb2 * (yc0 - yb0) + xb0 * yb2 + xc0 * yc2;
    const double gamma = xb0 * yb1 - xb1 * yb0 + xc0 * yc1 - xc1 * yc0;
    const double al2be2 = alpha * alpha + beta * beta;
    const double disc = al2be2 - gamma * gamma;
    if (!(disc >= 0.0) || !(al2be2 > 0.0)) return false;
    const double sinthe = (alpha * gamma - beta * std::sqrt(disc)) / al2be2;
    const double cos2the = 1.0 - sinthe * sinthe;
    if (!(cos2the >= 0.0)) return false;
    const double costhe = std::sqrt(cos2the);

    const Vec3 a3d{-ya2 * sinthe, ya2 * costhe, za1};
    const Vec3 b3d{xb2 * costhe - yb2 * sinthe, xb2 * sinthe + yb2 * costhe, zb1};
    const Vec3 c3d{-xb2 * costhe - yc2 * sinthe, -xb2 * sinthe + yc2 * costhe, zc1};

    auto to_lab = [&](Vec3 v) { return com + v.x * ex + v.y * ey + v.z * ez; };
    a3 = to_lab(a3d);
    b3 = to_lab(b3d);
    c3 = to_lab(c3d);
    return std::isfinite(a3.x + a3.y + a3.z + b3.x + b3.y + b3.z + c3.x + c3.y + c3.z);
}

[[noreturn]] void throw_unsolvable(int molecule) {
    throw std::runtime_error("SETTLE: no solution for molecule " + std::to_string(molecule) +
                             " (it moved too far in one step)");
}

}  // namespace

SettleGeometry settle_geometry(const SettleParameters& p) {
    if (!(p.mass_o > 0.0 && p.mass_h > 0.0 && p.d_oh > 0.0 && p.d_hh > 0.0 && 2.0 * p.d_oh > p.d_hh)) {
        throw std::invalid_argument("SETTLE: invalid masses or distances (need d_hh < 2 d_oh)");
    }
    SettleGeometry g{};
    g.m_o = p.mass_o;
    g.m_h = p.mass_h;
    const double m_total = p.mass_o + 2.0 * p.mass_h;
    g.inv_m_total = 1.0 / m_total;
    g.rc = 0.5 * p.d_hh;
    const double height = std::sqrt(p.d_oh * p.d_oh - g.rc * g.rc);
    g.ra = 2.0 * p.mass_h * height / m_total;
    g.rb = height - g.ra;
    return g;
}

void settle_positions(const SettleParameters& p, const std::vector<SettleTriple>& molecules, const SettleArrays& a,
                      double dt, int num_threads) {
    const SettleGeometry g = settle_geometry(p);
    const int n = static_cast<int>(molecules.size());
    const bool fix_v = a.vx != nullptr && a.vy != nullptr && a.vz != nullptr;
    const double inv_dt = 1.0 / dt;
    // Exceptions cannot leave a parallel region: keep the lowest failing index
    // so the message does not depend on the thread count.
    int bad = INT_MAX;
#pragma omp parallel for schedule(static) num_threads(std::max(1, num_threads)) reduction(min : bad)
    for (int m = 0; m < n; ++m) {
        const SettleTriple t = molecules[m];
        const Vec3 o0 = load(a.xr, a.yr, a.zr, t.o);
        // Work relative to the reference oxygen: small numbers keep the
        // corrections (and the velocity update) accurate far from the origin.
        Vec3 b0 = load(a.xr, a.yr, a.zr, t.h1) - o0;
        Vec3 c0 = load(a.xr, a.yr, a.zr, t.h2) - o0;
        Vec3 shift_b{0, 0, 0}, shift_c{0, 0, 0};
        if (a.box) {
            auto image = [&](double v, int d) { return a.box[d] * std::round(v / a.box[d]); };
            shift_b = {image(b0.x, 0), image(b0.y, 1), image(b0.z, 2)};
            shift_c = {image(c0.x, 0), image(c0.y, 1), image(c0.z, 2)};
            b0 = b0 - shift_b;
            c0 = c0 - shift_c;
        }
        const Vec3 a1 = load(a.x, a.y, a.z, t.o) - o0;
        const Vec3 b1 = load(a.x, a.y, a.z, t.h1) - o0 - shift_b;
        const Vec3 c1 = load(a.x, a.y, a.z, t.h2) - o0 - shift_c;
        Vec3 a3, b3, c3;
        if (!settle_one(g, b0, c0, a1, b1, c1, a3, b3, c3)) {
            bad = std::min(bad, m);
            continue;
        }
        store(a.x, a.y, a.z, t.o, o0 + a3);
        store(a.x, a.y, a.z, t.h1, o0 + b3 + shift_b);
        store(a.x, a.y, a.z, t.h2, o0 + c3 + shift_c);
        if (fix_v) {
            store(a.vx, a.vy, a.vz, t.o, load(a.vx, a.vy, a.vz, t.o) + inv_dt * (a3 - a1));
            store(a.vx, a.vy, a.vz, t.h1, load(a.vx, a.vy, a.vz, t.h1) + inv_dt * (b3 - b1));
            store(a.vx, a.vy, a.vz, t.h2, load(a.vx, a.vy, a.vz, t.h2) + inv_dt * (c3 - c1));
        }
    }
    if (bad != INT_MAX) throw_unsolvable(bad);
}

void settle_velocities(const SettleParameters& p, const std::vector<SettleTriple>& molecules, const double* x,
                       const double* y, const double* z, double* vx, double* vy, double* vz, int num_threads) {
    const SettleGeometry g = settle_geometry(p);
    const double inv_m[3] = {1.0 / g.m_o, 1.0 / g.m_h, 1.0 / g.m_h};
    // Constraint k joins atoms (first[k], second[k]); impulse +lambda_k r_k on
    // the first atom and -lambda_k r_k on the second, so momentum is conserved.
    constexpr int first[3] = {0, 0, 1};
    constexpr int second[3] = {1, 2, 2};
    const int n = static_cast<int>(molecules.size());
    int bad = INT_MAX;
#pragma omp parallel for schedule(static) num_threads(std::max(1, num_threads)) reduction(min : bad)
    for (int m = 0; m < n; ++m) {
        const int idx[3] = {molecules[m].o, molecules[m].h1, molecules[m].h2};
        Vec3 r[3], v[3];
        for (int i = 0; i < 3; ++i) {
            r[i] = load(x, y, z, idx[i]);
            v[i] = load(vx, vy, vz, idx[i]);
        }
        Vec3 bond[3];
        double rhs[3];
        for (int k = 0; k < 3; ++k) {
            bond[k] = r[first[k]] - r[second[k]];
            rhs[k] = -dot(bond[k], v[first[k]] - v[second[k]]);
        }
        // A[k][l] = d(r_k . v_k)/d lambda_l.
        auto coupling = [&](int atom, int l) {
            return atom == first[l] ? inv_m[atom] : atom == second[l] ? -inv_m[atom] : 0.0;
        };
        double A[3][3];
        for (int k = 0; k < 3; ++k)
            for (int l = 0; l < 3; ++l)
                A[k][l] = dot(bond[k], bond[l]) * (coupling(first[k], l) - coupling(second[k], l));
        // Cramer's rule: the matrix is symmetric positive definite for a non-degenerate triangle.
        const double det = A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) -
                           A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
                           A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);
        if (!(std::abs(det) > 0.0) || !std::isfinite(det)) {
            bad = std::min(bad, m);
            continue;
        }
        double lambda[3];
        for (int c = 0; c < 3; ++c) {
            double M[3][3];
            for (int k = 0; k < 3; ++k)
                for (int l = 0; l < 3; ++l) M[k][l] = (l == c) ? rhs[k] : A[k][l];
            lambda[c] = (M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1]) -
                         M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0]) +
                         M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0])) /
                        det;
        }
        for (int k = 0; k < 3; ++k) {
            v[first[k]] = v[first[k]] + (lambda[k] * inv_m[first[k]]) * bond[k];
            v[second[k]] = v[second[k]] - (lambda[k] * inv_m[second[k]]) * bond[k];
        }
        for (int i = 0; i < 3; ++i) store(vx, vy, vz, idx[i], v[i]);
    }
    if (bad != INT_MAX) throw std::runtime_error("SETTLE: degenerate geometry for molecule " + std::to_string(bad));
}

double settle_max_deviation(const SettleParameters& p, const std::vector<SettleTriple>& molecules, const double* x,
                            const double* y, const double* z, const double* box) {
    auto nearest = [box](Vec3 v) {
        if (box == nullptr) return v;
        return Vec3{v.x - box[0] * std::round(v.x / box[0]), v.y - box[1] * std::round(v.y / box[1]),
                    v.z - box[2] * std::round(v.z / box[2])};
    };
    double worst = 0.0;
    for (const SettleTriple& t : molecules) {
        const Vec3 o = load(x, y, z, t.o), h1 = load(x, y, z, t.h1), h2 = load(x, y, z, t.h2);
        const Vec3 d[3] = {nearest(h1 - o), nearest(h2 - o), nearest(h2 - h1)};
        const double d0[3] = {p.d_oh, p.d_oh, p.d_hh};
        for (int k = 0; k < 3; ++k) {
            const double dev = std::abs(std::sqrt(dot(d[k], d[k])) - d0[k]) / d0[k];
            if (std::isnan(dev)) return dev;  // never hide a broken molecule
            worst = std::max(worst, dev);
        }
    }
    return worst;
}

}  // namespace mdcore
