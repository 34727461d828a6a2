#pragma once
// The widest SIMD level this process may use, below what the CPU reports:
// MDCORE_SIMD_CAP=none|avx2|avx512 sets it, and under valgrind it is avx2 unless
// the variable says otherwise (valgrind 3.19 emulates no AVX-512, and its CPUID
// can still claim it on some hosts). Auto resolution, explicit --simd requests
// and available_simd_levels() all respect it, so instruction counts under
// callgrind come from the AVX2 (or scalar) kernels of the default build.
#include <string>

#include "mdcore/run_config.h"

namespace mdcore {

inline constexpr const char* kSimdCapVariable = "MDCORE_SIMD_CAP";

struct SimdCap {
    SimdLevel level = SimdLevel::Avx512;  // no cap
    std::string reason;                   // "" when uncapped, else why (for error messages)
};

// The cap from the variable's value (nullptr or "" = unset) and whether the process
// runs under valgrind. Throws std::invalid_argument naming the variable on a bad value.
SimdCap simd_cap_from(const char* variable_value, bool under_valgrind);

// This process's cap (read once).
const SimdCap& simd_cap();

// Whether `level` is at or below the cap (None always is).
bool within_simd_cap(SimdLevel level, const SimdCap& cap);

}  // namespace mdcore
