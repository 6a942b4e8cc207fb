// SPDX-License-Identifier: BSD-3-Clause
// tcr: the kernel of tcr::DeviceSegmentedReduce's (and tcr::DeviceBatchedReduce's) exact modes
// where an operand is double (implementation detail): Sum and Asum of doubles, Dot with a double
// operand, Nrm2 of doubles.
//
// The exact state of doubles is long (exact_partial<double>: 66 limbs; of their products 132),
// too long for the per-lane partials that segmented_kernel folds with shuffles. Here a lane adds
// its elements to a window of rows in shared memory (binned_exact_sum_f64, binned_exact_dot_f64:
// every add exact, spilled before a row could round), and the rows spill into carry-save limbs
// that belong to the lane's warp (detail::binned_warps, PerWarp):
//   - a segment of at most segmented_warp_max elements is folded by one warp: lane l takes
//     elements l, l + 32, ..., then the warp spills its rows, makes its limbs canonical and
//     rounds them (round_warp: every lane; lane 0 stores the result);
//   - a longer segment by the whole block: thread t takes elements t, t + 256, ..., each warp
//     spills into its own limbs, thread k sums limb k over the warps (carry-save, within the
//     bound of binned_block: the same spills), and warp 0 makes them canonical and rounds.
// A block takes groups of per_group consecutive segments (1..segmented_warps, chosen by the host
// so that the grid fills the GPU), grid-strided over the groups: warp w folds the group's segment
// w if it is short, then the block folds the group's long segments one after another.
//
// Reproducibility. Every add, spill and merge is exact integer or exact floating-point
// arithmetic (the accumulators' proofs), so a segment's limbs hold its exact sum (of products)
// whatever the order, the lanes, the warps, the grid or the GPU; canonical digits are a function
// of that value, and the result is it rounded once (Nrm2: detail::exact_norm_wide, within 1 ulp).
// So each result depends on the segment's values alone: the bits of tcr::DeviceReduce's exact
// modes over the same values. An empty segment gives the accumulator's empty result (+0).
//
// Cost. Per element as tcr::DeviceReduce's exact f64 Sum / Dot (a split, window tests and bin
// adds in shared memory); per segment a prepare, a spill, the carry propagation and the rounding
// of the limbs by its warp: about 1600 warp instructions (Nsight Compute, H100, segments of 8),
// which bound short segments (1.8-1.9x the time of CUB's offsets Sum up to 128 elements, 1.2-1.35x
// from 2048; bench/results/2026-12-06-h100-s23/). One block per long segment (as CUB's offsets
// overload): few long segments use few SMs.
#pragma once

#include <cstdint>
#include <type_traits>
#include "../../compensated/convert.cuh"
#include "../../compensated/exact_binned.cuh"
#include "segmented_kernel.cuh"

namespace tcr {
namespace detail {
namespace segmented {

// What one launch reads and writes, and its groups.
template <class R, class Segments>
struct f64_params {
  typename R::x_source x;
  typename R::y_source y; // second operand (Dot); unused when unary
  typename R::out_iterator out;
  Segments segments;
  std::int64_t num_segments;
  std::int64_t groups; // ceil(num_segments / per_group)
  int per_group;       // segments per group: 1..segmented_warps
};

// This thread's element i of the segment (x, y), as loaded values (Asum: magnitudes).
template <class R, class XS, class YS>
__device__ __forceinline__ void f64_load(const XS& x, const YS& y, std::int64_t i,
                                         typename R::x_type (&rx)[1],
                                         typename R::y_storage (&ry)[1]) {
  using X = typename R::x_type;
  using Y = typename R::y_storage;
  rx[0] = static_cast<X>(x[i]);
  if constexpr (R::magnitudes)
    magnitudes(rx);
  ry[0] = Y{};
  if constexpr (R::binary)
    ry[0] = static_cast<Y>(y[i]);
}

// The window of the lanes of this warp (every lane together): from each lane's first element
// (rank < n), zeros where a lane has none.
template <class R, class Acc, class XS, class YS>
__device__ __forceinline__ void f64_window(Acc& acc, const XS& x, const YS& y, std::int64_t n,
                                           int rank) {
  typename R::x_type rx[1] = {};
  typename R::y_storage ry[1] = {};
  if (rank < n)
    f64_load<R>(x, y, rank, rx, ry);
  double wx[1], wy[1];
  widen_all(rx, wx);
  if constexpr (R::binary) {
    widen_all(ry, wy);
    acc.choose_warp_window(rank < n ? wx[0] : 0.0, rank < n ? wy[0] : 0.0);
  } else if constexpr (std::is_same_v<typename Acc::partial_type, exact_partial<double_products>>) {
    acc.choose_warp_window(rank < n ? wx[0] : 0.0, rank < n ? wx[0] : 0.0); // Nrm2: squares
  } else {
    acc.choose_warp_window(rank < n ? wx[0] : 0.0);
  }
}

// Rank `rank` of `team` threads (whole warps, every lane of them): its share of the segment of
// n elements at x (and y), elements rank, rank + team, ... (four loads in flight), into its
// warp's partial, which it zeroes first (prepare()); every lane spills its window at the end.
template <class R, class Acc, class XS, class YS>
__device__ void f64_fold(Acc& acc, const XS& x, const YS& y, std::int64_t n, int rank, int team) {
  using X = typename R::x_type;
  using Y = typename R::y_storage;
  constexpr int U = 4;
  acc.prepare(); // this warp's partial and this thread's rows
  f64_window<R>(acc, x, y, n, rank);
  std::int64_t i = rank;
  for (; i + (U - 1) * std::int64_t(team) < n; i += U * std::int64_t(team)) {
    X rx[U][1];
    Y ry[U][1];
#pragma unroll
    for (int u = 0; u < U; ++u)
      f64_load<R>(x, y, i + std::int64_t(u) * team, rx[u], ry[u]);
#pragma unroll
    for (int u = 0; u < U; ++u)
      device::add_loaded<R, false>(acc, rx[u], ry[u]);
  }
  for (; i < n; i += team) {
    X rx[1];
    Y ry[1];
    f64_load<R>(x, y, i, rx, ry);
    device::add_loaded<R, false>(acc, rx, ry);
  }
  __syncwarp();     // the whole warp spills together (one set of atomics per row)
  acc.spill_warp(); // into this warp's limbs
  __syncwarp();
}

template <class R, class Segments, class Acc>
__global__ void __launch_bounds__(segmented_threads)
    segmented_exact_f64_kernel(const f64_params<R, Segments> p, const Acc fresh) {
  using Out = typename R::out_type;
  using State = typename Acc::block;
  using P = typename Acc::partial_type;
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  // Where the group's segments lie (warp w: segment w), for the block's pass over the long ones.
  __shared__ std::int64_t s_first[segmented_warps], s_length[segmented_warps];
  Acc acc = fresh;
  for (std::int64_t g = blockIdx.x; g < p.groups; g += gridDim.x) {
    const std::int64_t s0 = g * p.per_group;
    const std::int64_t left = p.num_segments - s0;
    const int count = left < p.per_group ? static_cast<int>(left) : p.per_group;
    // The warp's own segment, where it is short.
    if (warp < count) {
      std::int64_t first, n;
      p.segments.bounds(s0 + warp, first, n);
      if (lane == 0) {
        s_first[warp] = first;
        s_length[warp] = n;
      }
      if (n == 0) {
        if (lane == 0)
          p.out[s0 + warp] = fresh.template empty_result<Out>();
      } else if (n <= segmented_warp_max) {
        const auto x = p.segments.template source<0>(p.x, first);
        const auto y = p.segments.template source<1>(p.y, first);
        f64_fold<R>(acc, x, y, n, lane, 32);
        P& s = State::warp_sum();
        canonical_in_place_warp(s);
        const Out r = acc.template warp_finish<Out>(s);
        if (lane == 0)
          p.out[s0 + warp] = r;
      }
    }
    __syncthreads(); // the bounds are in; no warp reads its partial any more
    // The group's long segments, each by the whole block.
    for (int k = 0; k < count; ++k) {
      const std::int64_t n = s_length[k];
      if (n <= segmented_warp_max)
        continue;
      const std::int64_t first = s_first[k];
      const auto x = p.segments.template source<0>(p.x, first);
      const auto y = p.segments.template source<1>(p.y, first);
      f64_fold<R>(acc, x, y, n, static_cast<int>(threadIdx.x), segmented_threads);
      __syncthreads();
      P* parts = State::partials();
      for (int j = static_cast<int>(threadIdx.x); j < P::limbs; j += segmented_threads) {
        long long t = parts[0].limb[j];
#pragma unroll
        for (int w = 1; w < segmented_warps; ++w)
          t += parts[w].limb[j];
        parts[0].limb[j] = t;
      }
      if (threadIdx.x == 0) {
        std::uint32_t flags = 0;
#pragma unroll
        for (int w = 0; w < segmented_warps; ++w)
          flags |= parts[w].flags;
        store_flags_word(parts[0], flags);
      }
      __syncthreads();
      if (warp == 0) {
        canonical_in_place_warp(parts[0]);
        const Out r = acc.template warp_finish<Out>(parts[0]);
        if (lane == 0)
          p.out[s0 + k] = r;
      }
      __syncthreads(); // partial 0 is read before the next segment's prepares
    }
    __syncthreads(); // every warp has read the bounds before the next group's
  }
}

} // namespace segmented
} // namespace detail
} // namespace tcr
