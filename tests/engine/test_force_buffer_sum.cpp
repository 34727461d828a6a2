// The threads' force-buffer sum (nonbonded/force_buffer_sum.h) against a plain
// per-slot sum over KernelOutput's layout, in the same order of additions.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <memory>
#include <string>
#include <random>
#include <vector>

#include "mdcore/engine.h"
#include "nonbonded/force_buffer_sum.h"
#include "nonbonded/kernel_args.h"
#include "nonbonded/nonbonded_force.h"
#include "pairlist/cluster_grid.h"
#include "pairlist/cluster_pair_search.h"
#include "pme/pme.h"
#include "test_systems.h"

namespace {

using mdcore::force_buffer_index;

struct Case {
    int m, copies, threads;
};

class ForceBufferSum : public ::testing::TestWithParam<Case> {};

TEST_P(ForceBufferSum, MatchesThePlainPerSlotSumBitForBit) {
    const Case c = GetParam();
    const std::size_t clusters = 37, m = static_cast<std::size_t>(c.m);
    const std::size_t slots = clusters * m, dim = slots * static_cast<std::size_t>(c.copies);
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> value(-100.0f, 100.0f);
    std::vector<std::vector<float>> buffers(c.threads, std::vector<float>(3 * dim));
    std::vector<const float*> pointers;
    for (auto& b : buffers) {
        for (float& v : b) v = value(rng);
        pointers.push_back(b.data());
    }
    const mdcore::ForceBufferSet set{pointers.data(), c.threads, dim, c.copies, c.m};
    std::vector<float> f(3 * slots, -1.0f);
    // Two ranges, as two threads would split them; the last cluster is left out.
    sum_force_buffers(set, 0, 20, f.data(), f.data() + slots, f.data() + 2 * slots);
    sum_force_buffers(set, 20, clusters - 1, f.data(), f.data() + slots, f.data() + 2 * slots);
    for (int d = 0; d < 3; ++d)
        for (std::size_t s = 0; s < slots; ++s) {
            const float got = f[d * slots + s];
            if (s >= (clusters - 1) * m) {
                EXPECT_EQ(got, -1.0f) << "slot " << s << " is outside both ranges";
                continue;
            }
            float want = 0.0f;
            for (int u = 0; u < c.threads; ++u)
                for (int k = 0; k < c.copies; ++k)
                    want += buffers[u][d * dim + force_buffer_index(s, m, c.copies) + k * m];
            ASSERT_EQ(got, want) << "dimension " << d << " slot " << s;
        }
}

INSTANTIATE_TEST_SUITE_P(Layouts, ForceBufferSum,
                         ::testing::Values(Case{1, 1, 1}, Case{4, 1, 2}, Case{4, 2, 1}, Case{4, 2, 3}, Case{8, 2, 2},
                                           Case{8, 1, 3}, Case{2, 2, 2}, Case{3, 2, 2}),
                         [](const auto& info) {
                             return "m" + std::to_string(info.param.m) + "_copies" +
                                    std::to_string(info.param.copies) + "_threads" +
                                    std::to_string(info.param.threads);
                         });

// NonbondedForce clears only the blocks of its thread buffers that the last call
// wrote (KernelOutput::touched). Calls on other lists must still give exactly a
// fresh object's forces: a stale block would add a previous call's forces.
struct Forces {
    std::vector<float> x, y, z;
    bool operator==(const Forces&) const = default;
};

Forces forces_of(mdcore::NonbondedForce& nb, const mdcore::PairList& list) {
    const std::size_t n = nb.x().size();
    Forces f{std::vector<float>(n), std::vector<float>(n), std::vector<float>(n)};
    nb.compute(list, mdcore::EnergyOutput::No, f.x.data(), f.y.data(), f.z.data());
    return f;
}

void expect_reused_buffers_match_fresh_ones(const mdcore::System& sys, double ewald_beta) {
    using namespace mdcore;
    for (ClusterShape shape : {ClusterShape::k4x8, ClusterShape::k8x4, ClusterShape::k4x4}) {
        SCOPED_TRACE(std::string(to_string(shape)));
        ClusterGrid grid;
        grid.build(sys.box, sys.positions, cluster_i_size(shape), cluster_j_size(shape), 2);
        PairSearchWork work;
        PairList full;
        search_cluster_pairs(grid, 1.1 * sys.rc, sys.exclusions, 2, work, full);
        // Other lists over the same atoms: the second half of the i-entries (the
        // first thread's blocks of the full list are then stale), and every third.
        PairList second_half = full, thirds = full;
        second_half.i.erase(second_half.i.begin(), second_half.i.begin() + full.i.size() / 2);
        thirds.i.clear();
        for (std::size_t e = 0; e < full.i.size(); e += 3) thirds.i.push_back(full.i[e]);
        auto make = [&] {
            auto nb = std::make_unique<NonbondedForce>(sys, shape, available_simd_levels().back(), 2, sys.rc,
                                                       ewald_beta);
            nb->set_thread_balance(false);
            nb->set_order(grid.order());
            auto wrapped = [&](int a, int d) {
                const double l = sys.box.lengths[d], v = sys.positions[a][d];
                return static_cast<float>(v - l * std::floor(v / l));
            };
            for (std::size_t s = 0; s < grid.order().size(); ++s) {
                const int a = grid.order()[s];
                nb->x()[s] = a < 0 ? -1.0e4f : wrapped(a, 0);
                nb->y()[s] = a < 0 ? -1.0e4f : wrapped(a, 1);
                nb->z()[s] = a < 0 ? -1.0e4f : wrapped(a, 2);
            }
            return nb;
        };
        auto reused = make();
        const Forces first = forces_of(*reused, full);
        for (const PairList* list : {&second_half, &thirds, &full, &thirds}) {
            auto fresh = make();
            EXPECT_TRUE(forces_of(*reused, *list) == forces_of(*fresh, *list)) << list->i.size() << " i-entries";
        }
        EXPECT_TRUE(forces_of(*reused, full) == first);
    }
}

TEST(NonbondedForceBuffers, ReusedAcrossListsGiveAFreshObjectsForcesLj) {
    expect_reused_buffers_match_fresh_ones(mdcore::testing::lj_system(3000), 0.0);
}

TEST(NonbondedForceBuffers, ReusedAcrossListsGiveAFreshObjectsForcesWater) {
    mdcore::WaterSpec spec;
    spec.nwater = 500;
    spec.relax_steps = 0;
    const mdcore::System sys = mdcore::make_water_system(spec);
    expect_reused_buffers_match_fresh_ones(sys, mdcore::ewald_beta(sys.rc, 1e-5));
}

}  // namespace
