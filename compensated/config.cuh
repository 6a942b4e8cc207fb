// tcr: shared definitions for the thread-level numerics (compensated/).
#pragma once

#if defined(__CUDACC__)
#define TCR_HOST_DEVICE __host__ __device__
#define TCR_FORCEINLINE __forceinline__
#else
#define TCR_HOST_DEVICE
#define TCR_FORCEINLINE inline __attribute__((always_inline))
#endif

#define TCR_HD TCR_HOST_DEVICE TCR_FORCEINLINE
