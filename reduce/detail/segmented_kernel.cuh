// SPDX-License-Identifier: BSD-3-Clause
// tcr: the one-launch kernel behind tcr::DeviceSegmentedReduce (implementation detail).
//
// Generic over an accumulator from compensated/reductions.cuh (through the reduction type of
// reduce/detail/device_kernel.cuh): load -> accumulate -> warp or block reduce -> store, per
// segment. A block of segmented_threads threads (segmented_warps warps) takes groups of
// segmented_warps consecutive segments, grid-strided over the groups:
//   1. warp w takes segment g * segmented_warps + w if it has at most segmented_warp_max elements:
//      lane l folds its share (team_partial with a team of 32), a warp shuffle tree merges the
//      lanes, lane 0 writes the result;
//   2. then the whole block takes each longer segment of the group in turn (team_partial with a
//      team of segmented_threads, a BlockReduce merges the threads), thread 0 writes it.
// A team's share of a segment of n elements at x (and y): the head of single elements before the
// wider operand's first 16-byte boundary, the 16-byte vectors, the tail of single elements.
// Rank r takes head element r, vectors r, r + T, r + 2T, ... (T the team size; segmented_unroll
// vectors per operand per full round, then one vector at a time) and tail element r; inputs that
// are not read as vectors (iterators, and operands whose alignments disagree) go one element at a
// time: elements r, r + T, .... So a segment's combining order is a function of its length and
// its inputs' addresses modulo 16 bytes alone, never of the grid, the block that takes it, the
// other segments or the GPU.
#pragma once

#include <cstdint>
#include <type_traits>
#include "../block.cuh"
#include "../warp.cuh"
#include "device_kernel.cuh"
#include "sources.cuh"

namespace tcr {
namespace detail {
namespace segmented {

inline constexpr int segmented_threads = 256;                  // per block, a compile-time constant
inline constexpr int segmented_warps = segmented_threads / 32; // segments per group
inline constexpr std::int64_t segmented_warp_max = 4096;       // longer segments: a whole block
inline constexpr int segmented_unroll = 4;                     // vectors per operand in flight
inline constexpr std::int64_t segmented_max_grid = std::int64_t(1) << 20; // blocks, at most

// A source moved to element `first`, indexed from 0 within the segment (so indexed_source's
// indices are relative to the segment's start, as CUB's segmented ArgMin writes them).
// Pointers move (and keep the vector path); any other source is indexed through offset_source.
template <class S>
struct offset_source {
  S s;
  std::int64_t first;
  __device__ __forceinline__ decltype(auto) operator[](std::int64_t i) const {
    return s[first + i];
  }
};
template <class S>
__device__ __forceinline__ auto segment_source(const S& s, std::int64_t first) {
  if constexpr (std::is_pointer_v<S>)
    return s + first;
  else
    return offset_source<S>{s, first};
}
template <class It, class T>
__device__ __forceinline__ auto segment_source(const device::indexed_source<It, T>& s,
                                               std::int64_t first) {
  using S = decltype(segment_source(s.it, first));
  return device::indexed_source<S, T>{segment_source(s.it, first)};
}

// Where segment s lies: bounds(s, first, length) gives its locator `first` (here its first
// element) and its length (end <= begin: an empty segment); source<I>(s_launch, first) gives the
// source of operand I (0: x, 1: y) for that segment, here the launch's source moved to `first`.
template <class BeginIt, class EndIt>
struct offset_segments {
  BeginIt begin;
  EndIt end;
  __device__ __forceinline__ void bounds(std::int64_t s, std::int64_t& first,
                                         std::int64_t& length) const {
    first = static_cast<std::int64_t>(begin[s]);
    const std::int64_t last = static_cast<std::int64_t>(end[s]);
    length = last > first ? last - first : 0;
  }
  template <int Operand, class S>
  __device__ __forceinline__ auto source(const S& s, std::int64_t first) const {
    return segment_source(s, first);
  }
};
struct fixed_segments {
  std::int64_t size;
  __device__ __forceinline__ void bounds(std::int64_t s, std::int64_t& first,
                                         std::int64_t& length) const {
    first = s * size;
    length = size;
  }
  template <int Operand, class S>
  __device__ __forceinline__ auto source(const S& s, std::int64_t first) const {
    return segment_source(s, first);
  }
};

// What one launch reads and writes: R's sources and output, the segments and their count.
template <class R, class Segments>
struct segmented_params {
  typename R::x_source x;
  typename R::y_source y; // second operand (Dot); unused when unary
  typename R::out_iterator out;
  Segments segments;
  std::int64_t num_segments;
};

// The cut of a segment of n elements at x (and y) into a head of single elements, nvec vectors
// and a tail: the vectors start where the wider operand is 16-byte aligned, and the narrower one
// must then be aligned to its own vector size, else every element goes one by one (nvec = 0).
template <class R, class XS, class YS>
__device__ __forceinline__ void split_segment(const XS& x, const YS& y, std::int64_t n,
                                              std::int64_t& head, std::int64_t& nvec) {
  using X = typename R::x_type;
  using Y = typename R::y_storage;
  constexpr int V = R::vector_items;
  head = 0;
  nvec = 0;
  if constexpr (V > 1) {
    const bool x_wider = sizeof(X) >= sizeof(Y);
    const std::uintptr_t a_x = reinterpret_cast<std::uintptr_t>(x);
    std::uintptr_t a_wider = a_x;
    if constexpr (R::binary)
      a_wider = x_wider ? a_x : reinterpret_cast<std::uintptr_t>(y);
    std::int64_t h = static_cast<std::int64_t>(((16 - a_wider % 16) % 16) / R::elem_bytes);
    if (h > n)
      h = n;
    bool ok = true;
    if constexpr (R::binary) {
      const std::uintptr_t a_narrower = x_wider ? reinterpret_cast<std::uintptr_t>(y) : a_x;
      const std::size_t narrower_bytes = x_wider ? sizeof(Y) : sizeof(X);
      ok = (a_narrower + h * narrower_bytes) % (V * narrower_bytes) == 0;
    }
    if (ok) {
      head = h;
      nvec = (n - h) / V;
    }
  }
}

// Rank `rank` of a team of Team threads: its share of the segment of n elements at x (and y),
// in the fixed pattern of the header comment, as a partial.
template <class R, int Team, class XS, class YS>
__device__ __forceinline__ typename R::accumulator::partial_type
team_partial(const XS& x, const YS& y, std::int64_t n, int rank,
             const typename R::accumulator& fresh) {
  using X = typename R::x_type;
  using Y = typename R::y_storage;
  constexpr int V = R::vector_items;
  constexpr int YV = R::binary ? V : 1; // the second operand's registers (unused when unary)
  constexpr int U = segmented_unroll;
  typename R::accumulator acc = fresh;
  const auto add = [&](auto& r_x, auto& r_y) {
    if constexpr (R::binary)
      acc.add(r_x, r_y);
    else
      acc.add(r_x);
  };
  std::int64_t head = 0, nvec = 0;
  split_segment<R>(x, y, n, head, nvec);
  if constexpr (V > 1) {
    const X* g_xv = x + head;
    const Y* g_yv = nullptr;
    if constexpr (R::binary)
      g_yv = y + head;
    std::int64_t v = rank;
    for (; v + (U - 1) * Team < nvec; v += U * Team) { // full rounds
      X r_x[U * V];
      Y r_y[U * YV];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        device::load_vec<V, R::magnitudes>(g_xv + (v + u * Team) * V, r_x + u * V);
        if constexpr (R::binary)
          device::load_vec<V, R::magnitudes>(g_yv + (v + u * Team) * V, r_y + u * V);
      }
      add(r_x, r_y);
    }
    for (; v < nvec; v += Team) { // the rest, one vector at a time
      X r_x[V];
      Y r_y[YV];
      device::load_vec<V, R::magnitudes>(g_xv + v * V, r_x);
      if constexpr (R::binary)
        device::load_vec<V, R::magnitudes>(g_yv + v * V, r_y);
      add(r_x, r_y);
    }
  }
  // Single elements: [0, head) and [head + nvec V, n).
  const std::int64_t tail_begin = head + nvec * V;
  const std::int64_t scalars = head + (n - tail_begin);
  for (std::int64_t j = rank; j < scalars; j += Team) {
    const std::int64_t i = j < head ? j : tail_begin + (j - head);
    X r_x[1] = {static_cast<X>(x[i])};
    if constexpr (R::magnitudes)
      magnitudes(r_x);
    Y r_y[1] = {};
    if constexpr (R::binary)
      r_y[0] = static_cast<Y>(y[i]);
    add(r_x, r_y);
  }
  return acc.partial();
}

// R: a reduction (reduce/detail/device_kernel.cuh), passed its empty accumulator `fresh`;
// Segments: offset_segments, fixed_segments, or any type with their bounds and source (the
// batches of reduce/batched.cuh).
template <class R, class Segments>
__global__ void __launch_bounds__(segmented_threads)
    segmented_kernel(segmented_params<R, Segments> p, typename R::accumulator fresh) {
  using P = typename R::accumulator::partial_type;
  using Out = typename R::out_type;
  constexpr int W = segmented_warps;
  using BlockP = BlockReduce<P, segmented_threads, BlockReduceAlgorithm::shuffle_tree,
                             BlockCombine::warp_totals>;
  __shared__ typename BlockP::TempStorage s_reduce;
  __shared__ std::int64_t s_first[W]; // [W] the group's segments
  __shared__ std::int64_t s_length[W];

  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const auto merge = [&](const P& a, const P& b) { return fresh.merge(a, b); };
  const auto result = [&](std::int64_t length, const P& total) {
    return length == 0 ? fresh.template empty_result<Out>() : fresh.template finish<Out>(total);
  };
  // Rank `rank` of a team of Team threads on the segment at `first` of `length` elements.
  const auto share = [&](auto team, std::int64_t first, std::int64_t length, int rank) {
    constexpr int Team = decltype(team)::value;
    const auto x = p.segments.template source<0>(p.x, first);
    if constexpr (R::binary)
      return team_partial<R, Team>(x, p.segments.template source<1>(p.y, first), length, rank,
                                   fresh);
    else
      return team_partial<R, Team>(x, p.y, length, rank, fresh);
  };

  for (std::int64_t g = blockIdx.x; g * W < p.num_segments; g += gridDim.x) {
    // 1. A warp per short segment (a warp-uniform branch: every lane reads the same bounds).
    const std::int64_t s = g * W + warp;
    std::int64_t first = 0, length = 0;
    if (s < p.num_segments)
      p.segments.bounds(s, first, length);
    if (lane == 0) {
      s_first[warp] = first;
      s_length[warp] = length;
    }
    if (s < p.num_segments && length <= segmented_warp_max) {
      const P part = share(std::integral_constant<int, 32>{}, first, length, lane);
      const P total = WarpReduce<P>().ReduceToLane0(part, merge);
      if (lane == 0)
        p.out[s] = result(length, total);
    }
    __syncthreads();
    // 2. The block per long segment, in the group's order (a block-uniform loop).
    for (int w = 0; w < W; ++w) {
      const std::int64_t length_w = s_length[w];
      if (length_w <= segmented_warp_max)
        continue;
      const P part = share(std::integral_constant<int, segmented_threads>{}, s_first[w], length_w,
                           static_cast<int>(threadIdx.x));
      const P total = BlockP(s_reduce).Reduce(part, merge); // ends with a barrier
      if (threadIdx.x == 0)
        p.out[g * W + w] = result(length_w, total);
    }
    __syncthreads(); // s_first, s_length are rewritten by the next group
  }
}

} // namespace segmented
} // namespace detail
} // namespace tcr
