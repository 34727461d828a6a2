#include "nonbonded/simd_cap.h"

#include <cstdlib>
#include <stdexcept>

#ifdef MDT_HAVE_VALGRIND_H
#include <valgrind/valgrind.h>
#endif

namespace mdcore {
namespace {

int rank(SimdLevel l) { return l == SimdLevel::Avx512 ? 2 : l == SimdLevel::Avx2 ? 1 : 0; }

bool running_on_valgrind() {
#ifdef MDT_HAVE_VALGRIND_H
    return RUNNING_ON_VALGRIND != 0;
#else
    return false;
#endif
}

}  // namespace

SimdCap simd_cap_from(const char* variable_value, bool under_valgrind) {
    SimdCap cap;
    if (variable_value && *variable_value) {
        const auto level = parse_simd_level(variable_value);
        if (!level || *level == SimdLevel::Auto)
            throw std::invalid_argument(std::string(kSimdCapVariable) + "='" + variable_value +
                                        "' is not a SIMD level (none, avx2 or avx512)");
        cap.level = *level;
        if (cap.level != SimdLevel::Avx512) cap.reason = std::string(kSimdCapVariable) + "=" + variable_value;
    } else if (under_valgrind) {
        cap.level = SimdLevel::Avx2;
        cap.reason = "running under valgrind, which has no AVX-512";
    }
    return cap;
}

const SimdCap& simd_cap() {
    static const SimdCap cap = simd_cap_from(std::getenv(kSimdCapVariable), running_on_valgrind());
    return cap;
}

bool within_simd_cap(SimdLevel level, const SimdCap& cap) {
    return level != SimdLevel::Auto && rank(level) <= rank(cap.level);
}

}  // namespace mdcore
