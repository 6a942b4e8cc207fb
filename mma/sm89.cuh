// SPDX-License-Identifier: BSD-3-Clause
// tcr: mma.sync instructions of sm_89 (Ada, Hopper): fp8 e4m3 and e5m2 m16n8k32 with f32
// accumulators. Conventions as in mma/sm80.cuh. Layouts from the PTX ISA, "Matrix Fragments for
// mma.m16n8k32" (the 8-bit layout); g = lane >> 2, t = lane & 3.
//
// On sm_90 these are not native: ptxas (CUDA 13.0) expands each one into F2FP.F16.E4M3/E5M2
// unpacks of A and B to f16 and two chained HMMA.16816.F32 (checked with cuobjdump -sass), so on
// the H200 an fp8 m16n8k32 has exactly the accumulation of two f16 m16n8k16 steps (Hopper's
// native fp8 tensor-core path, with its ~13-bit accumulator, is wgmma only). On sm_89 they are
// native. bench/mma_characterize measures the error; mma/tile_sum.cuh, tile_path::exact_f16, does
// the f16 conversion explicitly (the same cost on sm_90) and proves e4m3 sums exact.
#pragma once

#include <cstdint>
#include "sm80.cuh"

namespace tcr::mma {

template <class AB>
struct sm89_m16n8k32_f32_8bit_f32 {
  static constexpr int M = 16, N = 8, K = 32;
  using AElement = AB;
  using BElement = AB;
  using ARegisters = uint32_t[4]; // 16 elements, 4 per register, a0 in the low byte of reg 0
  using BRegisters = uint32_t[2]; // 8 elements
  using CRegisters = float[4];
  using DRegisters = float[4];
  static constexpr int a_elements = 16, b_elements = 8, c_elements = 4;

  // A, element i of lane (reg i/4, byte i%4):
  //   a0..a3:  (g,   4t..4t+3)      a4..a7:   (g+8, 4t..4t+3)
  //   a8..a11: (g,   4t+16..4t+19)  a12..a15: (g+8, 4t+16..4t+19)
  TCR_HD static constexpr coord a_coord(int lane, int i) {
    using namespace detail;
    return {group_id(lane) + ((i & 4) ? 8 : 0),
            thread_in_group(lane) * 4 + (i & 3) + (i >= 8 ? 16 : 0)};
  }
  // B, element i of lane (reg i/4): b0..b3: (4t..4t+3, g)   b4..b7: (4t+16..4t+19, g)
  TCR_HD static constexpr coord b_coord(int lane, int i) {
    using namespace detail;
    return {thread_in_group(lane) * 4 + (i & 3) + (i >= 4 ? 16 : 0), group_id(lane)};
  }
  TCR_HD static constexpr coord c_coord(int lane, int i) { return detail::m16n8_c_coord(lane, i); }
};

struct sm89_m16n8k32_f32_e4m3_e4m3_f32 : sm89_m16n8k32_f32_8bit_f32<__nv_fp8_e4m3> {
  static constexpr uint32_t one_x4 = 0x38383838u; // four e4m3 1.0
  template <class Guard = void>
  __device__ static void mma(DRegisters& d, const ARegisters& a, const BRegisters& b,
                             const CRegisters& c) {
#if defined(__CUDA_ARCH__)
#if __CUDA_ARCH__ >= 890
    asm("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]),
          "f"(c[2]), "f"(c[3]));
#else
    TCR_MMA_REQUIRE_SM(89, "sm89_m16n8k32_f32_e4m3_e4m3_f32");
#endif
#endif
  }
};

struct sm89_m16n8k32_f32_e5m2_e5m2_f32 : sm89_m16n8k32_f32_8bit_f32<__nv_fp8_e5m2> {
  static constexpr uint32_t one_x4 = 0x3C3C3C3Cu; // four e5m2 1.0
  template <class Guard = void>
  __device__ static void mma(DRegisters& d, const ARegisters& a, const BRegisters& b,
                             const CRegisters& c) {
#if defined(__CUDA_ARCH__)
#if __CUDA_ARCH__ >= 890
    asm("mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32 "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]),
          "f"(c[2]), "f"(c[3]));
#else
    TCR_MMA_REQUIRE_SM(89, "sm89_m16n8k32_f32_e5m2_e5m2_f32");
#endif
#endif
  }
};

} // namespace tcr::mma
