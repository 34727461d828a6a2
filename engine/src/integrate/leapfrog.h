#pragma once
// Leap-frog update on sorted SoA arrays: v(t+dt/2) = lambda v(t-dt/2) + F/m dt,
// x(t+dt) = x(t) + v(t+dt/2) dt. Returns the kinetic energies needed for the
// half-step average, summed in a fixed order.
#include <array>
#include <cstddef>

#include "util/aligned_vector.h"

namespace mdcore {

struct SortedState {
    AlignedVector<double> x, y, z, vx, vy, vz;
    AlignedVector<double> inv_mass;  // 0 for padding slots
    AlignedVector<double> mass;      // 0 for padding slots
    AlignedVector<float> fx, fy, fz;
    std::size_t size() const { return x.size(); }
    void resize(std::size_t n);
    // Slot i takes one atom's position, velocity and mass (forces are left as they are).
    // A massless atom (a rank's halo copy of another rank's atom) gets inv_mass 0: it never moves.
    void set_atom(std::size_t i, const std::array<double, 3>& position, const std::array<double, 3>& velocity,
                  double atom_mass) {
        x[i] = position[0];
        y[i] = position[1];
        z[i] = position[2];
        vx[i] = velocity[0];
        vy[i] = velocity[1];
        vz[i] = velocity[2];
        mass[i] = atom_mass;
        inv_mass[i] = atom_mass > 0 ? 1.0 / atom_mass : 0.0;
    }
};

// Single-precision copies of the positions (the kernels' input), written by the
// update in the same pass so the force step needs no conversion pass; null: none.
struct FloatCoordinates {
    float* x = nullptr;
    float* y = nullptr;
    float* z = nullptr;
};

// out[i] = float(s.x[i]) etc. for slots [begin, end).
void copy_to_floats(const SortedState& s, FloatCoordinates out, std::size_t begin, std::size_t end);

// One atom's step (slot i); returns its m v^2 at the new velocity.
inline double leapfrog_atom(SortedState& s, std::size_t i, double dt, double lambda) {
    const double a = s.inv_mass[i] * dt;
    s.vx[i] = lambda * s.vx[i] + a * s.fx[i];
    s.vy[i] = lambda * s.vy[i] + a * s.fy[i];
    s.vz[i] = lambda * s.vz[i] + a * s.fz[i];
    s.x[i] += s.vx[i] * dt;
    s.y[i] += s.vy[i] * dt;
    s.z[i] += s.vz[i] * dt;
    return s.mass[i] * (s.vx[i] * s.vx[i] + s.vy[i] * s.vy[i] + s.vz[i] * s.vz[i]);
}

// 2 * kinetic energy of the current velocities (kJ/mol), deterministic for a thread count.
double twice_kinetic_energy(const SortedState& s, int num_threads);

// Applies the update with velocity scaling lambda; returns 2*KE of the new velocities.
double leapfrog_update(SortedState& s, double dt, double lambda, int num_threads, FloatCoordinates out = {});

}  // namespace mdcore
