#include "integrate/leapfrog.h"

#include <omp.h>

#include <vector>

namespace mdcore {

void SortedState::resize(std::size_t n) {
    for (auto* v : {&x, &y, &z, &vx, &vy, &vz, &inv_mass, &mass}) v->assign(n, 0.0);
    for (auto* v : {&fx, &fy, &fz}) v->assign(n, 0.0f);
}

namespace {

// Per-thread partial sums combined in thread order: reproducible for a thread count.
template <class Body>
double parallel_sum(std::size_t n, int num_threads, Body body) {
    std::vector<double> partial(num_threads, 0.0);
#pragma omp parallel num_threads(num_threads)
    {
        const int t = omp_get_thread_num();
        const int nt = omp_get_num_threads();
        const std::size_t begin = n * t / nt, end = n * (t + 1) / nt;
        partial[t] = body(begin, end);
    }
    double sum = 0.0;
    for (double p : partial) sum += p;
    return sum;
}

}  // namespace

double twice_kinetic_energy(const SortedState& s, int num_threads) {
    return parallel_sum(s.size(), num_threads, [&](std::size_t b, std::size_t e) {
        double k = 0.0;
        for (std::size_t i = b; i < e; ++i) k += s.mass[i] * (s.vx[i] * s.vx[i] + s.vy[i] * s.vy[i] + s.vz[i] * s.vz[i]);
        return k;
    });
}

double leapfrog_update(SortedState& s, double dt, double lambda, int num_threads) {
    return parallel_sum(s.size(), num_threads, [&](std::size_t b, std::size_t e) {
        double k = 0.0;
        for (std::size_t i = b; i < e; ++i) {
            const double a = s.inv_mass[i] * dt;
            s.vx[i] = lambda * s.vx[i] + a * s.fx[i];
            s.vy[i] = lambda * s.vy[i] + a * s.fy[i];
            s.vz[i] = lambda * s.vz[i] + a * s.fz[i];
            s.x[i] += s.vx[i] * dt;
            s.y[i] += s.vy[i] * dt;
            s.z[i] += s.vz[i] * dt;
            k += s.mass[i] * (s.vx[i] * s.vx[i] + s.vy[i] * s.vy[i] + s.vz[i] * s.vz[i]);
        }
        return k;
    });
}

}  // namespace mdcore
