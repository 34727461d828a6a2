// mdcore against GROMACS 2022.5 (double precision) on the SPC/E water box of
// tests/data/gromacs/water-3nm: rc 1.0 nm, potential shift for LJ and Coulomb,
// PME order 4 on a 32^3 grid, ewald_rtol 1e-5, no dispersion correction.
#include <gtest/gtest.h>

#include "gromacs_reference_check.h"

namespace mdcore {
namespace {

class GromacsReference : public ::testing::TestWithParam<std::pair<ClusterShape, SimdLevel>> {};

TEST_P(GromacsReference, EnergiesAndForcesMatch) {
    RunConfig cfg;
    cfg.cluster = GetParam().first;
    cfg.simd = GetParam().second;
    testing::expect_matches_gromacs_reference(cfg);
}

std::vector<std::pair<ClusterShape, SimdLevel>> cases() {
    std::vector<std::pair<ClusterShape, SimdLevel>> c;
    for (SimdLevel l : available_simd_levels())
        for (ClusterShape s : {ClusterShape::k4x4, ClusterShape::k4x8, ClusterShape::k8x4, ClusterShape::k1x1})
            c.push_back({s, l});
    return c;
}

INSTANTIATE_TEST_SUITE_P(AllKernels, GromacsReference, ::testing::ValuesIn(cases()), [](const auto& info) {
    return "c" + std::string(to_string(info.param.first)) + "_" + std::string(to_string(info.param.second));
});

}  // namespace
}  // namespace mdcore
