// SPDX-License-Identifier: BSD-3-Clause
// tcr: the tensor-core path of tcr::DeviceSegmentedReduce's fixed-size Sum and Asum of small
// segments (implementation detail): each segment is a row of an MMA operand against ones.
//
// A warp takes 16 consecutive segments (a "row tile") at a time, grid-stride over the tiles:
// segment 16 k + r is row r of the A operand of chained mma.sync m16n8k16 (f16 inputs, f32
// accumulators, B = ones), so every row of D is one segment's running sum. Lane l (g = l / 4,
// q = l % 4) reads 8-byte pieces q, q + 4, q + 8, ... of rows g and g + 8 (the quad's four lanes
// read 32 contiguous bytes of a row, the tile's rows lie back to back: every sector is used
// whole); each piece fills one MMA step's A registers of its row (__half: 4 elements) or two
// (e4m3: 8 elements, widened to f16 exactly). Which element sits in which column does not
// matter for a row sum. After `row_chain` steps the D of rows g and g + 8 is folded into the
// lane's accumulator for that segment (R's accumulator, the device kernel's), C restarts at 0;
// lane q = 0 of the quad writes row g's result, lane q = 1 row g + 8's.
//
// Accuracy (mma/tile_sum.cuh's model and proofs): e4m3: a chain of at most 4 steps of depth 16
// has exact D values (tile_path::exact_f16), so the result has the compensated contract of the
// CUDA-core path; __half: a chain of 4 steps adds at most tile_error_bound(4, 16, 24, S_chain),
// the device's Accuracy::fast bound (c = fast_error_constant), so only Accuracy::fast takes
// this path. No overflow: |D| <= 64 * 65504 (__half) or 64 * 448 (e4m3) per chain. A zero sum
// is +0 (an MMA's D), NaN and Inf propagate as in plain summation. Reproducible: a segment's
// order depends on its length alone (fixed: every segment has it), and the MMA's rounding is
// the GPU's (the same on every launch; another architecture may round __half chains otherwise).
#pragma once

#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cstdint>
#include <type_traits>
#include "../../mma/sm80.cuh"
#include "device_kernel.cuh"

namespace tcr {
namespace detail {
namespace segmented {

inline constexpr int rows_threads = 256; // per block
inline constexpr int row_chain = 4;      // MMA steps chained through C before a fold
inline constexpr int row_unroll = 4;     // 8-byte pieces per row in flight
inline constexpr int rows_max_grid = 1 << 16;

// The inputs of the row path, and the multiple of its segment length (a whole number of 8-byte
// pieces for each of a quad's four lanes).
template <class X>
inline constexpr bool row_input_v = std::is_same_v<X, __half> || std::is_same_v<X, __nv_fp8_e4m3>;
template <class X>
inline constexpr std::int64_t row_multiple = 32 / static_cast<std::int64_t>(sizeof(X));

template <class R>
struct rows_params {
  const typename R::x_type* x; // 8-byte aligned
  typename R::out_iterator out;
  std::int64_t num_segments;
  std::int64_t n; // a multiple of row_multiple, > 0
};

// One 8-byte piece of each of the lane's rows as MMA steps, folded every row_chain steps.
template <class R, bool Magnitudes>
struct row_lane {
  using X = typename R::x_type;
  using M = mma::sm80_m16n8k16_f32_f16_f16_f32;
  typename R::accumulator acc0, acc1; // rows g and g + 8
  float c[4] = {0.f, 0.f, 0.f, 0.f};
  int steps = 0;

  __device__ __forceinline__ void step(const std::uint32_t (&a)[4]) {
    const std::uint32_t b[2] = {M::one_x2, M::one_x2};
    M::mma(c, a, b, c);
    if (++steps == row_chain)
      fold();
  }
  __device__ __forceinline__ void fold() {
    acc0.add(c[0]); // row g (c[1] is the same sum)
    acc1.add(c[2]); // row g + 8
    c[0] = c[1] = c[2] = c[3] = 0.f;
    steps = 0;
  }
  __device__ __forceinline__ static std::uint32_t f16x2_of_e4m3x2(std::uint32_t w) {
    const __half2_raw h =
        __nv_cvt_fp8x2_to_halfraw2(static_cast<__nv_fp8x2_storage_t>(w & 0xffffu), __NV_E4M3);
    return static_cast<std::uint32_t>(h.x) | (static_cast<std::uint32_t>(h.y) << 16);
  }
  // p0: a piece of row g, p1: the same piece of row g + 8.
  __device__ __forceinline__ void add(uint2 p0, uint2 p1) {
    if constexpr (Magnitudes) {
      constexpr std::uint32_t m = sizeof(X) == 2 ? 0x7fff7fffu : 0x7f7f7f7fu;
      p0.x &= m, p0.y &= m, p1.x &= m, p1.y &= m;
    }
    if constexpr (sizeof(X) == 2) {
      // a0 a1: row g, a2 a3: row g + 8, a4 a5: row g, a6 a7: row g + 8 (mma/sm80.cuh)
      const std::uint32_t a[4] = {p0.x, p1.x, p0.y, p1.y};
      step(a);
    } else {
      const std::uint32_t a[4] = {f16x2_of_e4m3x2(p0.x), f16x2_of_e4m3x2(p1.x),
                                  f16x2_of_e4m3x2(p0.x >> 16), f16x2_of_e4m3x2(p1.x >> 16)};
      step(a);
      const std::uint32_t b[4] = {f16x2_of_e4m3x2(p0.y), f16x2_of_e4m3x2(p1.y),
                                  f16x2_of_e4m3x2(p0.y >> 16), f16x2_of_e4m3x2(p1.y >> 16)};
      step(b);
    }
  }
};

template <class R, bool Magnitudes>
__global__ void __launch_bounds__(rows_threads)
    segmented_rows_kernel(rows_params<R> p, typename R::accumulator fresh) {
  using Out = typename R::out_type;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int g = lane / 4, q = lane % 4;
  const std::int64_t warps_in_grid = std::int64_t(gridDim.x) * (rows_threads / 32);
  const std::int64_t tiles = (p.num_segments + 15) / 16;
  const std::int64_t pieces = p.n * static_cast<std::int64_t>(sizeof(typename R::x_type)) / 32;
  for (std::int64_t tile = std::int64_t(blockIdx.x) * (rows_threads / 32) + threadIdx.x / 32;
       tile < tiles; tile += warps_in_grid) { // warp-uniform
    const std::int64_t s0 = tile * 16 + g, s1 = s0 + 8;
    const bool has0 = s0 < p.num_segments, has1 = s1 < p.num_segments;
    const uint2* g_row0 = reinterpret_cast<const uint2*>(p.x + s0 * p.n) + q; // piece j: [4 j]
    const uint2* g_row1 = reinterpret_cast<const uint2*>(p.x + s1 * p.n) + q;
    row_lane<R, Magnitudes> r{fresh, fresh};
    std::int64_t j = 0;
    for (; j + row_unroll <= pieces; j += row_unroll) {
      uint2 w0[row_unroll], w1[row_unroll];
#pragma unroll
      for (int u = 0; u < row_unroll; ++u) {
        w0[u] = has0 ? __ldg(g_row0 + 4 * (j + u)) : make_uint2(0u, 0u);
        w1[u] = has1 ? __ldg(g_row1 + 4 * (j + u)) : make_uint2(0u, 0u);
      }
#pragma unroll
      for (int u = 0; u < row_unroll; ++u)
        r.add(w0[u], w1[u]);
    }
    for (; j < pieces; ++j)
      r.add(has0 ? __ldg(g_row0 + 4 * j) : make_uint2(0u, 0u),
            has1 ? __ldg(g_row1 + 4 * j) : make_uint2(0u, 0u));
    if (r.steps != 0)
      r.fold();
    if (q == 0 && has0)
      p.out[s0] = fresh.template finish<Out>(r.acc0.partial());
    if (q == 1 && has1)
      p.out[s1] = fresh.template finish<Out>(r.acc1.partial());
  }
}

} // namespace segmented
} // namespace detail
} // namespace tcr
