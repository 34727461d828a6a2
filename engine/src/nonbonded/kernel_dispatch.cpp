#include "nonbonded/kernel_dispatch.h"

#include "nonbonded/simd_cap.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace mdcore {

// Each (level, shape) has one translation unit per LJ modifier (kernel_instance.cpp.in).
#define MDT_DECLARE_SHAPE(level, shape)                               \
    void fill_kernels_##level##_##shape##_PotentialShift(KernelSet&); \
    void fill_kernels_##level##_##shape##_ForceSwitch(KernelSet&);    \
    void fill_kernels_##level##_##shape##_PotentialSwitch(KernelSet&);
#define MDT_DECLARE_SHAPES(level) \
    MDT_DECLARE_SHAPE(level, 4x4) \
    MDT_DECLARE_SHAPE(level, 4x8) \
    MDT_DECLARE_SHAPE(level, 8x4)
MDT_DECLARE_SHAPES(scalar)
MDT_DECLARE_SHAPE(scalar, 1x1)
#ifdef MDT_SIMD_AVX2
MDT_DECLARE_SHAPES(avx2)
#endif
#ifdef MDT_SIMD_AVX512
MDT_DECLARE_SHAPES(avx512)
#endif
#undef MDT_DECLARE_SHAPES
#undef MDT_DECLARE_SHAPE

// The whole set of one (level, shape), as an expression.
#define MDT_KERNEL_SET(level, shape)                           \
    [] {                                                       \
        KernelSet set{};                                       \
        fill_kernels_##level##_##shape##_PotentialShift(set);  \
        fill_kernels_##level##_##shape##_ForceSwitch(set);     \
        fill_kernels_##level##_##shape##_PotentialSwitch(set); \
        return set;                                            \
    }()

namespace {

constexpr int kLevels = 3;  // None, Avx2, Avx512
constexpr int kShapes = 4;  // 4x4, 4x8, 8x4, 1x1

int level_index(SimdLevel l) { return l == SimdLevel::Avx512 ? 2 : l == SimdLevel::Avx2 ? 1 : 0; }

// Which levels this build holds: known at compile time, so asking never runs code
// compiled for a level (the fill_kernels_* functions live in translation units
// built with that level's flags, and even filling a table there may use its
// instructions: AVX-512 under valgrind or on an older CPU would die with SIGILL).
constexpr bool kCompiled[kLevels] = {
    true,
#ifdef MDT_SIMD_AVX2
    true,
#else
    false,
#endif
#ifdef MDT_SIMD_AVX512
    true,
#else
    false,
#endif
};

// The kernel sets of one level, made on first use of that level only.
struct LevelKernels {
    KernelSet set[kShapes]{};
    explicit LevelKernels(SimdLevel level) {
        auto fill = [&](KernelSet k44, KernelSet k48, KernelSet k84) {
            set[0] = k44;
            set[1] = k48;
            set[2] = k84;
            // The plain particle list is a reference point, not a SIMD target.
            set[3] = MDT_KERNEL_SET(scalar, 1x1);
        };
        switch (level) {
#ifdef MDT_SIMD_AVX512
            case SimdLevel::Avx512:
                fill(MDT_KERNEL_SET(avx512, 4x4), MDT_KERNEL_SET(avx512, 4x8), MDT_KERNEL_SET(avx512, 8x4));
                break;
#endif
#ifdef MDT_SIMD_AVX2
            case SimdLevel::Avx2:
                fill(MDT_KERNEL_SET(avx2, 4x4), MDT_KERNEL_SET(avx2, 4x8), MDT_KERNEL_SET(avx2, 8x4));
                break;
#endif
            default:
                fill(MDT_KERNEL_SET(scalar, 4x4), MDT_KERNEL_SET(scalar, 4x8), MDT_KERNEL_SET(scalar, 8x4));
                break;
        }
    }
};

// Only called with a level that is compiled, supported and within the cap.
const LevelKernels& kernels_of(SimdLevel level) {
    switch (level) {
        case SimdLevel::Avx512: {
            static const LevelKernels k(SimdLevel::Avx512);
            return k;
        }
        case SimdLevel::Avx2: {
            static const LevelKernels k(SimdLevel::Avx2);
            return k;
        }
        default: {
            static const LevelKernels k(SimdLevel::None);
            return k;
        }
    }
}

}  // namespace

bool simd_level_compiled(SimdLevel level) { return level != SimdLevel::Auto && kCompiled[level_index(level)]; }

namespace {
// The running CPU's flags among those simd_cpu_flags() asks about
// (__builtin_cpu_supports needs literal names).
std::vector<std::string> host_simd_flags() {
    std::vector<std::string> flags;
#if defined(__x86_64__) || defined(__i386__)
    auto add = [&](bool present, const char* name) {
        if (present) flags.emplace_back(name);
    };
    add(__builtin_cpu_supports("avx2"), "avx2");
    add(__builtin_cpu_supports("fma"), "fma");
    add(__builtin_cpu_supports("avx512f"), "avx512f");
    add(__builtin_cpu_supports("avx512vl"), "avx512vl");
    add(__builtin_cpu_supports("avx512dq"), "avx512dq");
#endif
    return flags;
}
}  // namespace

bool simd_supported(SimdLevel level) {
    static const std::vector<std::string> flags = host_simd_flags();
    return simd_supported(level, flags) && within_simd_cap(level, simd_cap());
}

SimdLevel resolve_simd_level(SimdLevel requested) {
    if (requested != SimdLevel::Auto) {
        if (!simd_level_compiled(requested))
            throw std::invalid_argument("--simd " + std::string(to_string(requested)) + " is not compiled into this build");
        if (!within_simd_cap(requested, simd_cap()))
            throw std::invalid_argument("--simd " + std::string(to_string(requested)) + " is above this process's cap (" +
                                        simd_cap().reason + ")");
        if (!simd_supported(requested))
            throw std::invalid_argument("--simd " + std::string(to_string(requested)) + " is not supported by this CPU");
        return requested;
    }
    for (SimdLevel l : {SimdLevel::Avx512, SimdLevel::Avx2})
        if (simd_level_compiled(l) && simd_supported(l)) return l;
    return SimdLevel::None;
}

const KernelSet& kernel_set(SimdLevel level, ClusterShape shape) {
    const SimdLevel l = resolve_simd_level(level);
    return kernels_of(l).set[static_cast<int>(shape)];
}

}  // namespace mdcore
