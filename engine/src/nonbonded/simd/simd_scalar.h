#pragma once
// Scalar "SIMD" backend: width 1, used where no vector ISA is available and as the
// plain twin of the vector backends in tests.
#include <bit>
#include <cmath>
#include <cstdint>

namespace mdcore::simd {

struct Scalar {
    static constexpr int width = 1;
    static constexpr const char* name = "none";
    using F = float;
    using I = std::int32_t;
    using B = bool;

    static F zero() { return 0.0f; }
    static F set1(float v) { return v; }
    static F load(const float* p) { return *p; }
    static I load_int(const std::int32_t* p) { return *p; }
    static I add_int(I a, I b) { return a + b; }
    static F gather(const float* base, I idx) { return base[idx]; }
    // Lanes of register r hold pairs r*W .. r*W+W-1; with W <= M this is a plain load.
    template <int M> static F load_j(const float* p) { return *p; }
    template <int M> static I load_j_int(const std::int32_t* p) { return *p; }
    // Register (pair) r of an i-cluster's pair layout: i-atom r / M.
    template <int N, int M> static F load_i(const float* p, int r) { return p[r / M]; }
    static F add(F a, F b) { return a + b; }
    static F sub(F a, F b) { return a - b; }
    static F mul(F a, F b) { return a * b; }
    static F max(F a, F b) { return a > b ? a : b; }
    static F fma(F a, F b, F c) { return a * b + c; }
    static F fnma(F a, F b, F c) { return c - a * b; }
    static F fms(F a, F b, F c) { return a * b - c; }
    static B lt(F a, F b) { return a < b; }
    static B land(B a, B b) { return a && b; }
    static B lor(B a, B b) { return a || b; }
    static B mask_from_bits(std::uint32_t bits, int r) { return (bits >> r) & 1u; }
    static F select(B m, F v) { return m ? v : 0.0f; }
    static F rcp(F v) { return 1.0f / v; }
    static F rsqrt(F v) { return 1.0f / std::sqrt(v); }
    static float hsum(F v) { return v; }
    static int popcount(B m) { return m ? 1 : 0; }
    static void store(float* p, F v) { *p = v; }
    static void sub_from(F v, float* out) { *out -= v; }
    static void sub_half_from(F v, float* out) { *out -= v; }
    // out[0..M) -= sum over the M-lane groups of v (only used with W >= M).
    template <int M> static void fold_sub(F v, float* out) { static_assert(M == 1); out[0] -= v; }
    // dst[g] += sum of lane group g (M lanes each; only used with W >= M).
    template <int M> static void add_group_sums(F v, float* dst) { static_assert(M == 1); dst[0] += v; }
};

}  // namespace mdcore::simd
