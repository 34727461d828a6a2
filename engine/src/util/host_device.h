#pragma once
// MDT_HOST_DEVICE marks inline functions that g++ compiles for the CPU and nvcc
// for both sides, so the GPU kernels and their host tests share one definition.
#if defined(__CUDACC__)
#define MDT_HOST_DEVICE __host__ __device__
#else
#define MDT_HOST_DEVICE
#endif
