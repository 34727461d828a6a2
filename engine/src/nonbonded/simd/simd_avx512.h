#pragma once
// AVX-512 (F, VL, DQ) backend: 16 float lanes, k-register masks.
#include <immintrin.h>

#include <cstdint>

namespace mdcore::simd {

struct Avx512 {
    static constexpr int width = 16;
    static constexpr const char* name = "avx512";
    using F = __m512;
    using I = __m512i;
    using B = __mmask16;

    static F zero() { return _mm512_setzero_ps(); }
    static F set1(float v) { return _mm512_set1_ps(v); }
    static F load(const float* p) { return _mm512_load_ps(p); }
    static I load_int(const std::int32_t* p) { return _mm512_load_si512(p); }
    static I add_int(I a, I b) { return _mm512_add_epi32(a, b); }
    static F gather(const float* base, I idx) { return _mm512_i32gather_ps(idx, base, 4); }
    template <int M> static F load_j(const float* p) {
        static_assert(M == 4 || M == 8);
        if constexpr (M == 4) return _mm512_broadcast_f32x4(_mm_loadu_ps(p));
        else return _mm512_broadcast_f32x8(_mm256_loadu_ps(p));
    }
    template <int M> static I load_j_int(const std::int32_t* p) {
        static_assert(M == 4 || M == 8);
        if constexpr (M == 4) return _mm512_broadcast_i32x4(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
        else return _mm512_broadcast_i32x8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
    }
    // Register r of an i-cluster's pair layout: lane l holds p[(16 r + l) / M], so
    // the N atoms (N <= 16) take one masked load and one permute, not 16 inserts.
    template <int N, int M> static F load_i(const float* p, int r) {
        static_assert(N <= 16 && (M == 4 || M == 8));
        const F atoms = _mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << N) - 1), p);
        const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        const __m512i atom = _mm512_srli_epi32(_mm512_add_epi32(lane, _mm512_set1_epi32(16 * r)), M == 4 ? 2 : 3);
        return _mm512_permutexvar_ps(atom, atoms);
    }
    static F add(F a, F b) { return _mm512_add_ps(a, b); }
    static F sub(F a, F b) { return _mm512_sub_ps(a, b); }
    static F mul(F a, F b) { return _mm512_mul_ps(a, b); }
    static F max(F a, F b) { return _mm512_max_ps(a, b); }
    static F fma(F a, F b, F c) { return _mm512_fmadd_ps(a, b, c); }
    static F fnma(F a, F b, F c) { return _mm512_fnmadd_ps(a, b, c); }
    static F fms(F a, F b, F c) { return _mm512_fmsub_ps(a, b, c); }
    static B lt(F a, F b) { return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ); }
    static B land(B a, B b) { return static_cast<B>(a & b); }
    static B lor(B a, B b) { return static_cast<B>(a | b); }
    static B mask_from_bits(std::uint32_t bits, int r) { return static_cast<B>(bits >> (16 * r)); }
    static F select(B m, F v) { return _mm512_maskz_mov_ps(m, v); }
    static F rcp(F v) {
        // 14-bit estimate + one Newton-Raphson step: full float precision.
        const F r = _mm512_rcp14_ps(v);
        return _mm512_mul_ps(r, _mm512_fnmadd_ps(v, r, _mm512_set1_ps(2.0f)));
    }
    static F rsqrt(F v) {
        const F r = _mm512_rsqrt14_ps(v);  // 14 bits; one Newton-Raphson step
        // r (1.5 - 0.5 v r^2) as (-0.5 r)(v r r - 3): 4 operations, not 5.
        const F v_r = _mm512_mul_ps(v, r);
        return _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(-0.5f), r), _mm512_fmadd_ps(v_r, r, _mm512_set1_ps(-3.0f)));
    }
    static float hsum(F v) { return _mm512_reduce_add_ps(v); }
    static int popcount(B m) { return __builtin_popcount(static_cast<unsigned>(m)); }
    static void store(float* p, F v) { _mm512_store_ps(p, v); }
    // out[0, 16) -= v (64-byte aligned).
    static void sub_from(F v, float* out) { _mm512_store_ps(out, _mm512_sub_ps(_mm512_load_ps(out), v)); }
    // out[0, 8) -= the sum of v's halves (32-byte aligned).
    static void sub_half_from(F v, float* out) {
        const __m256 h = _mm256_add_ps(_mm512_castps512_ps256(v), _mm512_extractf32x8_ps(v, 1));
        _mm256_store_ps(out, _mm256_sub_ps(_mm256_load_ps(out), h));
    }
    template <int M> static void fold_sub(F v, float* out) {
        static_assert(M == 4 || M == 8);
        if constexpr (M == 4) {
            // Halve twice (two extracts and two adds, not three of each): the fold
            // runs once per j-entry and dimension, on the shuffle port.
            const __m256 h = _mm256_add_ps(_mm512_castps512_ps256(v), _mm512_extractf32x8_ps(v, 1));
            const __m128 s = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
            _mm_storeu_ps(out, _mm_sub_ps(_mm_loadu_ps(out), s));
        } else {
            const __m256 s = _mm256_add_ps(_mm512_castps512_ps256(v), _mm512_extractf32x8_ps(v, 1));
            _mm256_storeu_ps(out, _mm256_sub_ps(_mm256_loadu_ps(out), s));
        }
    }
    // dst[g] += sum of lane group g (M lanes each): the i-force of each i-atom.
    template <int M> static void add_group_sums(F v, float* dst) {
        static_assert(M == 4 || M == 8);
        if constexpr (M == 4) {
            // Sum within each 128-bit lane, then gather lane 0 of the four.
            F s = _mm512_add_ps(v, _mm512_permute_ps(v, _MM_SHUFFLE(1, 0, 3, 2)));
            s = _mm512_add_ps(s, _mm512_permute_ps(s, _MM_SHUFFLE(2, 3, 0, 1)));
            const __m128 g = _mm512_castps512_ps128(
                _mm512_permutexvar_ps(_mm512_setr_epi32(0, 4, 8, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), s));
            _mm_storeu_ps(dst, _mm_add_ps(_mm_loadu_ps(dst), g));
        } else {
            const __m256 h = _mm256_hadd_ps(_mm512_castps512_ps256(v), _mm512_extractf32x8_ps(v, 1));
            __m128 s = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
            s = _mm_hadd_ps(s, s);  // [sum lo half, sum hi half, ...]
            const __m128 old = _mm_castpd_ps(_mm_load_sd(reinterpret_cast<const double*>(dst)));
            _mm_store_sd(reinterpret_cast<double*>(dst), _mm_castps_pd(_mm_add_ps(old, s)));
        }
    }
};

}  // namespace mdcore::simd
