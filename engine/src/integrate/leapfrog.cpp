#include "integrate/leapfrog.h"

#include <cstddef>

#include "integrate/thread_sum.h"

namespace mdcore {

void SortedState::resize(std::size_t n) {
    for (auto* v : {&x, &y, &z, &vx, &vy, &vz, &inv_mass, &mass}) v->assign(n, 0.0);
    for (auto* v : {&fx, &fy, &fz}) v->assign(n, 0.0f);
}

void copy_to_floats(const SortedState& s, FloatCoordinates out, std::size_t begin, std::size_t end) {
#pragma omp simd
    for (std::size_t i = begin; i < end; ++i) {
        out.x[i] = static_cast<float>(s.x[i]);
        out.y[i] = static_cast<float>(s.y[i]);
        out.z[i] = static_cast<float>(s.z[i]);
    }
}

double twice_kinetic_energy(const SortedState& s, int num_threads) {
    const std::size_t n = s.size();
    return sum_over_threads(num_threads, [&](int t, int nt) {
        const std::size_t b = n * t / nt, e = n * (t + 1) / nt;
        double k = 0.0;
        for (std::size_t i = b; i < e; ++i)
            k += s.mass[i] * (s.vx[i] * s.vx[i] + s.vy[i] * s.vy[i] + s.vz[i] * s.vz[i]);
        return k;
    });
}

double leapfrog_update(SortedState& s, double dt, double lambda, int num_threads, FloatCoordinates out) {
    const std::size_t n = s.size();
    return sum_over_threads(num_threads, [&](int t, int nt) {
        const std::size_t b = n * t / nt, e = n * (t + 1) / nt;
        double k = 0.0;
        for (std::size_t i = b; i < e; ++i) k += leapfrog_atom(s, i, dt, lambda);
        if (out.x != nullptr) copy_to_floats(s, out, b, e);
        return k;
    });
}

}  // namespace mdcore
