#include "nonbonded/kernel_dispatch.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace mdcore {

#define MDT_DECLARE_SHAPES(level)            \
    KernelSet make_kernels_##level##_4x4();  \
    KernelSet make_kernels_##level##_4x8();  \
    KernelSet make_kernels_##level##_8x4();
MDT_DECLARE_SHAPES(scalar)
KernelSet make_kernels_scalar_1x1();
#ifdef MDT_SIMD_AVX2
MDT_DECLARE_SHAPES(avx2)
#endif
#ifdef MDT_SIMD_AVX512
MDT_DECLARE_SHAPES(avx512)
#endif
#undef MDT_DECLARE_SHAPES

namespace {

constexpr int kLevels = 3;  // None, Avx2, Avx512
constexpr int kShapes = 4;  // 4x4, 4x8, 8x4, 1x1

int level_index(SimdLevel l) { return l == SimdLevel::Avx512 ? 2 : l == SimdLevel::Avx2 ? 1 : 0; }

struct Table {
    KernelSet set[kLevels][kShapes]{};
    bool present[kLevels]{};
    Table() {
        auto fill = [&](int level, KernelSet k44, KernelSet k48, KernelSet k84) {
            set[level][0] = k44;
            set[level][1] = k48;
            set[level][2] = k84;
            // The plain particle list is a reference point, not a SIMD target.
            set[level][3] = make_kernels_scalar_1x1();
            present[level] = true;
        };
        fill(0, make_kernels_scalar_4x4(), make_kernels_scalar_4x8(), make_kernels_scalar_8x4());
#ifdef MDT_SIMD_AVX2
        fill(1, make_kernels_avx2_4x4(), make_kernels_avx2_4x8(), make_kernels_avx2_8x4());
#endif
#ifdef MDT_SIMD_AVX512
        fill(2, make_kernels_avx512_4x4(), make_kernels_avx512_4x8(), make_kernels_avx512_8x4());
#endif
    }
};

const Table& table() {
    static const Table t;
    return t;
}

}  // namespace

bool simd_level_compiled(SimdLevel level) {
    return level != SimdLevel::Auto && table().present[level_index(level)];
}

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
    return simd_supported(level, flags);
}

SimdLevel resolve_simd_level(SimdLevel requested) {
    if (requested != SimdLevel::Auto) {
        if (!simd_level_compiled(requested))
            throw std::invalid_argument("--simd " + std::string(to_string(requested)) + " is not compiled into this build");
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
    return table().set[level_index(l)][static_cast<int>(shape)];
}

}  // namespace mdcore
