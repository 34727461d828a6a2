// The GPU pair-list layout (gpu_list_layout.h) built on the CPU from the 8x4
// search: super-clusters group 2 x 2 columns x 2 clusters, and the list holds
// exactly the CPU list's atom pairs (integer checks, bit for bit): every pair
// within rlist once, excluded pairs flagged, masks and imasks consistent.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <set>
#include <tuple>
#include <vector>

#include "gpu/gpu_pair_list.h"
#include "mdcore/units.h"
#include "nonbonded/pair_math.h"
#include "md_runner.h"
#include "mdcore/engine.h"
#include "mdcore/generators.h"
#include "test_systems.h"

namespace mdcore {
namespace {

using gpu::GpuPairList;
using gpu::SuperClusterLayout;

System small_water(double nacl) {
    WaterSpec spec;
    spec.nwater = 400;  // 2.29 nm box
    spec.nacl_molar = nacl;
    spec.relax_steps = 0;
    spec.threads = 2;
    System sys = make_water_system(spec);
    sys.rc = 0.9;
    return sys;
}

struct Built {
    SuperClusterLayout layout;
    GpuPairList list;
};

// CPU search with the 8x4 shape at rlist, then the GPU list from it.
Built build(System& sys, double rlist, MdRunner*& md_out, std::unique_ptr<MdRunner>& keep) {
    RunConfig rc;
    rc.cluster = ClusterShape::k8x4;
    rc.rlist = rlist;
    rc.nstlist = 10;
    rc.nstprune = 10;  // no CPU pruning: the outer list is the list
    rc.threads = 2;
    rc.simd = SimdLevel::None;
    const EffectiveConfig cfg = resolve_config(sys, rc, RunControl{});
    keep = std::make_unique<MdRunner>(sys, cfg);
    keep->search();
    keep->scatter_to_system();
    md_out = keep.get();
    Built b;
    b.layout = gpu::group_super_clusters(keep->grid());
    gpu::build_gpu_pair_list(keep->outer_list(), b.layout, b.list, /*threads=*/3);  // uneven parts
    return b;
}

using testing::min_image_r2;

void check_layout(const ClusterGrid& grid, const SuperClusterLayout& layout) {
    ASSERT_EQ(static_cast<int>(layout.cpu_cluster.size()), layout.num_super * gpu::kClustersPerSuper);
    // Every grid cluster exactly once, and the two maps are inverse.
    std::vector<int> seen(grid.num_i_clusters(), 0);
    for (std::size_t g = 0; g < layout.cpu_cluster.size(); ++g) {
        const int c = layout.cpu_cluster[g];
        if (c < 0) continue;
        ++seen[c];
        EXPECT_EQ(layout.gpu_cluster[c], static_cast<int>(g));
    }
    for (int c = 0; c < grid.num_i_clusters(); ++c) EXPECT_EQ(seen[c], 1) << "grid cluster " << c;
    // A super-cluster spans at most 2 x 2 columns, 2 clusters of each.
    for (int s = 0; s < layout.num_super; ++s) {
        std::set<int> xs, ys;
        std::vector<int> per_column(grid.ncx() * grid.ncy(), 0);
        for (int k = 0; k < gpu::kClustersPerSuper; ++k) {
            const int c = layout.cpu_cluster[s * gpu::kClustersPerSuper + k];
            if (c < 0) continue;
            const int col = grid.i_cluster_column()[c];
            xs.insert(col % grid.ncx());
            ys.insert(col / grid.ncx());
            ++per_column[col];
        }
        EXPECT_LE(xs.size(), 2u);
        EXPECT_LE(ys.size(), 2u);
        for (int n : per_column) EXPECT_LE(n, 2);
    }
}

void check_masks(const GpuPairList& list) {
    std::set<std::pair<int, int>> entries;
    for (const gpu::Sci& s : list.sci) {
        EXPECT_TRUE(entries.insert({s.sci, s.shift}).second) << "Sci (" << s.sci << ", " << s.shift << ") twice";
        ASSERT_LT(s.cj4_begin, s.cj4_end);
        std::set<int> js;
        for (int g = s.cj4_begin; g < s.cj4_end; ++g)
            for (int h = 0; h < gpu::kSplit; ++h) {
                const gpu::Imei& im = list.cj4[g].imei[h];
                ASSERT_GE(im.excl_ind, 0);
                ASSERT_LT(im.excl_ind, static_cast<int>(list.masks.size()));
                const gpu::PairMasks& m = list.masks[im.excl_ind];
                for (int bit = 0; bit < 32; ++bit) {
                    std::uint32_t any = 0;
                    for (int w = 0; w < gpu::kMaskWords; ++w) {
                        const bool on = (m.interact[w] >> bit) & 1u, excl = (m.excluded[w] >> bit) & 1u;
                        EXPECT_FALSE(on && excl) << "a pair both interacting and excluded";
                        any |= on || excl;
                        // Bits of pairs the imask skips stay canonical (interact 1, excluded 0).
                        if (!((im.imask >> bit) & 1u)) EXPECT_TRUE(on && !excl);
                    }
                    if ((im.imask >> bit) & 1u) EXPECT_TRUE(any) << "imask bit " << bit << " without a pair";
                }
            }
        for (int g = s.cj4_begin; g < s.cj4_end; ++g)
            for (int jm = 0; jm < gpu::kJGroupSize; ++jm) {
                const std::uint32_t byte = 0xffu << (jm * gpu::kClustersPerSuper);
                if ((list.cj4[g].imei[0].imask | list.cj4[g].imei[1].imask) & byte)
                    EXPECT_TRUE(js.insert(list.cj4[g].cj[jm]).second) << "j-cluster twice in one Sci";
            }
    }
    EXPECT_EQ(list.masks.size() >= 1, true);
    for (int w = 0; w < gpu::kMaskWords; ++w) {
        EXPECT_EQ(list.masks[0].interact[w], gpu::kAllBits);
        EXPECT_EQ(list.masks[0].excluded[w], 0u);
    }
}

// Distance of a listed pair at its shift (j + shift against i), atoms wrapped in the box.
double listed_r2(const System& sys, int a, int b, int shift) {
    const int s[3] = {shift % kShiftsPerDim - kShiftRange, shift / kShiftsPerDim % kShiftsPerDim - kShiftRange,
                      shift / (kShiftsPerDim * kShiftsPerDim) - kShiftRange};
    double r2 = 0;
    for (int k = 0; k < 3; ++k) {
        const double d = sys.positions[a][k] - (sys.positions[b][k] + s[k] * sys.box.lengths[k]);
        r2 += d * d;
    }
    return r2;
}

// Every atom pair within rlist once (interacting, or excluded when the topology
// says so). A cluster list may also hold a pair's far image (beyond rlist, its
// clusters' bounding boxes within it); those do not count.
void check_pairs_once(const System& sys, const MdRunner& md, const std::vector<gpu::SlotPair>& pairs, double rlist) {
    const auto& order = md.grid().order();
    std::vector<std::tuple<int, int, bool>> atoms;
    for (const gpu::SlotPair& p : pairs) {
        const int a = order[p.i_slot], b = order[p.j_slot];
        ASSERT_TRUE(a >= 0 && b >= 0) << "a padding slot in the list";
        if (listed_r2(sys, a, b, p.shift) < rlist * rlist) atoms.emplace_back(std::min(a, b), std::max(a, b), p.excluded);
    }
    std::sort(atoms.begin(), atoms.end());
    for (std::size_t k = 1; k < atoms.size(); ++k)
        ASSERT_FALSE(std::get<0>(atoms[k]) == std::get<0>(atoms[k - 1]) && std::get<1>(atoms[k]) == std::get<1>(atoms[k - 1]))
            << "pair " << std::get<0>(atoms[k]) << "-" << std::get<1>(atoms[k]) << " listed twice";
    long within = 0;
    for (int a = 0; a < static_cast<int>(sys.natoms()); ++a)
        for (int b = a + 1; b < static_cast<int>(sys.natoms()); ++b) {
            if (min_image_r2(sys, a, b) >= rlist * rlist) continue;
            ++within;
            const bool excluded = !sys.exclusions.empty() &&
                                  std::binary_search(sys.exclusions[a].begin(), sys.exclusions[a].end(), b);
            const auto it = std::lower_bound(atoms.begin(), atoms.end(), std::make_tuple(a, b, false));
            ASSERT_TRUE(it != atoms.end() && std::get<0>(*it) == a && std::get<1>(*it) == b)
                << "pair " << a << "-" << b << " within rlist is not listed";
            EXPECT_EQ(std::get<2>(*it), excluded) << "pair " << a << "-" << b;
        }
    EXPECT_GT(within, 0);
}

void check_system(System sys, double rlist) {
    std::unique_ptr<MdRunner> keep;
    MdRunner* md = nullptr;
    const Built b = build(sys, rlist, md, keep);
    check_layout(md->grid(), b.layout);
    check_masks(b.list);
    const auto cpu = gpu::expand_pairs(md->outer_list());
    const auto gpu_pairs = gpu::expand_pairs(b.list, b.layout);
    EXPECT_EQ(cpu.size(), gpu_pairs.size());
    EXPECT_TRUE(cpu == gpu_pairs) << "the GPU list's pairs differ from the CPU list's";
    check_pairs_once(sys, *md, gpu_pairs, rlist);
    EXPECT_GT(b.list.masks.size(), 1u);  // diagonal and padded entries need their own masks
}

// The force kernel's loop nest and indexing (nbnxm_gpu.cu: block = Sci entry,
// thread (ia, ja), warp half ja / 4, mask word (ja % 4) * 8 + ia, i-atoms shifted
// by minus the shift vector) replayed on the host over the GPU list with
// pair_math.h, against the CPU kernels' forces and energies on the same list.
void check_kernel_indexing(System sys, double rlist) {
    std::unique_ptr<MdRunner> keep;
    MdRunner* md = nullptr;
    const Built b = build(sys, rlist, md, keep);
    const EffectiveConfig cfg = resolve_config(sys, [] {
        RunConfig rc;
        rc.cluster = ClusterShape::k8x4;
        rc.simd = SimdLevel::None;
        rc.threads = 1;
        return rc;
    }(), RunControl{});
    const ForceEnergies cpu = md->compute_nonbonded(EnergyOutput::Yes);
    const SortedState& st = md->state();
    const auto& order = md->grid().order();
    float shift[kNumShifts][3];
    fill_shift_table(sys.box, shift);
    const double q_scale = std::sqrt(units::kCoulomb / sys.epsilon_r);
    const int nslots = b.layout.num_gpu_slots();
    std::vector<std::array<float, 4>> xq(nslots, {-1e4f, -1e4f, -1e4f, 0.0f});
    std::vector<int> type(nslots, 0);
    for (int g = 0; g < nslots; ++g) {
        const int c = b.layout.cpu_slot(g);
        if (c < 0 || order[c] < 0) continue;
        xq[g] = {static_cast<float>(st.x[c]), static_cast<float>(st.y[c]), static_cast<float>(st.z[c]),
                 static_cast<float>(sys.charge[order[c]] * q_scale)};
        type[g] = sys.type[order[c]];
    }
    const double rc = cfg.rc;
    pair_math::PairConstants k{};
    k.rc2 = static_cast<float>(rc * rc);
    k.rc_inv6 = static_cast<float>(1.0 / std::pow(rc, 6));
    k.rc_inv12 = k.rc_inv6 * k.rc_inv6;
    k.beta = cfg.pme ? static_cast<float>(cfg.ewald_beta) : 0.0f;
    k.ewald_shift = cfg.pme ? static_cast<float>(std::erfc(cfg.ewald_beta * rc) / rc) : 0.0f;
    std::vector<double> f(3 * nslots, 0.0);
    double e_lj = 0, e_coul = 0;
    for (const gpu::Sci& s : b.list.sci)
        for (int ja = 0; ja < gpu::kClusterSize; ++ja)
            for (int ia = 0; ia < gpu::kClusterSize; ++ia) {
                const int half = ja / gpu::kHalfClusterSize, lane = (ja % gpu::kHalfClusterSize) * gpu::kClusterSize + ia;
                for (int g = s.cj4_begin; g < s.cj4_end; ++g) {
                    const gpu::Cj4& group = b.list.cj4[g];
                    const std::uint32_t imask = group.imei[half].imask;
                    const gpu::PairMasks& m = b.list.masks[group.imei[half].excl_ind];
                    for (int jm = 0; jm < gpu::kJGroupSize; ++jm)
                        for (int c = 0; c < gpu::kClustersPerSuper; ++c) {
                            const int bit = jm * gpu::kClustersPerSuper + c;
                            if (!((imask >> bit) & 1u)) continue;
                            const int ai = s.sci * gpu::kSuperSize + c * gpu::kClusterSize + ia;
                            const int aj = group.cj[jm] * gpu::kClusterSize + ja;
                            float d[3];
                            for (int x = 0; x < 3; ++x) d[x] = (xq[ai][x] - shift[s.shift][x]) - xq[aj][x];
                            const float r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
                            const float c6 = static_cast<float>(6.0 * sys.lj.c6_at(type[ai], type[aj]));
                            const float c12 = static_cast<float>(12.0 * sys.lj.c12_at(type[ai], type[aj]));
                            const pair_math::PairTerms t =
                                pair_math::pair_terms(r2, c6, c12, xq[ai][3] * xq[aj][3], (m.interact[lane] >> bit) & 1u,
                                                      (m.excluded[lane] >> bit) & 1u, k);
                            for (int x = 0; x < 3; ++x) {
                                f[3 * ai + x] += t.f_over_r * d[x];
                                f[3 * aj + x] -= t.f_over_r * d[x];
                            }
                            e_lj += t.v_lj;
                            e_coul += t.v_coul;
                        }
                }
            }
    double q2 = 0;
    for (double q : sys.charge) q2 += q * q;
    const double self = cfg.pme ? -units::kCoulomb / sys.epsilon_r * cfg.ewald_beta / std::sqrt(M_PI) * q2 : 0.0;
    EXPECT_NEAR(e_lj, cpu.lj, 1e-4 * std::abs(cpu.lj) + 1e-6);
    EXPECT_NEAR(e_coul + self, cpu.coulomb_sr, 1e-4 * std::abs(cpu.coulomb_sr) + 1e-6);
    double fmax = 0;
    for (std::size_t s = 0; s < st.fx.size(); ++s)
        fmax = std::max({fmax, std::abs(double(st.fx[s])), std::abs(double(st.fy[s])), std::abs(double(st.fz[s]))});
    for (int g = 0; g < nslots; ++g) {
        const int c = b.layout.cpu_slot(g);
        if (c < 0 || order[c] < 0) continue;
        ASSERT_NEAR(f[3 * g], st.fx[c], 2e-4 * fmax) << "slot " << c;
        ASSERT_NEAR(f[3 * g + 1], st.fy[c], 2e-4 * fmax) << "slot " << c;
        ASSERT_NEAR(f[3 * g + 2], st.fz[c], 2e-4 * fmax) << "slot " << c;
    }
}

TEST(GpuPairList, KernelIndexingReproducesCpuForcesOnWaterWithIons) { check_kernel_indexing(small_water(0.5), 1.0); }

TEST(GpuPairList, KernelIndexingReproducesCpuForcesOnLj) { check_kernel_indexing(testing::lj_system(1500), 0.95); }

TEST(GpuPairList, WaterHoldsTheCpuListsPairsExactlyOnce) { check_system(small_water(0.0), 1.0); }

TEST(GpuPairList, WaterWithIonsHoldsTheCpuListsPairsExactlyOnce) { check_system(small_water(0.5), 1.0); }

TEST(GpuPairList, LjFluidHoldsTheCpuListsPairsExactlyOnce) {
    System sys = testing::lj_system(1500);
    check_system(sys, 0.95);
}

// Threads build contiguous super-cluster ranges and concatenate them: the list is
// the same, entry for entry, whatever the thread count.
TEST(GpuPairList, ThreadCountDoesNotChangeTheList) {
    System sys = small_water(0.5);
    MdRunner* md = nullptr;
    std::unique_ptr<MdRunner> keep;
    const Built b = build(sys, 1.0, md, keep);
    for (int threads : {1, 2, 7}) {
        GpuPairList other;
        gpu::build_gpu_pair_list(md->outer_list(), b.layout, other, threads);
        ASSERT_EQ(other.sci.size(), b.list.sci.size()) << threads << " threads";
        ASSERT_EQ(other.cj4.size(), b.list.cj4.size()) << threads << " threads";
        ASSERT_EQ(other.masks.size(), b.list.masks.size()) << threads << " threads";
        EXPECT_EQ(std::memcmp(other.sci.data(), b.list.sci.data(), b.list.sci.size() * sizeof(gpu::Sci)), 0);
        EXPECT_EQ(std::memcmp(other.cj4.data(), b.list.cj4.data(), b.list.cj4.size() * sizeof(gpu::Cj4)), 0);
        EXPECT_EQ(std::memcmp(other.masks.data(), b.list.masks.data(), b.list.masks.size() * sizeof(gpu::PairMasks)), 0);
    }
}

TEST(GpuPairList, RefusesOtherShapes) {
    System sys = testing::lj_system(500);
    RunConfig rc;
    rc.cluster = ClusterShape::k4x4;
    rc.threads = 1;
    rc.simd = SimdLevel::None;
    MdRunner md(sys, resolve_config(sys, rc, RunControl{}));
    md.search();
    EXPECT_THROW(gpu::group_super_clusters(md.grid()), std::invalid_argument);
    SuperClusterLayout layout;
    GpuPairList out;
    EXPECT_THROW(gpu::build_gpu_pair_list(md.outer_list(), layout, out), std::invalid_argument);
}

}  // namespace
}  // namespace mdcore
