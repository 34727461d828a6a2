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

namespace {

// Slots [b, e) in one pass. The kinetic energy is summed in kLanes partial sums
// (fixed lanes, then added in lane order): one running sum is a dependency chain
// that kept the loop scalar, at 7 % of an in.lj step. The float copies are
// written in the same pass, while the positions are in registers.
double leapfrog_range(SortedState& s, std::size_t b, std::size_t e, double dt, double lambda,
                      FloatCoordinates out) {
    constexpr std::size_t kLanes = 8;
    double k[kLanes] = {};
    const bool floats = out.x != nullptr;
    std::size_t i = b;
    for (; i + kLanes <= e; i += kLanes) {
#pragma omp simd
        for (std::size_t l = 0; l < kLanes; ++l) k[l] += leapfrog_atom(s, i + l, dt, lambda);
        if (floats) copy_to_floats(s, out, i, i + kLanes);
    }
    double sum = 0.0;
    for (std::size_t l = 0; l < kLanes; ++l) sum += k[l];
    for (std::size_t j = i; j < e; ++j) sum += leapfrog_atom(s, j, dt, lambda);
    if (floats) copy_to_floats(s, out, i, e);
    return sum;
}

}  // namespace

double leapfrog_update(SortedState& s, double dt, double lambda, int num_threads, FloatCoordinates out) {
    const std::size_t n = s.size();
    return sum_over_threads(num_threads, [&](int t, int nt) {
        return leapfrog_range(s, n * t / nt, n * (t + 1) / nt, dt, lambda, out);
    });
}

}  // namespace mdcore
