#pragma once
// AVX2 + FMA backend: 8 float lanes, masks as all-ones/zero lane vectors.
#include <immintrin.h>

#include <cstdint>

namespace mdcore::simd {

struct Avx2 {
    static constexpr int width = 8;
    static constexpr const char* name = "avx2";
    using F = __m256;
    using I = __m256i;
    using B = __m256;

    static F zero() { return _mm256_setzero_ps(); }
    static F set1(float v) { return _mm256_set1_ps(v); }
    static F load(const float* p) { return _mm256_load_ps(p); }
    static I load_int(const std::int32_t* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }
    static I add_int(I a, I b) { return _mm256_add_epi32(a, b); }
    static F gather(const float* base, I idx) { return _mm256_i32gather_ps(base, idx, 4); }
    template <int M> static F load_j(const float* p) {
        static_assert(M == 4 || M == 8);
        if constexpr (M == 4) return _mm256_broadcast_ps(reinterpret_cast<const __m128*>(p));
        else return _mm256_loadu_ps(p);
    }
    template <int M> static I load_j_int(const std::int32_t* p) {
        static_assert(M == 4 || M == 8);
        if constexpr (M == 4) return _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
        else return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    }
    // Register r of an i-cluster's pair layout: lane l holds p[(8 r + l) / M] (N <= 8
    // atoms, one masked load and one permute).
    template <int N, int M> static F load_i(const float* p, int r) {
        static_assert(N <= 8 && (M == 4 || M == 8));
        const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        const F atoms = _mm256_maskload_ps(p, _mm256_cmpgt_epi32(_mm256_set1_epi32(N), lane));
        const __m256i atom = _mm256_srli_epi32(_mm256_add_epi32(lane, _mm256_set1_epi32(8 * r)), M == 4 ? 2 : 3);
        return _mm256_permutevar8x32_ps(atoms, atom);
    }
    static F add(F a, F b) { return _mm256_add_ps(a, b); }
    static F sub(F a, F b) { return _mm256_sub_ps(a, b); }
    static F mul(F a, F b) { return _mm256_mul_ps(a, b); }
    static F max(F a, F b) { return _mm256_max_ps(a, b); }
    static F fma(F a, F b, F c) { return _mm256_fmadd_ps(a, b, c); }
    static F fnma(F a, F b, F c) { return _mm256_fnmadd_ps(a, b, c); }
    static F fms(F a, F b, F c) { return _mm256_fmsub_ps(a, b, c); }
    static B lt(F a, F b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
    static B land(B a, B b) { return _mm256_and_ps(a, b); }
    static B lor(B a, B b) { return _mm256_or_ps(a, b); }
    // Lane l of register r is on when bit r*8+l of bits is set.
    static B mask_from_bits(std::uint32_t bits, int r) {
        const __m256i lane_bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
        const __m256i b = _mm256_set1_epi32(static_cast<int>((bits >> (8 * r)) & 0xffu));
        return _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(b, lane_bits), lane_bits));
    }
    static F select(B m, F v) { return _mm256_and_ps(m, v); }
    static F rcp(F v) {
        // 12-bit estimate + one Newton-Raphson step: ~23 bits.
        const F r = _mm256_rcp_ps(v);
        return _mm256_mul_ps(r, _mm256_fnmadd_ps(v, r, _mm256_set1_ps(2.0f)));
    }
    static F rsqrt(F v) {
        const F r = _mm256_rsqrt_ps(v);  // 12 bits; one Newton-Raphson step
        // r (1.5 - 0.5 v r^2) as (-0.5 r)(v r r - 3): 4 operations, not 5.
        const F v_r = _mm256_mul_ps(v, r);
        return _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(-0.5f), r), _mm256_fmadd_ps(v_r, r, _mm256_set1_ps(-3.0f)));
    }
    static float hsum(F v) {
        __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
        s = _mm_add_ps(s, _mm_movehl_ps(s, s));
        s = _mm_add_ss(s, _mm_movehdup_ps(s));
        return _mm_cvtss_f32(s);
    }
    static int popcount(B m) { return __builtin_popcount(_mm256_movemask_ps(m)); }
    static void store(float* p, F v) { _mm256_store_ps(p, v); }
    // out[0, 8) -= v (32-byte aligned).
    static void sub_from(F v, float* out) { _mm256_store_ps(out, _mm256_sub_ps(_mm256_load_ps(out), v)); }
    // out[0, 4) -= the sum of v's halves (16-byte aligned).
    static void sub_half_from(F v, float* out) {
        const __m128 h = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
        _mm_store_ps(out, _mm_sub_ps(_mm_load_ps(out), h));
    }
    template <int M> static void fold_sub(F v, float* out) {
        static_assert(M == 4 || M == 8);
        if constexpr (M == 4) {
            const __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
            _mm_storeu_ps(out, _mm_sub_ps(_mm_loadu_ps(out), s));
        } else {
            _mm256_storeu_ps(out, _mm256_sub_ps(_mm256_loadu_ps(out), v));
        }
    }
    // dst[g] += sum of lane group g (M lanes each): the i-force of each i-atom.
    template <int M> static void add_group_sums(F v, float* dst) {
        static_assert(M == 4 || M == 8);
        if constexpr (M == 4) {
            __m128 s = _mm_hadd_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
            s = _mm_hadd_ps(s, s);  // [sum lo, sum hi, sum lo, sum hi]
            const __m128 old = _mm_castpd_ps(_mm_load_sd(reinterpret_cast<const double*>(dst)));
            _mm_store_sd(reinterpret_cast<double*>(dst), _mm_castps_pd(_mm_add_ps(old, s)));
        } else {
            dst[0] += hsum(v);
        }
    }
};

}  // namespace mdcore::simd
