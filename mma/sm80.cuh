// SPDX-License-Identifier: BSD-3-Clause
// tcr: mma.sync instructions of sm_80 (Ampere and newer, so Hopper): f16 and bf16 m16n8k16,
// tf32 m16n8k8 (all with f32 accumulators) and f64 m8n8k4.
//
// One struct per instruction, named arch_shape_D_A_B_C as in CuTe. Each has its register-array
// typedefs, one static mma(d, a, b, c) holding the PTX, and its fragment maps (see
// mma/fragment.cuh). Layouts from the PTX ISA, "Matrix Fragments for mma.m16n8k16 / m16n8k8 /
// m8n8k4"; g = lane >> 2 (groupID), t = lane & 3 (threadID_in_group).
//
// Arch guard: calling mma() in device code compiled for an older arch fails at compile time with
// the message in the static_assert below (mma is a template only so that the assert fires when
// it is used, not when the header is included).
#pragma once

#include <cstdint>
#include "fragment.cuh"

namespace tcr::mma {

#define TCR_MMA_REQUIRE_SM(ARCH, NAME)                                                             \
  static_assert(detail::dependent_false_v<Guard>,                                                  \
                "tcr::mma::" NAME " needs compute capability " #ARCH " or newer: build for "       \
                "that arch (CMAKE_CUDA_ARCHITECTURES / -arch=sm_" #ARCH ")")

namespace detail {
// The m16n8 accumulator layout shared by every m16n8kK instruction with f32 C/D:
//   c0: (g,   2t)   c1: (g,   2t+1)
//   c2: (g+8, 2t)   c3: (g+8, 2t+1)
TCR_HD constexpr coord m16n8_c_coord(int lane, int i) {
  return {group_id(lane) + (i >= 2 ? 8 : 0), thread_in_group(lane) * 2 + (i & 1)};
}
} // namespace detail

// D[16x8] f32 = A[16x16] f16 (row) * B[16x8] f16 (col) + C[16x8] f32.
template <class AB>
struct sm80_m16n8k16_f32_16bit_f32 {
  static constexpr int M = 16, N = 8, K = 16;
  using AElement = AB;
  using BElement = AB;
  using ARegisters = uint32_t[4]; // 8 elements, 2 per register, a0 in the low half of reg 0
  using BRegisters = uint32_t[2]; // 4 elements
  using CRegisters = float[4];
  using DRegisters = float[4];
  static constexpr int a_elements = 8, b_elements = 4, c_elements = 4;

  // A, element i of lane (reg i/2, half i%2):
  //   a0,a1: (g,   2t..2t+1)     a2,a3: (g+8, 2t..2t+1)
  //   a4,a5: (g,   2t+8..2t+9)   a6,a7: (g+8, 2t+8..2t+9)
  TCR_HD static constexpr coord a_coord(int lane, int i) {
    using namespace detail;
    return {group_id(lane) + ((i & 2) ? 8 : 0),
            thread_in_group(lane) * 2 + (i & 1) + (i >= 4 ? 8 : 0)};
  }
  // B, element i of lane (reg i/2): b0,b1: (2t..2t+1, g)   b2,b3: (2t+8..2t+9, g)
  TCR_HD static constexpr coord b_coord(int lane, int i) {
    using namespace detail;
    return {thread_in_group(lane) * 2 + (i & 1) + (i >= 2 ? 8 : 0), group_id(lane)};
  }
  TCR_HD static constexpr coord c_coord(int lane, int i) { return detail::m16n8_c_coord(lane, i); }
};

struct sm80_m16n8k16_f32_f16_f16_f32 : sm80_m16n8k16_f32_16bit_f32<__half> {
  static constexpr uint32_t one_x2 = 0x3C003C00u; // two f16 1.0
  template <class Guard = void>
  __device__ static void mma(DRegisters& d, const ARegisters& a, const BRegisters& b,
                             const CRegisters& c) {
#if defined(__CUDA_ARCH__)
#if __CUDA_ARCH__ >= 800
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]),
          "f"(c[2]), "f"(c[3]));
#else
    TCR_MMA_REQUIRE_SM(80, "sm80_m16n8k16_f32_f16_f16_f32");
#endif
#endif
  }
};

struct sm80_m16n8k16_f32_bf16_bf16_f32 : sm80_m16n8k16_f32_16bit_f32<__nv_bfloat16> {
  static constexpr uint32_t one_x2 = 0x3F803F80u; // two bf16 1.0
  template <class Guard = void>
  __device__ static void mma(DRegisters& d, const ARegisters& a, const BRegisters& b,
                             const CRegisters& c) {
#if defined(__CUDA_ARCH__)
#if __CUDA_ARCH__ >= 800
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]),
          "f"(c[2]), "f"(c[3]));
#else
    TCR_MMA_REQUIRE_SM(80, "sm80_m16n8k16_f32_bf16_bf16_f32");
#endif
#endif
  }
};

// D[16x8] f32 = A[16x8] tf32 (row) * B[8x8] tf32 (col) + C[16x8] f32. A tf32 operand is a .b32
// register holding an f32 bit pattern of which the hardware uses the top 19 bits.
struct sm80_m16n8k8_f32_tf32_tf32_f32 {
  static constexpr int M = 16, N = 8, K = 8;
  using ARegisters = uint32_t[4]; // 4 elements, one per register
  using BRegisters = uint32_t[2];
  using CRegisters = float[4];
  using DRegisters = float[4];
  static constexpr int a_elements = 4, b_elements = 2, c_elements = 4;
  static constexpr uint32_t one = 0x3F800000u; // tf32 1.0

  // A: a0: (g, t)   a1: (g+8, t)   a2: (g, t+4)   a3: (g+8, t+4)
  TCR_HD static constexpr coord a_coord(int lane, int i) {
    using namespace detail;
    return {group_id(lane) + ((i & 1) ? 8 : 0), thread_in_group(lane) + (i >= 2 ? 4 : 0)};
  }
  // B: b0: (t, g)   b1: (t+4, g)
  TCR_HD static constexpr coord b_coord(int lane, int i) {
    using namespace detail;
    return {thread_in_group(lane) + (i ? 4 : 0), group_id(lane)};
  }
  TCR_HD static constexpr coord c_coord(int lane, int i) { return detail::m16n8_c_coord(lane, i); }

  template <class Guard = void>
  __device__ static void mma(DRegisters& d, const ARegisters& a, const BRegisters& b,
                             const CRegisters& c) {
#if defined(__CUDA_ARCH__)
#if __CUDA_ARCH__ >= 800
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]),
          "f"(c[2]), "f"(c[3]));
#else
    TCR_MMA_REQUIRE_SM(80, "sm80_m16n8k8_f32_tf32_tf32_f32");
#endif
#endif
  }
};

// D[8x8] f64 = A[8x4] f64 (row) * B[4x8] f64 (col) + C[8x8] f64 (IEEE fma-accurate on sm_80+).
struct sm80_m8n8k4_f64_f64_f64_f64 {
  static constexpr int M = 8, N = 8, K = 4;
  using ARegisters = double[1];
  using BRegisters = double[1];
  using CRegisters = double[2];
  using DRegisters = double[2];
  static constexpr int a_elements = 1, b_elements = 1, c_elements = 2;

  // A: a0: (g, t)     B: b0: (t, g)     C/D: c0: (g, 2t)   c1: (g, 2t+1)
  TCR_HD static constexpr coord a_coord(int lane, int) {
    return {detail::group_id(lane), detail::thread_in_group(lane)};
  }
  TCR_HD static constexpr coord b_coord(int lane, int) {
    return {detail::thread_in_group(lane), detail::group_id(lane)};
  }
  TCR_HD static constexpr coord c_coord(int lane, int i) {
    return {detail::group_id(lane), detail::thread_in_group(lane) * 2 + (i & 1)};
  }

  template <class Guard = void>
  __device__ static void mma(DRegisters& d, const ARegisters& a, const BRegisters& b,
                             const CRegisters& c) {
#if defined(__CUDA_ARCH__)
#if __CUDA_ARCH__ >= 800
    asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};\n"
        : "=d"(d[0]), "=d"(d[1])
        : "d"(a[0]), "d"(b[0]), "d"(c[0]), "d"(c[1]));
#else
    TCR_MMA_REQUIRE_SM(80, "sm80_m8n8k4_f64_f64_f64_f64");
#endif
#endif
  }
};

} // namespace tcr::mma
