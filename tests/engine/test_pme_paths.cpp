// The optimised PME paths against the reference ones they replace: the mesh kernels'
// float B-spline stencils at every compiled SIMD level against bspline(), and the slab
// spread + gather (the default) against the spread/gather as first written
// (Pme::use_reference_path), at the tolerances the thread-count test uses.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "mdcore/engine.h"
#include "pme/bspline.h"
#include "pme/pme.h"
#include "pme/pme_mesh_kernels.h"

namespace mdcore {
namespace {

struct Charges {
    Box box;
    std::vector<double> x, y, z, q;
};

// n random charges in the box, some outside it (any image is allowed), a few uncharged.
Charges random_charges(int n, Vec3 lengths, std::uint64_t seed) {
    Charges c;
    c.box.lengths = lengths;
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(-0.2, 1.2), chg(-1.0, 1.0);
    for (int i = 0; i < n; ++i) {
        c.x.push_back(unit(rng) * lengths[0]);
        c.y.push_back(unit(rng) * lengths[1]);
        c.z.push_back(unit(rng) * lengths[2]);
        c.q.push_back(i % 17 == 5 ? 0.0 : chg(rng));
    }
    return c;
}

// Float weights within float rounding of bspline()'s, the same base index, and every
// SIMD level bit-identical to the plain build.
TEST(PmePaths, MeshSplinesMatchBsplineAtEverySimdLevel) {
    const Charges c = random_charges(37, {2.1, 2.6, 3.3}, 5);  // 37: a partial last block
    const int dims[3] = {21, 27, 32};
    const std::size_t n = c.x.size();
    for (int order : {4, 5, 6}) {
        std::vector<int> base0;
        std::vector<float> th0, dth0;
        for (SimdLevel level : available_simd_levels()) {
            SCOPED_TRACE(std::string(to_string(level)) + ", order " + std::to_string(order));
            std::vector<int> base(pme_stencil_ints(n));
            std::vector<float> th(pme_stencil_floats(n, order)), dth(pme_stencil_floats(n, order));
            PmeSplineInput in;
            in.pos[0] = c.x.data(), in.pos[1] = c.y.data(), in.pos[2] = c.z.data();
            for (int a = 0; a < 3; ++a) in.length[a] = c.box.lengths[a], in.dims[a] = dims[a];
            in.order = order;
            pme_mesh_kernels(level).splines(in, 0, n, PmeMeshStencils{base.data(), th.data(), dth.data()});
            const std::vector<double>* pos[3] = {&c.x, &c.y, &c.z};
            for (std::size_t i = 0; i < n; ++i)
                for (int a = 0; a < 3; ++a) {
                    double s = (*pos[a])[i] / c.box.lengths[a];
                    s -= std::floor(s);
                    const double u = s * dims[a];
                    int b = static_cast<int>(u);
                    const double f = u - b;
                    if (b >= dims[a]) b -= dims[a];
                    double ref[kPmeMaxOrder], dref[kPmeMaxOrder];
                    bspline(f, order, ref, dref);
                    EXPECT_EQ(base[pme_base_index(i, a)], b) << i << " " << a;
                    for (int j = 0; j < order; ++j) {
                        const std::size_t at = pme_weight_index(i, a, j, order);
                        EXPECT_NEAR(th[at], ref[j], 2e-6) << i << " " << a << " " << j;
                        EXPECT_NEAR(dth[at], dref[j], 2e-6) << i << " " << a << " " << j;
                    }
                }
            // Lanes past the last atom are junk: compare the atoms' values only.
            std::vector<int> b_used;
            std::vector<float> th_used, dth_used;
            for (std::size_t i = 0; i < n; ++i)
                for (int a = 0; a < 3; ++a) {
                    b_used.push_back(base[pme_base_index(i, a)]);
                    for (int j = 0; j < order; ++j) {
                        th_used.push_back(th[pme_weight_index(i, a, j, order)]);
                        dth_used.push_back(dth[pme_weight_index(i, a, j, order)]);
                    }
                }
            if (base0.empty()) {
                base0 = b_used, th0 = th_used, dth0 = dth_used;
            } else {
                EXPECT_EQ(b_used, base0);
                EXPECT_EQ(th_used, th0);
                EXPECT_EQ(dth_used, dth0);
            }
        }
    }
}

struct Result {
    double energy = 0;
    std::vector<float> f;
    double virial[9] = {};
};

Result run(const Charges& c, PmeGrid grid, int order, int threads, SimdLevel level, bool reference) {
    const std::size_t n = c.x.size();
    std::vector<float> fx(n, 0.f), fy(n, 0.f), fz(n, 0.f);
    Pme pme(c.box, grid, order, 3.12, 1.0, threads, level);
    pme.use_reference_path(reference);
    Result r;
    r.energy = pme.compute(n, c.x.data(), c.y.data(), c.z.data(), c.q.data(), fx.data(), fy.data(), fz.data(), r.virial);
    for (std::size_t i = 0; i < n; ++i) r.f.insert(r.f.end(), {fx[i], fy[i], fz[i]});
    return r;
}

// Grids with odd sizes (z-runs that wrap), thread counts whose x-slabs are narrower
// than order-1 planes (12 planes over 5 threads), every order and SIMD level; the
// levels agree bit for bit.
TEST(PmePaths, SlabSpreadAndGatherMatchTheReference) {
    struct Case {
        Vec3 box;
        PmeGrid grid;
        int order;
    };
    const Case cases[] = {{{2.5, 2.5, 2.5}, {21, 21, 21}, 4}, {{2.0, 2.7, 3.1}, {18, 27, 25}, 5},
                          {{1.5, 1.5, 1.5}, {12, 12, 12}, 6}};
    for (const Case& k : cases) {
        const Charges c = random_charges(300, k.box, 11);
        for (int threads : {1, 2, 3, 5}) {
            const Result ref = run(c, k.grid, k.order, threads, SimdLevel::None, true);
            double fmax = 0;
            for (float f : ref.f) fmax = std::max(fmax, static_cast<double>(std::abs(f)));
            const Result plain = run(c, k.grid, k.order, threads, SimdLevel::None, false);
            for (SimdLevel level : available_simd_levels()) {
                SCOPED_TRACE(std::string(to_string(level)) + ", order " + std::to_string(k.order) + ", threads " +
                             std::to_string(threads));
                const Result opt = run(c, k.grid, k.order, threads, level, false);
                EXPECT_EQ(opt.energy, plain.energy);
                EXPECT_EQ(opt.f, plain.f);
                EXPECT_NEAR(opt.energy, ref.energy, 1e-5 * std::abs(ref.energy));
                for (std::size_t i = 0; i < ref.f.size(); ++i) EXPECT_NEAR(opt.f[i], ref.f[i], 1e-4 * fmax) << i;
                for (int v = 0; v < 9; ++v) EXPECT_NEAR(opt.virial[v], ref.virial[v], 1e-5 * std::abs(ref.energy));
                // Deterministic for a thread count.
                const Result again = run(c, k.grid, k.order, threads, level, false);
                EXPECT_EQ(again.energy, opt.energy);
                EXPECT_EQ(again.f, opt.f);
            }
        }
    }
}

}  // namespace
}  // namespace mdcore
