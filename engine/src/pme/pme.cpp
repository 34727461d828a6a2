// Smooth particle-mesh Ewald (Essmann et al., J. Chem. Phys. 103, 8577 (1995)) and
// a direct double-precision Ewald sum used as its test oracle.
//
// Conventions: fractional coordinate u = K s with s = x/L wrapped into [0,1); an atom
// at u = floor(u) + f puts weight M_p(f + j) on grid point floor(u) - j (j = 0..p-1),
// so Q(k) = sum_i q_i prod_a M_p(u_ia - k_a) (periodic). FFTW's r2c gives
// Qh(m) = sum_k Q(k) exp(-2 pi i m.k/K); the energy is 0.5 sum_m G(m) |Qh(m)|^2 with
// G(m) = exp(-pi^2 m^2/beta^2) / (pi V m^2) / prod_a |b_a(m_a)|^2, and the potential
// phi = c2r(G Qh) (FFTW's unnormalised inverse) is exactly the convolution theta*Q.
#include "pme/pme.h"

#include <fftw3.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstring>
#include <memory>
#include <mutex>
#include <numbers>
#include <stdexcept>
#include <string>

#include "mdcore/units.h"
#include "util/format.h"
#include "util/thread_count.h"

namespace mdcore {

namespace {

constexpr int kMaxOrder = 6;
constexpr double kPi = std::numbers::pi;

// FFTW's planner is not thread-safe; only execute is.
std::mutex& fftw_planner_mutex() {
    static std::mutex m;
    return m;
}

// Cardinal B-spline values th[j] = M_p(f + j) and derivatives dth[j] = M_p'(f + j),
// j = 0..p-1, f in [0,1), by the recursion
//   M_n(x) = x/(n-1) M_{n-1}(x) + (n-x)/(n-1) M_{n-1}(x-1),  M_n'(x) = M_{n-1}(x) - M_{n-1}(x-1).
void bspline(double f, int p, double* th, double* dth) {
    double w[kMaxOrder] = {};
    w[0] = f;        // M_2(f)
    w[1] = 1.0 - f;  // M_2(f+1)
    for (int n = 3; n <= p; ++n) {
        if (n == p && dth)
            for (int j = 0; j < n; ++j) dth[j] = (j < n - 1 ? w[j] : 0.0) - (j > 0 ? w[j - 1] : 0.0);
        const double div = 1.0 / (n - 1);
        // Descending j so w[j-1] still holds the order n-1 value.
        for (int j = n - 1; j >= 0; --j) {
            const double a = j < n - 1 ? w[j] : 0.0;
            const double b = j > 0 ? w[j - 1] : 0.0;
            w[j] = div * ((f + j) * a + (n - f - j) * b);
        }
    }
    for (int j = 0; j < p; ++j) th[j] = w[j];
}

// |b(m)|^-2 denominators: bmod[m] = |sum_{k=0}^{p-2} M_p(k+1) exp(2 pi i m k/K)|^2.
std::vector<double> bspline_moduli(int K, int p) {
    double th[kMaxOrder];
    bspline(0.0, p, th, nullptr);  // th[j] = M_p(j)
    std::vector<double> mod(K);
    for (int m = 0; m < K; ++m) {
        double re = 0, im = 0;
        for (int k = 0; k <= p - 2; ++k) {
            const double arg = 2.0 * kPi * m * k / K;
            re += th[k + 1] * std::cos(arg);
            im += th[k + 1] * std::sin(arg);
        }
        mod[m] = re * re + im * im;
    }
    // Odd orders vanish at the Nyquist frequency; interpolate as GROMACS does (the
    // Gaussian factor makes that mode negligible anyway).
    for (int m = 0; m < K; ++m)
        if (mod[m] < 1e-7) mod[m] = 0.5 * (mod[(m - 1 + K) % K] + mod[(m + 1) % K]);
    return mod;
}

bool fft_friendly(int n) {
    for (int f : {2, 3, 5, 7})
        while (n % f == 0) n /= f;
    return n == 1;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

double ewald_beta(double rc, double ewald_rtol) {
    if (!(rc > 0) || !(ewald_rtol > 0 && ewald_rtol < 1))
        throw std::invalid_argument("ewald_beta: need rc > 0 and 0 < ewald_rtol < 1");
    // Bracket by doubling, then bisect (GROMACS calc_ewaldcoeff_q).
    double beta = 5.0;
    int i = 0;
    do {
        ++i;
        beta *= 2.0;
    } while (std::erfc(beta * rc) > ewald_rtol);
    const int n = i + 60;
    double low = 0.0, high = beta;
    for (int k = 0; k < n; ++k) {
        beta = 0.5 * (low + high);
        if (std::erfc(beta * rc) > ewald_rtol)
            low = beta;
        else
            high = beta;
    }
    return beta;
}

int pme_grid_size(double length, double spacing, int order) {
    if (!(length > 0) || !(spacing > 0)) throw std::invalid_argument("pme_grid_size: need length > 0 and spacing > 0");
    // The tiny slack keeps e.g. 3.0/0.1 = 30.000000000000004 at 30 rather than 32.
    const double ratio = length / spacing;
    // Far beyond any grid that fits in memory; keeps the conversion to int defined.
    constexpr double kMaxPoints = 1 << 24;
    if (!(ratio <= kMaxPoints))
        throw std::invalid_argument("PME grid: a " + format_g(length) + " nm box edge at spacing " + format_g(spacing) +
                                    " nm needs " + format_g(ratio) + " points, above the limit of " +
                                    format_g(kMaxPoints));
    int n = static_cast<int>(std::ceil(ratio * (1.0 - 1e-12)));
    // Below 2*order a grid point would receive one atom's weight from two stencil
    // positions (the stencil spans order points).
    n = std::max({n, 2 * order, 1});
    while (!fft_friendly(n)) ++n;
    return n;
}

PmeGrid pme_grid_for_spacing(const Box& box, double spacing, int order) {
    PmeGrid g;
    g.nx = pme_grid_size(box.lengths[0], spacing, order);
    g.ny = pme_grid_size(box.lengths[1], spacing, order);
    g.nz = pme_grid_size(box.lengths[2], spacing, order);
    return g;
}

// Per-atom spline stencil, kept from spread for gather.
struct AtomStencil {
    int idx[3][kMaxOrder];
    double th[3][kMaxOrder];
    double dth[3][kMaxOrder];
};

struct Pme::Impl {
    Box box;
    double beta = 0, prefactor = 0;  // prefactor = kCoulomb / epsilon_r
    int nthreads = 1;
    int nzc = 0;  // nz/2+1 complex z-planes
    std::size_t nreal = 0, ncomplex = 0;
    float* real = nullptr;                // charge grid, then potential phi
    fftwf_complex* cplx = nullptr;        // its transform
    std::vector<float*> thread_grids;     // spread copies for threads 1..n-1
    fftwf_plan fwd = nullptr, bwd = nullptr;
    std::vector<double> bmod[3];
    std::vector<double> mvec[3];          // m_a / L_a for each grid index (signed frequency)
    std::vector<AtomStencil> stencils;
    std::vector<double> thread_acc;       // per thread: energy + 6 virial components (stride 10)
    std::vector<double> influence;        // G(m) per complex grid point (0 at m = 0)

    ~Impl() {
        {
            std::lock_guard<std::mutex> lock(fftw_planner_mutex());
            if (fwd) fftwf_destroy_plan(fwd);
            if (bwd) fftwf_destroy_plan(bwd);
        }
        if (real) fftwf_free(real);
        if (cplx) fftwf_free(cplx);
        for (float* g : thread_grids)
            if (g) fftwf_free(g);
    }
};

Pme::Pme(const Box& box, PmeGrid grid, int order, double beta, double epsilon_r, int num_threads)
    : impl_(nullptr), grid_(grid), order_(order) {
    if (order < 4 || order > kMaxOrder) throw std::invalid_argument("Pme: order must be 4, 5 or 6, got " + std::to_string(order));
    for (int n : {grid.nx, grid.ny, grid.nz})
        if (n < 2 * order)
            throw std::invalid_argument("Pme: grid dimension " + std::to_string(n) + " below 2*order = " + std::to_string(2 * order));
    for (double l : box.lengths)
        if (!(l > 0)) throw std::invalid_argument("Pme: box lengths must be positive");
    if (!(beta > 0)) throw std::invalid_argument("Pme: beta must be positive");
    if (!(epsilon_r > 0)) throw std::invalid_argument("Pme: epsilon_r must be positive");

    auto impl = std::make_unique<Impl>();
    impl->box = box;
    impl->beta = beta;
    impl->prefactor = units::kCoulomb / epsilon_r;
    impl->nthreads = num_threads > 0 ? num_threads : default_thread_count();
    impl->nzc = grid.nz / 2 + 1;
    impl->nreal = static_cast<std::size_t>(grid.nx) * grid.ny * grid.nz;
    impl->ncomplex = static_cast<std::size_t>(grid.nx) * grid.ny * impl->nzc;
    impl->real = static_cast<float*>(fftwf_malloc(sizeof(float) * impl->nreal));
    impl->cplx = static_cast<fftwf_complex*>(fftwf_malloc(sizeof(fftwf_complex) * impl->ncomplex));
    for (int t = 1; t < impl->nthreads; ++t)
        impl->thread_grids.push_back(static_cast<float*>(fftwf_malloc(sizeof(float) * impl->nreal)));
    bool alloc_ok = impl->real && impl->cplx;
    for (float* g : impl->thread_grids) alloc_ok = alloc_ok && g;
    if (alloc_ok) {
        std::lock_guard<std::mutex> lock(fftw_planner_mutex());
        // Threaded FFTs (fftw3f_omp) only for large grids: on small ones (27^3)
        // FFTW's threading was 40x slower than serial here. ESTIMATE plans are
        // chosen without timing, so a run is reproducible for a thread count.
        static const bool threads_ready = fftwf_init_threads() != 0;
        const long points = static_cast<long>(grid.nx) * grid.ny * grid.nz;
        if (threads_ready) fftwf_plan_with_nthreads(points >= 64000 ? std::max(1, num_threads) : 1);
        impl->fwd = fftwf_plan_dft_r2c_3d(grid.nx, grid.ny, grid.nz, impl->real, impl->cplx, FFTW_ESTIMATE);
        impl->bwd = fftwf_plan_dft_c2r_3d(grid.nx, grid.ny, grid.nz, impl->cplx, impl->real, FFTW_ESTIMATE);
    }
    if (!alloc_ok || !impl->fwd || !impl->bwd) throw std::runtime_error("Pme: FFTW allocation or planning failed");

    const int dims[3] = {grid.nx, grid.ny, grid.nz};
    for (int a = 0; a < 3; ++a) {
        impl->bmod[a] = bspline_moduli(dims[a], order);
        impl->mvec[a].resize(dims[a]);
        for (int k = 0; k < dims[a]; ++k) impl->mvec[a][k] = (k <= dims[a] / 2 ? k : k - dims[a]) / box.lengths[a];
    }
    // The influence function depends only on the box and grid: tabulate it once
    // instead of evaluating exp() per k-vector every step.
    {
        const double V = box.volume();
        const double fac = kPi * kPi / (beta * beta);
        impl->influence.assign(static_cast<std::size_t>(grid.nx) * grid.ny * impl->nzc, 0.0);
        for (int ix = 0; ix < grid.nx; ++ix)
            for (int iy = 0; iy < grid.ny; ++iy)
                for (int kz = 0; kz < impl->nzc; ++kz) {
                    if (ix == 0 && iy == 0 && kz == 0) continue;  // m = 0 left out (tin-foil)
                    const double mx = impl->mvec[0][ix], my = impl->mvec[1][iy], mz = kz / box.lengths[2];
                    const double m2 = mx * mx + my * my + mz * mz;
                    impl->influence[(static_cast<std::size_t>(ix) * grid.ny + iy) * impl->nzc + kz] =
                        impl->prefactor * std::exp(-fac * m2) /
                        (kPi * V * m2 * impl->bmod[0][ix] * impl->bmod[1][iy] * impl->bmod[2][kz]);
                }
    }
    impl->thread_acc.assign(static_cast<std::size_t>(impl->nthreads) * 10, 0.0);
    impl_ = impl.release();
}

Pme::~Pme() { delete impl_; }

double Pme::compute(std::size_t n, const double* x, const double* y, const double* z, const double* q, float* fx,
                    float* fy, float* fz, double* virial) {
    Impl& w = *impl_;
    const int p = order_;
    const int nx = grid_.nx, ny = grid_.ny, nz = grid_.nz, nzc = w.nzc;
    const int dims[3] = {nx, ny, nz};
    const double L[3] = {w.box.lengths[0], w.box.lengths[1], w.box.lengths[2]};
    const int nt = w.nthreads;
    if (w.stencils.size() < n) w.stencils.resize(n);
    const double* pos[3] = {x, y, z};

    // --- spread: each thread owns a contiguous block of atoms and its own grid copy;
    // the copies are summed in thread order, so the result depends only on nt.
    auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(nt)
    {
        const int tid = omp_get_thread_num();
        // The team may be smaller than nt (nested or dynamic OpenMP): only its copies count.
        const int team = omp_get_num_threads();
        float* g = tid == 0 ? w.real : w.thread_grids[tid - 1];
        std::memset(g, 0, sizeof(float) * w.nreal);
#pragma omp for schedule(static)
        for (std::size_t i = 0; i < n; ++i) {
            if (q[i] == 0.0) continue;
            AtomStencil& st = w.stencils[i];
            for (int a = 0; a < 3; ++a) {
                const int K = dims[a];
                double s = pos[a][i] / L[a];
                s -= std::floor(s);  // any image -> [0,1)
                const double u = s * K;
                int base = static_cast<int>(u);
                const double f = u - base;
                if (base >= K) base -= K;  // s*K may round up to K
                bspline(f, p, st.th[a], st.dth[a]);
                for (int j = 0; j < p; ++j) {
                    int k = base - j + K;
                    if (k >= K) k -= K;
                    st.idx[a][j] = k;
                }
            }
            for (int a = 0; a < p; ++a) {
                const double qa = q[i] * st.th[0][a];
                for (int b = 0; b < p; ++b) {
                    const double qab = qa * st.th[1][b];
                    float* row = g + (static_cast<std::size_t>(st.idx[0][a]) * ny + st.idx[1][b]) * nz;
                    for (int c = 0; c < p; ++c) row[st.idx[2][c]] += static_cast<float>(qab * st.th[2][c]);
                }
            }
        }
        // implicit barrier: all copies complete
        if (team > 1) {
#pragma omp for schedule(static)
            for (std::size_t k = 0; k < w.nreal; ++k) {
                float s = w.real[k];
                for (int t = 0; t < team - 1; ++t) s += w.thread_grids[t][k];
                w.real[k] = s;
            }
        }
    }
    times_.spread += seconds_since(t0);

    t0 = std::chrono::steady_clock::now();
    fftwf_execute(w.fwd);
    times_.fft += seconds_since(t0);

    // --- solve: multiply by G(m) over x-planes; energy and virial per thread, summed
    // in thread order.
    t0 = std::chrono::steady_clock::now();
    const double fac = kPi * kPi / (w.beta * w.beta);
    const bool want_virial = virial != nullptr;
    std::fill(w.thread_acc.begin(), w.thread_acc.end(), 0.0);
#pragma omp parallel num_threads(nt)
    {
        double* acc = &w.thread_acc[static_cast<std::size_t>(omp_get_thread_num()) * 10];
        double energy = 0, vxx = 0, vyy = 0, vzz = 0, vxy = 0, vxz = 0, vyz = 0;
#pragma omp for schedule(static)
        for (int ix = 0; ix < nx; ++ix) {
            const double mx = w.mvec[0][ix];
            for (int iy = 0; iy < ny; ++iy) {
                const double my = w.mvec[1][iy];
                const std::size_t row_index = (static_cast<std::size_t>(ix) * ny + iy) * nzc;
                fftwf_complex* row = w.cplx + row_index;
                const double* influence = w.influence.data() + row_index;
                for (int kz = 0; kz < nzc; ++kz) {
                    const double eterm = influence[kz];  // 0 at m = 0 (tin-foil)
                    if (eterm == 0.0) {
                        row[kz][0] = row[kz][1] = 0.0f;
                        continue;
                    }
                    const double mz = kz / L[2];
                    const double m2 = mx * mx + my * my + mz * mz;
                    const double re = row[kz][0], im = row[kz][1];
                    // Half-complex layout: kz and -kz both stand behind interior planes.
                    const double weight = (kz == 0 || (nz % 2 == 0 && kz == nz / 2)) ? 1.0 : 2.0;
                    const double em = 0.5 * weight * eterm * (re * re + im * im);
                    energy += em;
                    if (want_virial) {
                        const double vf = 2.0 * (1.0 + fac * m2) / m2;
                        vxx += em * (vf * mx * mx - 1.0);
                        vyy += em * (vf * my * my - 1.0);
                        vzz += em * (vf * mz * mz - 1.0);
                        vxy += em * vf * mx * my;
                        vxz += em * vf * mx * mz;
                        vyz += em * vf * my * mz;
                    }
                    row[kz][0] = static_cast<float>(re * eterm);
                    row[kz][1] = static_cast<float>(im * eterm);
                }
            }
        }
        acc[0] = energy;
        acc[1] = vxx, acc[2] = vyy, acc[3] = vzz, acc[4] = vxy, acc[5] = vxz, acc[6] = vyz;
    }
    double energy = 0, v[6] = {};
    for (int t = 0; t < nt; ++t) {
        energy += w.thread_acc[t * 10];
        for (int c = 0; c < 6; ++c) v[c] += w.thread_acc[t * 10 + 1 + c];
    }
    if (want_virial) {
        // -0.5 sum r F: 0.5 sum_m E_m (2 (1 + pi^2 m^2/beta^2) m_a m_b / m^2 - delta_ab).
        const double vir[9] = {v[0], v[3], v[4], v[3], v[1], v[5], v[4], v[5], v[2]};
        for (int c = 0; c < 9; ++c) virial[c] = 0.5 * vir[c];
    }
    times_.solve += seconds_since(t0);

    t0 = std::chrono::steady_clock::now();
    fftwf_execute(w.bwd);  // real now holds phi
    times_.fft += seconds_since(t0);

    // --- gather: F_i = -q_i grad phi, chain rule d u_a / d x_a = K_a / L_a.
    t0 = std::chrono::steady_clock::now();
    const double sx = nx / L[0], sy = ny / L[1], sz = nz / L[2];
    const float* phi = w.real;
#pragma omp parallel for num_threads(nt) schedule(static)
    for (std::size_t i = 0; i < n; ++i) {
        if (q[i] == 0.0) continue;
        const AtomStencil& st = w.stencils[i];
        double gx = 0, gy = 0, gz = 0;
        for (int a = 0; a < p; ++a) {
            for (int b = 0; b < p; ++b) {
                const float* row = phi + (static_cast<std::size_t>(st.idx[0][a]) * ny + st.idx[1][b]) * nz;
                double s0 = 0, s1 = 0;  // sum_c th_z phi, sum_c dth_z phi
                for (int c = 0; c < p; ++c) {
                    const double ph = row[st.idx[2][c]];
                    s0 += st.th[2][c] * ph;
                    s1 += st.dth[2][c] * ph;
                }
                gx += st.dth[0][a] * st.th[1][b] * s0;
                gy += st.th[0][a] * st.dth[1][b] * s0;
                gz += st.th[0][a] * st.th[1][b] * s1;
            }
        }
        fx[i] -= static_cast<float>(q[i] * sx * gx);
        fy[i] -= static_cast<float>(q[i] * sy * gy);
        fz[i] -= static_cast<float>(q[i] * sz * gz);
    }
    times_.gather += seconds_since(t0);
    return energy;
}

EwaldDirectResult ewald_direct(const System& system, double beta, double rc_real, int kmax) {
    const std::size_t n = system.natoms();
    if (system.charge.size() != n) throw std::invalid_argument("ewald_direct: charge size differs from natoms");
    if (!(beta > 0) || kmax < 0) throw std::invalid_argument("ewald_direct: need beta > 0 and kmax >= 0");
    const Vec3 L = system.box.lengths;
    const double V = system.box.volume();
    const double pref = units::kCoulomb / system.epsilon_r;
    const auto& q = system.charge;
    const auto& r = system.positions;
    const double two_beta_sqrtpi = 2.0 * beta / std::sqrt(kPi);
    EwaldDirectResult res;
    res.forces.assign(n, Vec3{0, 0, 0});

    auto min_image = [&](std::size_t i, std::size_t j, double d[3]) {
        double r2 = 0;
        for (int a = 0; a < 3; ++a) {
            d[a] = r[i][a] - r[j][a];
            d[a] -= L[a] * std::round(d[a] / L[a]);
            r2 += d[a] * d[a];
        }
        return r2;
    };
    auto is_excluded = [&](std::size_t i, std::size_t j) {
        if (i >= system.exclusions.size()) return false;
        const auto& ex = system.exclusions[i];
        return std::binary_search(ex.begin(), ex.end(), static_cast<int>(j));
    };

    // Real space and excluded-pair correction. Pair force along d = r_i - r_j:
    // F_i = -dV/dr d/r.
    const double rc2 = rc_real * rc_real;
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = i + 1; j < n; ++j) {
            const double qq = pref * q[i] * q[j];
            if (qq == 0.0) continue;
            double d[3];
            const double r2 = min_image(i, j, d);
            double fscal = 0;  // -dV/dr / r
            if (is_excluded(i, j)) {
                if (r2 < 1e-24) {  // erf(beta r)/r -> 2 beta/sqrt(pi); no force
                    res.excluded -= qq * two_beta_sqrtpi;
                    continue;
                }
                const double rr = std::sqrt(r2);
                const double erfv = std::erf(beta * rr);
                res.excluded -= qq * erfv / rr;
                // V = -qq erf(br)/r; dV/dr = -qq (2b/sqrt(pi) e^{-b^2 r^2}/r - erf/r^2)
                fscal = qq * (two_beta_sqrtpi * std::exp(-beta * beta * r2) / rr - erfv / r2) / rr;
            } else if (r2 < rc2) {
                const double rr = std::sqrt(r2);
                const double erfcv = std::erfc(beta * rr);
                res.real += qq * erfcv / rr;
                // V = qq erfc(br)/r; -dV/dr = qq (erfc/r^2 + 2b/sqrt(pi) e^{-b^2 r^2}/r)
                fscal = qq * (erfcv / r2 + two_beta_sqrtpi * std::exp(-beta * beta * r2) / rr) / rr;
            }
            for (int a = 0; a < 3; ++a) {
                res.forces[i][a] += fscal * d[a];
                res.forces[j][a] -= fscal * d[a];
            }
        }
    }

    // Reciprocal space: E = 1/(2 pi V) sum_{m != 0} exp(-pi^2 m^2/beta^2)/m^2 |S(m)|^2,
    // S(m) = sum_j q_j exp(2 pi i m.r_j), m = (kx/Lx, ky/Ly, kz/Lz). Half of k-space
    // with weight 2 (m and -m contribute equally to energy and forces).
    using cd = std::complex<double>;
    const int nk = kmax + 1;
    // eik[a][j*nk + k] = exp(2 pi i k r_ja / L_a), k = 0..kmax; negative k by conj.
    std::vector<cd> eik[3];
    for (int a = 0; a < 3; ++a) {
        eik[a].resize(n * nk);
        for (std::size_t j = 0; j < n; ++j) {
            const cd e1 = std::polar(1.0, 2.0 * kPi * r[j][a] / L[a]);
            cd e = 1.0;
            for (int k = 0; k < nk; ++k) {
                // Recompute every 8 steps to keep the product recursion accurate.
                if (k % 8 == 0) e = std::polar(1.0, 2.0 * kPi * k * r[j][a] / L[a]);
                eik[a][j * nk + k] = e;
                e *= e1;
            }
        }
    }
    const double fac = kPi * kPi / (beta * beta);
    std::vector<cd> phase(n);
    std::vector<double> fr(3 * n, 0.0);
    double erec = 0;
    for (int kx = 0; kx <= kmax; ++kx) {
        for (int ky = -kmax; ky <= kmax; ++ky) {
            if (kx == 0 && ky < 0) continue;
            for (int kz = -kmax; kz <= kmax; ++kz) {
                if (kx == 0 && ky == 0 && kz <= 0) continue;
                const double m[3] = {kx / L[0], ky / L[1], kz / L[2]};
                const double m2 = m[0] * m[0] + m[1] * m[1] + m[2] * m[2];
                const double f = std::exp(-fac * m2) / m2;
                if (f < 1e-300) continue;
                cd S = 0.0;
                for (std::size_t j = 0; j < n; ++j) {
                    const cd ey = ky >= 0 ? eik[1][j * nk + ky] : std::conj(eik[1][j * nk - ky]);
                    const cd ez = kz >= 0 ? eik[2][j * nk + kz] : std::conj(eik[2][j * nk - kz]);
                    phase[j] = eik[0][j * nk + kx] * ey * ez;
                    S += q[j] * phase[j];
                }
                erec += 2.0 * f * std::norm(S);
                // F_j = (2 q_j / V) f m Im(e^{i theta_j} conj S), doubled for -m.
                for (std::size_t j = 0; j < n; ++j) {
                    const double s = 2.0 * 2.0 * q[j] / V * f * (phase[j] * std::conj(S)).imag();
                    for (int a = 0; a < 3; ++a) fr[3 * j + a] += s * m[a];
                }
            }
        }
    }
    res.recip = pref * erec / (2.0 * kPi * V);
    for (std::size_t j = 0; j < n; ++j)
        for (int a = 0; a < 3; ++a) res.forces[j][a] += pref * fr[3 * j + a];

    double q2 = 0, qsum = 0;
    for (double qi : q) {
        q2 += qi * qi;
        qsum += qi;
    }
    res.self = -pref * beta / std::sqrt(kPi) * q2;
    res.charged = -pref * kPi * qsum * qsum / (2.0 * V * beta * beta);
    return res;
}

}  // namespace mdcore
