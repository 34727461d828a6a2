// The SIMD cap: MDCORE_SIMD_CAP and valgrind keep the engine below AVX-512 where
// its instructions cannot run (callgrind), whatever the CPU reports.
#include <gtest/gtest.h>

#include <stdexcept>

#include "mdcore/engine.h"
#include "nonbonded/kernel_dispatch.h"
#include "nonbonded/simd_cap.h"

namespace mdcore {
namespace {

TEST(SimdCap, UnsetMeansNoCap) {
    const SimdCap cap = simd_cap_from(nullptr, false);
    EXPECT_EQ(cap.level, SimdLevel::Avx512);
    EXPECT_TRUE(cap.reason.empty());
    EXPECT_TRUE(within_simd_cap(SimdLevel::Avx512, cap));
    EXPECT_EQ(simd_cap_from("", false).level, SimdLevel::Avx512);
}

TEST(SimdCap, ValgrindCapsAtAvx2AndTheVariableWins) {
    const SimdCap under_valgrind = simd_cap_from(nullptr, true);
    EXPECT_EQ(under_valgrind.level, SimdLevel::Avx2);
    EXPECT_NE(under_valgrind.reason.find("valgrind"), std::string::npos);
    EXPECT_FALSE(within_simd_cap(SimdLevel::Avx512, under_valgrind));
    EXPECT_TRUE(within_simd_cap(SimdLevel::Avx2, under_valgrind));
    EXPECT_TRUE(within_simd_cap(SimdLevel::None, under_valgrind));
    EXPECT_FALSE(within_simd_cap(SimdLevel::Auto, under_valgrind));  // not a level
    const SimdCap scalar = simd_cap_from("none", true);
    EXPECT_EQ(scalar.level, SimdLevel::None);
    EXPECT_EQ(scalar.reason, "MDCORE_SIMD_CAP=none");
    EXPECT_FALSE(within_simd_cap(SimdLevel::Avx2, scalar));
}

TEST(SimdCap, ABadValueNamesTheVariable) {
    for (const char* bad : {"avx3", "auto", "AVX2"}) {
        try {
            simd_cap_from(bad, false);
            ADD_FAILURE() << bad << " accepted";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find("MDCORE_SIMD_CAP='" + std::string(bad) + "'"), std::string::npos)
                << e.what();
        }
    }
}

TEST(SimdCap, ThisProcessResolvesAutoWithinItsCap) {
    // The test runs under whatever cap its environment sets (none normally;
    // MDCORE_SIMD_CAP=avx2 ctest ... checks the capped path).
    const SimdLevel resolved = resolve_simd_level(SimdLevel::Auto);
    EXPECT_TRUE(within_simd_cap(resolved, simd_cap()));
    for (SimdLevel l : available_simd_levels()) EXPECT_TRUE(within_simd_cap(l, simd_cap())) << to_string(l);
    if (!within_simd_cap(SimdLevel::Avx512, simd_cap()) && simd_level_compiled(SimdLevel::Avx512)) {
        EXPECT_THROW(resolve_simd_level(SimdLevel::Avx512), std::invalid_argument);
    }
}

}  // namespace
}  // namespace mdcore
