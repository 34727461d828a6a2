// SETTLE: analytic constraint solution for rigid water (positions and velocities).
#include "integrate/settle.h"
#include "integrate/settle_math.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace mdcore {
namespace {

using V3 = std::array<double, 3>;

V3 add(V3 a, V3 b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
V3 sub(V3 a, V3 b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
V3 scale(double s, V3 a) { return {s * a[0], s * a[1], s * a[2]}; }
double dot(V3 a, V3 b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
V3 cross(V3 a, V3 b) { return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]}; }
double norm(V3 a) { return std::sqrt(dot(a, a)); }

constexpr double kBoltzmann = 0.0083144626;  // kJ/(mol K)
constexpr double kDt = 0.002;                // ps

// SoA state with atoms stored out of molecule order, as in the engine's sorted arrays.
struct Waters {
    std::vector<SettleTriple> mols;
    std::vector<double> x, y, z, vx, vy, vz, mass;

    V3 pos(int i) const { return {x[i], y[i], z[i]}; }
    V3 vel(int i) const { return {vx[i], vy[i], vz[i]}; }
    void set_pos(int i, V3 r) { x[i] = r[0], y[i] = r[1], z[i] = r[2]; }
    void set_vel(int i, V3 v) { vx[i] = v[0], vy[i] = v[1], vz[i] = v[2]; }
};

// Uniformly random rotation from a normalised Gaussian quaternion.
std::array<V3, 3> random_rotation(std::mt19937_64& rng) {
    std::normal_distribution<double> g;
    double q[4];
    double n = 0.0;
    for (double& c : q) {
        c = g(rng);
        n += c * c;
    }
    n = std::sqrt(n);
    const double w = q[0] / n, a = q[1] / n, b = q[2] / n, c = q[3] / n;
    return {{{1 - 2 * (b * b + c * c), 2 * (a * b - w * c), 2 * (a * c + w * b)},
             {2 * (a * b + w * c), 1 - 2 * (a * a + c * c), 2 * (b * c - w * a)},
             {2 * (a * c - w * b), 2 * (b * c + w * a), 1 - 2 * (a * a + b * b)}}};
}

V3 apply(const std::array<V3, 3>& R, V3 v) { return {dot(R[0], v), dot(R[1], v), dot(R[2], v)}; }

// n rigid waters, randomly oriented in a 3 nm box, with Maxwell-Boltzmann
// velocities at temperature_k drawn independently per atom (so they violate
// the constraints, as after a force update).
Waters make_waters(int n, double temperature_k, std::uint64_t seed, const SettleParameters& p = {}) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> box(0.0, 3.0);
    std::normal_distribution<double> g;
    Waters w;
    const int natoms = 3 * n;
    for (auto* v : {&w.x, &w.y, &w.z, &w.vx, &w.vy, &w.vz, &w.mass}) v->assign(natoms, 0.0);
    std::vector<int> slot(natoms);
    std::iota(slot.begin(), slot.end(), 0);
    std::shuffle(slot.begin(), slot.end(), rng);
    const double rc = 0.5 * p.d_hh, h = std::sqrt(p.d_oh * p.d_oh - rc * rc);
    const V3 local[3] = {{0.0, 0.0, 0.0}, {rc, -h, 0.0}, {-rc, -h, 0.0}};
    for (int m = 0; m < n; ++m) {
        const SettleTriple t{slot[3 * m], slot[3 * m + 1], slot[3 * m + 2]};
        w.mols.push_back(t);
        const auto R = random_rotation(rng);
        const V3 centre{box(rng), box(rng), box(rng)};
        const int idx[3] = {t.o, t.h1, t.h2};
        for (int k = 0; k < 3; ++k) {
            const double m_k = k == 0 ? p.mass_o : p.mass_h;
            const double sigma = std::sqrt(kBoltzmann * temperature_k / m_k);
            w.mass[idx[k]] = m_k;
            w.set_pos(idx[k], add(centre, apply(R, local[k])));
            w.set_vel(idx[k], {sigma * g(rng), sigma * g(rng), sigma * g(rng)});
        }
    }
    return w;
}

SettleArrays arrays(const std::vector<double>& xr, const std::vector<double>& yr, const std::vector<double>& zr,
                    Waters& w, bool with_velocities = true) {
    return {xr.data(), yr.data(), zr.data(), w.x.data(), w.y.data(), w.z.data(),
            with_velocities ? w.vx.data() : nullptr, with_velocities ? w.vy.data() : nullptr,
            with_velocities ? w.vz.data() : nullptr};
}

void drift(Waters& w, double dt) {
    for (std::size_t i = 0; i < w.x.size(); ++i) w.set_pos(i, add(w.pos(i), scale(dt, w.vel(i))));
}

TEST(Settle, RandomWatersSatisfyConstraintsWithBondDirectedCorrections) {
    const SettleParameters p;
    for (double temperature : {300.0, 3000.0}) {  // 3000 K: ~3x larger steps, still solvable
        Waters w = make_waters(500, temperature, 11);
        const std::vector<double> xr = w.x, yr = w.y, zr = w.z;
        ASSERT_LT(settle_max_deviation(p, w.mols, xr.data(), yr.data(), zr.data()), 1e-14);
        drift(w, kDt);
        const Waters unc = w;
        ASSERT_GT(settle_max_deviation(p, w.mols, w.x.data(), w.y.data(), w.z.data()), 1e-3);

        settle_positions(p, w.mols, arrays(xr, yr, zr, w), kDt, 2);
        const double dev = settle_max_deviation(p, w.mols, w.x.data(), w.y.data(), w.z.data());
        EXPECT_LT(dev, 1e-12) << "T=" << temperature;
        std::printf("[ settle   ] T=%g K: max relative distance error %.2e\n", temperature, dev);

        // Checked in nm: the corrections are ~1e-3 nm but are read back from
        // coordinates up to 3 nm, so ~1e-15 nm is the resolution here.
        double worst_com = 0.0, worst_plane = 0.0, worst_torque = 0.0, worst_v = 0.0;
        for (const SettleTriple& t : w.mols) {
            const V3 o0{xr[t.o], yr[t.o], zr[t.o]};
            const V3 b0 = sub(V3{xr[t.h1], yr[t.h1], zr[t.h1]}, o0);
            const V3 c0 = sub(V3{xr[t.h2], yr[t.h2], zr[t.h2]}, o0);
            const V3 normal = scale(1.0 / norm(cross(b0, c0)), cross(b0, c0));
            V3 impulse{0, 0, 0}, torque{0, 0, 0};
            double mtot = 0.0;
            for (int i : {t.o, t.h1, t.h2}) {
                const V3 d = sub(w.pos(i), unc.pos(i));
                const V3 f = scale(w.mass[i], d);  // m_i * correction = sum of bond impulses
                mtot += w.mass[i];
                impulse = add(impulse, f);
                torque = add(torque, cross(sub(V3{xr[i], yr[i], zr[i]}, o0), f));
                // Impulses along the reference bonds stay in the reference plane.
                worst_plane = std::max(worst_plane, std::abs(dot(d, normal)));
                const V3 dv = sub(w.vel(i), unc.vel(i));
                worst_v = std::max(worst_v, norm(sub(scale(kDt, dv), d)));
            }
            worst_com = std::max(worst_com, norm(impulse) / mtot);
            worst_torque = std::max(worst_torque, norm(torque) / (mtot * p.d_oh));
        }
        EXPECT_LT(worst_com, 1e-14);     // centre of mass unchanged
        EXPECT_LT(worst_plane, 1e-14);   // corrections in the reference plane
        EXPECT_LT(worst_torque, 1e-14);  // ... and along the reference bonds (no torque)
        EXPECT_LT(worst_v, 1e-14);       // v += (x_corrected - x_unconstrained) / dt
        std::printf("[ settle   ] T=%g K: com shift %.1e nm, out-of-plane %.1e nm, torque/(M d_oh) %.1e nm, "
                    "v*dt mismatch %.1e nm\n",
                    temperature, worst_com, worst_plane, worst_torque, worst_v);
    }
}

TEST(Settle, NullVelocitiesLeavesVelocitiesAlone) {
    const SettleParameters p;
    Waters w = make_waters(20, 300.0, 5);
    const std::vector<double> xr = w.x, yr = w.y, zr = w.z;
    drift(w, kDt);
    const std::vector<double> vx = w.vx;
    settle_positions(p, w.mols, arrays(xr, yr, zr, w, false), kDt, 1);
    EXPECT_EQ(w.vx, vx);
    EXPECT_LT(settle_max_deviation(p, w.mols, w.x.data(), w.y.data(), w.z.data()), 1e-12);
}

TEST(Settle, VelocitiesHaveNoBondStretchAndConserveMomentum) {
    const SettleParameters p;
    Waters w = make_waters(500, 300.0, 23);
    const Waters before = w;
    settle_velocities(p, w.mols, w.x.data(), w.y.data(), w.z.data(), w.vx.data(), w.vy.data(), w.vz.data(), 2);
    double worst_stretch = 0.0, worst_p = 0.0;
    for (const SettleTriple& t : w.mols) {
        const int pairs[3][2] = {{t.o, t.h1}, {t.o, t.h2}, {t.h1, t.h2}};
        for (const auto& pr : pairs) {
            const double rate = 2.0 * dot(sub(w.pos(pr[0]), w.pos(pr[1])), sub(w.vel(pr[0]), w.vel(pr[1])));
            worst_stretch = std::max(worst_stretch, std::abs(rate));
        }
        V3 dp{0, 0, 0};
        for (int i : {t.o, t.h1, t.h2}) dp = add(dp, scale(w.mass[i], sub(w.vel(i), before.vel(i))));
        worst_p = std::max(worst_p, norm(dp));
    }
    EXPECT_LT(worst_stretch, 1e-12);  // nm^2/ps
    EXPECT_LT(worst_p, 1e-12);        // amu nm/ps
    std::printf("[ settle   ] velocities: max |d r^2/dt| %.1e nm^2/ps, max |dp| %.1e amu nm/ps\n", worst_stretch,
                worst_p);

    // Already rigid velocities (translation + rotation) are left as they are.
    const Waters rigid = w;
    settle_velocities(p, w.mols, w.x.data(), w.y.data(), w.z.data(), w.vx.data(), w.vy.data(), w.vz.data(), 1);
    for (std::size_t i = 0; i < w.vx.size(); ++i) EXPECT_LT(norm(sub(w.vel(i), rigid.vel(i))), 1e-12);
}

TEST(Settle, BitIdenticalForOneAndTwoThreads) {
    const SettleParameters p;
    auto once = [&](int threads) {
        Waters w = make_waters(2000, 300.0, 77);
        const std::vector<double> xr = w.x, yr = w.y, zr = w.z;
        drift(w, kDt);
        settle_positions(p, w.mols, arrays(xr, yr, zr, w), kDt, threads);
        settle_velocities(p, w.mols, w.x.data(), w.y.data(), w.z.data(), w.vx.data(), w.vy.data(), w.vz.data(),
                          threads);
        return w;
    };
    const Waters a = once(1), b = once(2);
    EXPECT_EQ(a.x, b.x);
    EXPECT_EQ(a.y, b.y);
    EXPECT_EQ(a.z, b.z);
    EXPECT_EQ(a.vx, b.vx);
    EXPECT_EQ(a.vy, b.vy);
    EXPECT_EQ(a.vz, b.vz);
}

TEST(Settle, UnsolvableGeometryNamesTheMolecule) {
    const SettleParameters p;
    for (int threads : {1, 2}) {
        Waters w = make_waters(10, 300.0, 3);
        const std::vector<double> xr = w.x, yr = w.y, zr = w.z;
        drift(w, kDt);
        // Push molecule 7's oxygen 0.5 nm out of its plane: sin(phi) >> 1.
        const SettleTriple t = w.mols[7];
        const V3 o0{xr[t.o], yr[t.o], zr[t.o]};
        const V3 n = cross(sub(V3{xr[t.h1], yr[t.h1], zr[t.h1]}, o0), sub(V3{xr[t.h2], yr[t.h2], zr[t.h2]}, o0));
        w.set_pos(t.o, add(w.pos(t.o), scale(0.5 / norm(n), n)));
        try {
            settle_positions(p, w.mols, arrays(xr, yr, zr, w), kDt, threads);
            ADD_FAILURE() << "no exception";
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find("molecule 7"), std::string::npos) << e.what();
        }
    }
}

// Free rigid water: translation plus rotation, no forces. Leap-frog with SETTLE
// must keep the distances, the momentum, the discrete angular momentum
// sum m x(t) x x(t+dt) / dt (exact for bond-directed constraint forces) and the kinetic energy.
struct FreeRun {
    double max_dev = 0.0, ke_rel = 0.0, p_rel = 0.0, l_rel = 0.0;
};

FreeRun run_free_water(V3 omega_body, int steps) {
    const SettleParameters p;
    Waters w = make_waters(1, 0.0, 99);
    const SettleTriple t = w.mols[0];
    const int idx[3] = {t.o, t.h1, t.h2};
    V3 com{0, 0, 0};
    double mtot = 0.0;
    for (int i : idx) com = add(com, scale(w.mass[i], w.pos(i))), mtot += w.mass[i];
    com = scale(1.0 / mtot, com);
    // Body frame: e1 along the H-H axis, e2 along the bisector, e3 normal (principal axes).
    const V3 hh = sub(w.pos(t.h2), w.pos(t.h1));
    const V3 e1 = scale(1.0 / norm(hh), hh);
    const V3 bis = sub(scale(0.5, add(w.pos(t.h1), w.pos(t.h2))), w.pos(t.o));
    const V3 e2 = scale(1.0 / norm(bis), bis);
    const V3 e3 = cross(e1, e2);
    const V3 omega = add(add(scale(omega_body[0], e1), scale(omega_body[1], e2)), scale(omega_body[2], e3));
    const V3 vcom{0.9, -0.4, 0.3};  // nm/ps
    for (int i : idx) w.set_vel(i, add(vcom, cross(omega, sub(w.pos(i), com))));
    std::vector<SettleTriple> mols{t};

    auto kinetic = [&] {
        double k = 0.0;
        for (int i : idx) k += 0.5 * w.mass[i] * dot(w.vel(i), w.vel(i));
        return k;
    };
    auto momentum = [&] {
        V3 s{0, 0, 0};
        for (int i : idx) s = add(s, scale(w.mass[i], w.vel(i)));
        return s;
    };
    FreeRun r;
    double ke0 = 0.0;
    V3 p0{}, l0{};
    for (int step = 0; step < steps; ++step) {
        const std::vector<double> xr = w.x, yr = w.y, zr = w.z;
        drift(w, kDt);
        settle_positions(p, mols, arrays(xr, yr, zr, w), kDt, 1);
        V3 l{0, 0, 0};  // discrete angular momentum of this step
        for (int i : idx) l = add(l, scale(w.mass[i] / kDt, cross(V3{xr[i], yr[i], zr[i]}, w.pos(i))));
        if (step == 0) {
            ke0 = kinetic(), p0 = momentum(), l0 = l;
            continue;
        }
        r.max_dev = std::max(r.max_dev, settle_max_deviation(p, mols, w.x.data(), w.y.data(), w.z.data()));
        r.ke_rel = std::max(r.ke_rel, std::abs(kinetic() - ke0) / ke0);
        r.p_rel = std::max(r.p_rel, norm(sub(momentum(), p0)) / norm(p0));
        r.l_rel = std::max(r.l_rel, norm(sub(l, l0)) / norm(l0));
    }
    return r;
}

TEST(Settle, FreeRigidWaterConservesDistancesAndEnergy) {
    // Thermal angular velocities at 300 K: omega ~ sqrt(kT/I) ~ 30-60 rad/ps.
    for (const V3& w_body : {V3{0.0, 0.0, 40.0}, V3{0.0, 50.0, 0.0}, V3{35.0, 0.0, 0.0}, V3{20.0, 30.0, 25.0}}) {
        const FreeRun r = run_free_water(w_body, 1000);
        std::printf("[ settle   ] free water omega=(%g,%g,%g): dev %.1e, |dKE|/KE %.1e, |dp|/p %.1e, |dL|/L %.1e\n",
                    w_body[0], w_body[1], w_body[2], r.max_dev, r.ke_rel, r.p_rel, r.l_rel);
        EXPECT_LT(r.max_dev, 1e-12);
        EXPECT_LT(r.p_rel, 1e-11);
        EXPECT_LT(r.l_rel, 1e-10);
        EXPECT_LT(r.ke_rel, 1e-9);  // SHAKE-type free rotor (Moser-Veselov): conserved to roundoff
    }
}

// The GPU update solves SETTLE in float with the same algebra (settle_math.h):
// against settle_positions' double solution, float stays within float rounding
// of the positions and keeps the distances to about 1e-6 relative.
TEST(SettleMath, FloatSolutionFollowsTheDoubleReference) {
    const SettleParameters p;
    const SettleGeometry g = settle_geometry(p);
    const settle_math::Shape<float> gf = settle_math::shape_as<float>(g);
    Waters w = make_waters(500, 300.0, 11);
    const std::vector<double> xr = w.x, yr = w.y, zr = w.z;
    drift(w, kDt);
    Waters reference = w;
    settle_positions(p, reference.mols, arrays(xr, yr, zr, reference), kDt, 1);
    double worst_position = 0.0, worst_distance = 0.0;
    for (const SettleTriple& t : w.mols) {
        const int idx[3] = {t.o, t.h1, t.h2};
        const V3 o0{xr[t.o], yr[t.o], zr[t.o]};
        float b0[3], c0[3], u[3][3], n[3][3];
        for (int d = 0; d < 3; ++d) {
            b0[d] = float((d == 0 ? xr[t.h1] : d == 1 ? yr[t.h1] : zr[t.h1]) - o0[d]);
            c0[d] = float((d == 0 ? xr[t.h2] : d == 1 ? yr[t.h2] : zr[t.h2]) - o0[d]);
            for (int k = 0; k < 3; ++k) u[k][d] = float(w.pos(idx[k])[d] - o0[d]);
        }
        ASSERT_TRUE(settle_math::settle_solve<float>(gf, b0, c0, u[0], u[1], u[2], n[0], n[1], n[2]));
        for (int k = 0; k < 3; ++k)
            for (int d = 0; d < 3; ++d)
                worst_position = std::max(worst_position, std::abs(o0[d] + n[k][d] - reference.pos(idx[k])[d]));
        auto dist = [&](int a, int b) {
            return std::sqrt(double((n[a][0] - n[b][0]) * (n[a][0] - n[b][0]) + (n[a][1] - n[b][1]) * (n[a][1] - n[b][1]) +
                                    (n[a][2] - n[b][2]) * (n[a][2] - n[b][2])));
        };
        worst_distance = std::max({worst_distance, std::abs(dist(0, 1) - p.d_oh) / p.d_oh,
                                   std::abs(dist(0, 2) - p.d_oh) / p.d_oh, std::abs(dist(1, 2) - p.d_hh) / p.d_hh});
    }
    EXPECT_LT(worst_position, 1e-6);  // nm: float rounding of ~0.1 nm vectors
    EXPECT_LT(worst_distance, 1e-5);
    RecordProperty("worst_relative_distance_error", std::to_string(worst_distance));
}

}  // namespace
}  // namespace mdcore

