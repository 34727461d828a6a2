# Which SIMD kernel instantiations to compile. Each level is compiled in its own
# translation units with its own target flags and chosen at run time by CPUID, so
# one binary runs on any x86-64 and the tests can check every level the CPU has.
set(MDT_SIMD_LEVELS none)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  if(MDT_SIMD STREQUAL "auto")
    list(APPEND MDT_SIMD_LEVELS avx2 avx512)
  elseif(MDT_SIMD STREQUAL "avx512")
    list(APPEND MDT_SIMD_LEVELS avx2 avx512)
  elseif(MDT_SIMD STREQUAL "avx2")
    list(APPEND MDT_SIMD_LEVELS avx2)
  endif()
endif()
set(MDT_SIMD_FLAGS_none "")
set(MDT_SIMD_FLAGS_avx2 -mavx2 -mfma)
# GCC 12 warns falsely on _mm512_undefined_* inside its own intrinsics headers.
set(MDT_SIMD_FLAGS_avx512 -mavx512f -mavx512vl -mavx512dq -mfma -Wno-maybe-uninitialized)
