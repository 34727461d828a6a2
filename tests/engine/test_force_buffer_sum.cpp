// The threads' force-buffer sum (nonbonded/force_buffer_sum.h) against a plain
// per-slot sum over KernelOutput's layout, in the same order of additions.
#include <gtest/gtest.h>

#include <cstddef>
#include <random>
#include <vector>

#include "nonbonded/force_buffer_sum.h"
#include "nonbonded/kernel_args.h"

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

}  // namespace
