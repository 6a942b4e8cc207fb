// SPDX-License-Identifier: BSD-3-Clause
// tcr: shared definitions for the thread-level numerics (compensated/).
#pragma once

#include "../version.cuh" // the version macros and the C++17 check, for every header of tcr

#if defined(__CUDACC__)
#define TCR_HOST_DEVICE __host__ __device__
#define TCR_FORCEINLINE __forceinline__
#else
#define TCR_HOST_DEVICE
#define TCR_FORCEINLINE inline __attribute__((always_inline))
#endif

#define TCR_HD TCR_HOST_DEVICE TCR_FORCEINLINE

// Loop unrolling for the device compiler; host compilers see nothing (no unknown-pragma warnings).
#if defined(__CUDA_ARCH__)
#define TCR_UNROLL _Pragma("unroll")
#else
#define TCR_UNROLL
#endif
