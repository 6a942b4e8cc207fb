// SPDX-License-Identifier: BSD-3-Clause
// tcr: the one-launch kernel behind tcr::DeviceSegmentedReduce (implementation detail).
//
// Generic over an accumulator from compensated/reductions.cuh (through the reduction type of
// reduce/detail/device_kernel.cuh): load -> accumulate -> team reduce -> store, per segment.
// Each segment gets a team whose size is a function of its length n alone (tier_of): 2^t lanes
// of a warp, the smallest power of two that leaves each lane at most one full round of
// segmented_unroll vectors, capped at 32, or the whole block of segmented_threads threads for
// n > segmented_warp_max. A block takes groups of segmented_warps * G consecutive segments
// (G = segments_per_warp, 1..32), grid-strided over the groups:
//   1. lane l < G of warp w reads the bounds of the group's segment w G + l and picks its tier;
//   2. the warp takes its segments tier by tier (a ballot per tier): the k-th segment of a tier
//      of teams of T lanes goes to team k mod (32 / T) (lanes [T j, T j + T) of the warp are
//      team j), whose ranks fold their shares (team_partial), a WarpReduce tree over logical
//      warps of T lanes merges them, and the team's first lane writes the result;
//   3. then the whole block takes each block-tier segment of the group in turn (team_partial
//      with a team of segmented_threads, a BlockReduce merges the threads), thread 0 writes it.
// Where the host knows that every segment is of the block tier (a fixed size, or batches of one
// length, above segmented_warp_max), a group is one segment and only step 3 runs, so that the
// long segments spread over the grid instead of going eight to a block.
// A team's share of a segment of n elements at x (and y): the head of single elements before the
// wider operand's first 16-byte boundary, the 16-byte vectors, the tail of single elements.
// Rank r takes head element r, vectors r, r + T, r + 2T, ... (T the team size; segmented_unroll
// vectors per operand per full round, then one vector at a time) and tail element r; inputs that
// are not read as vectors (iterators, and operands whose alignments disagree) go one element at a
// time: elements r, r + T, .... So a segment's combining order is a function of its length and
// its inputs' addresses modulo 16 bytes alone, never of the grid, the group, the team that takes
// it, the other segments or the GPU.
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
inline constexpr int segmented_warps = segmented_threads / 32; // warps per block
inline constexpr std::int64_t segmented_warp_max = 4096;       // longer segments: a whole block
inline constexpr int segmented_unroll = 4;                     // vectors per operand in flight
inline constexpr std::int64_t segmented_max_grid = std::int64_t(1) << 20; // blocks, at most
// Blocks a launch should have at least, where the segments allow: a group holds fewer segments
// per warp when there are too few segments to fill this many blocks with 32 per warp (chosen so
// that a batch of long segments spreads over the GPU as one segment per warp did; not yet
// measured).
inline constexpr std::int64_t segmented_target_blocks = 4096;
inline constexpr int block_tier = 6; // a segment longer than segmented_warp_max: the block's

// Segments per warp in a group: 32, or the largest power of two below it that still gives
// segmented_target_blocks groups (at least 1).
inline int segments_per_warp(std::int64_t num_segments) {
  int g = 32;
  while (g > 1 && num_segments < std::int64_t(g) * segmented_warps * segmented_target_blocks)
    g /= 2;
  return g;
}

// The team of a segment of n elements is 2^tier lanes: the smallest power of two that gives each
// lane at most one full round (segmented_unroll vectors of R::vector_items elements), capped at
// 32; block_tier for a segment longer than segmented_warp_max. A function of n alone.
template <class R>
__host__ __device__ __forceinline__ int tier_of(std::int64_t n) {
  if (n > segmented_warp_max)
    return block_tier;
  constexpr int round = segmented_unroll * R::vector_items; // elements of one lane's full round
  int rounds = static_cast<int>((n + round - 1) / round);
  int tier = 0;
  while (tier < 5 && (1 << tier) < rounds)
    ++tier;
  return tier;
}

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

// The length every segment has, where the host knows it (fixed size, batches of one length);
// -1 otherwise. Overloads for other segment types are found by argument-dependent lookup.
template <class Segments>
std::int64_t known_length(const Segments&) {
  return -1;
}
inline std::int64_t known_length(const fixed_segments& s) {
  return s.size;
}

// What one launch reads and writes: R's sources and output, the segments and their count.
template <class R, class Segments>
struct segmented_params {
  typename R::x_source x;
  typename R::y_source y; // second operand (Dot); unused when unary
  typename R::out_iterator out;
  Segments segments;
  std::int64_t num_segments;
  int per_warp;           // segments per warp and group, 1..32 (segments_per_warp)
  bool block_per_segment; // every segment is longer than segmented_warp_max (known on the host):
                          // block b takes segments b, b + grid, ... (the team and order alike)
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

// Rank `rank` of a team of `team` threads: its share of the segment of n elements at x (and y),
// in the fixed pattern of the header comment, as a partial.
template <class R, class XS, class YS>
__device__ __forceinline__ typename R::accumulator::partial_type
team_partial(const XS& x, const YS& y, std::int64_t n, int team, int rank,
             const typename R::accumulator& fresh) {
  using X = typename R::x_type;
  using Y = typename R::y_storage;
  constexpr int V = R::vector_items;
  constexpr int YV = R::binary ? V : 1; // the second operand's registers (unused when unary)
  constexpr int U = segmented_unroll;
  typename R::accumulator acc = fresh;
  constexpr bool mask_signs = device::magnitudes_at_load<R, true>; // Asum (else add takes |x|)
  const auto add = [&](auto& r_x, auto& r_y) { device::add_loaded<R, true>(acc, r_x, r_y); };
  std::int64_t head = 0, nvec = 0;
  split_segment<R>(x, y, n, head, nvec);
  if constexpr (V > 1) {
    const X* g_xv = x + head;
    const Y* g_yv = nullptr;
    if constexpr (R::binary)
      g_yv = y + head;
    std::int64_t v = rank;
    for (; v + (U - 1) * team < nvec; v += U * team) { // full rounds
      X r_x[U * V];
      Y r_y[U * YV];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        device::load_vec<V, mask_signs>(g_xv + (v + u * team) * V, r_x + u * V);
        if constexpr (R::binary)
          device::load_vec<V, mask_signs>(g_yv + (v + u * team) * V, r_y + u * V);
      }
      add(r_x, r_y);
    }
    for (; v < nvec; v += team) { // the rest, one vector at a time
      X r_x[V];
      Y r_y[YV];
      device::load_vec<V, mask_signs>(g_xv + v * V, r_x);
      if constexpr (R::binary)
        device::load_vec<V, mask_signs>(g_yv + v * V, r_y);
      add(r_x, r_y);
    }
  }
  // Single elements: [0, head) and [head + nvec V, n).
  const std::int64_t tail_begin = head + nvec * V;
  const std::int64_t scalars = head + (n - tail_begin);
  for (std::int64_t j = rank; j < scalars; j += team) {
    const std::int64_t i = j < head ? j : tail_begin + (j - head);
    X r_x[1] = {static_cast<X>(x[i])};
    if constexpr (mask_signs)
      magnitudes(r_x);
    Y r_y[1] = {};
    if constexpr (R::binary)
      r_y[0] = static_cast<Y>(y[i]);
    add(r_x, r_y);
  }
  return acc.partial();
}

// The team's total from its lanes' partials, in lane 0 of the team: WarpReduce's tree over
// logical warps of 2^tier lanes (tier < block_tier; warp-uniform).
template <class P, class Merge>
__device__ __forceinline__ P team_total(int tier, const P& part, Merge merge) {
  constexpr auto tree = WarpReduceAlgorithm::shuffle_tree;
  switch (tier) {
  case 0:
    return part;
  case 1:
    return WarpReduce<P, tree, 2>().ReduceToLane0(part, merge);
  case 2:
    return WarpReduce<P, tree, 4>().ReduceToLane0(part, merge);
  case 3:
    return WarpReduce<P, tree, 8>().ReduceToLane0(part, merge);
  case 4:
    return WarpReduce<P, tree, 16>().ReduceToLane0(part, merge);
  default:
    return WarpReduce<P, tree, 32>().ReduceToLane0(part, merge);
  }
}

// Blocks per SM the kernel of R is compiled for: 4 (64 registers) for unary reductions of 8-, 32-
// and 64-bit elements with a partial of at most 8 bytes (float-result sums and norms, Min, Max,
// Reduce), which fit without spilling on sm_90 (but for 4 bytes in 64-bit integer sums); else 0,
// no hint: 16-bit inputs, wider partials and dot products would spill under the cap, and an
// explicit 1 lets ptxas take more registers than no hint does (91 against 80 for 16-bit sums: 2
// blocks per SM instead of 3, 17-23% slower on the H200).
template <class R>
inline constexpr int segmented_min_blocks =
    !R::binary && sizeof(typename R::accumulator::partial_type) <= 8 &&
            sizeof(typename R::x_type) != 2
        ? 4
        : 0;

// R: a reduction (reduce/detail/device_kernel.cuh), passed its empty accumulator `fresh`;
// Segments: offset_segments, fixed_segments, or any type with their bounds and source (the
// batches of reduce/batched.cuh).
template <class R, class Segments>
__global__ void __launch_bounds__(segmented_threads, segmented_min_blocks<R>)
    segmented_kernel(segmented_params<R, Segments> p, typename R::accumulator fresh) {
  using P = typename R::accumulator::partial_type;
  using Out = typename R::out_type;
  constexpr int W = segmented_warps;
  using BlockP = BlockReduce<P, segmented_threads, BlockReduceAlgorithm::shuffle_tree,
                             BlockCombine::warp_totals>;
  __shared__ typename BlockP::TempStorage s_reduce;
  __shared__ unsigned char s_order[W][32]; // [W][32] per warp: the lanes of one tier's segments
  __shared__ unsigned s_long[W];           // [W] per warp: the lanes of its block-tier segments

  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int G = p.per_warp;
  const auto merge = [&](const P& a, const P& b) { return fresh.merge(a, b); };
  const auto result = [&](std::int64_t length, const P& total) {
    return length == 0 ? fresh.template empty_result<Out>() : fresh.template finish<Out>(total);
  };
  // Rank `rank` of a team of `team` threads on the segment at `first` of `length` elements.
  const auto share = [&](std::int64_t first, std::int64_t length, int team, int rank) {
    const auto x = p.segments.template source<0>(p.x, first);
    if constexpr (R::binary)
      return team_partial<R>(x, p.segments.template source<1>(p.y, first), length, team, rank,
                             fresh);
    else
      return team_partial<R>(x, p.y, length, team, rank, fresh);
  };

  // Steps 1 and 2 for group g: the warps' segments of the warp tiers; s_long for step 3.
  const auto warp_tiers = [&](std::int64_t g) {
    // 1. Lane l < G of warp w holds segment (g W + w) G + l: its bounds and its tier.
    const std::int64_t base = (g * W + warp) * G;
    std::int64_t first = 0, length = 0;
    int tier = -1; // no segment
    if (lane < G && base + lane < p.num_segments) {
      p.segments.bounds(base + lane, first, length);
      tier = tier_of<R>(length);
    }
    const unsigned long_lanes = __ballot_sync(full_warp_mask, tier == block_tier);
    if (lane == 0)
      s_long[warp] = long_lanes;
    // 2. The warp's tiers in turn; the k-th segment of a tier of teams of T = 2^t lanes goes to
    // team k mod (32 / T), lanes [T (k mod 32 / T), ...) of the warp.
    unsigned tiers = tier >= 0 && tier < block_tier ? 1u << tier : 0u;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    tiers = __reduce_or_sync(full_warp_mask, tiers);
#else
    for (int d = 1; d < 32; d *= 2) // no redux.sync before sm_80
      tiers |= __shfl_xor_sync(full_warp_mask, tiers, d);
#endif
    for (; tiers != 0; tiers &= tiers - 1) {
      const int t = __ffs(tiers) - 1;
      const unsigned members = __ballot_sync(full_warp_mask, tier == t);
      if (tier == t)
        s_order[warp][__popc(members & ((1u << lane) - 1u))] = static_cast<unsigned char>(lane);
      __syncwarp();
      const int count = __popc(members), teams = 32 >> t;
      const int team = lane >> t, rank = lane & ((1 << t) - 1);
      for (int k0 = 0; k0 < count; k0 += teams) { // warp-uniform
        const int k = k0 + team;
        const int src = k < count ? s_order[warp][k] : lane;
        // Every lane shuffles: a whole-warp shuffle that some lanes skip never completes.
        const std::int64_t first_k = __shfl_sync(full_warp_mask, first, src);
        const std::int64_t length_src = __shfl_sync(full_warp_mask, length, src);
        const std::int64_t length_k = k < count ? length_src : 0;
        P part = fresh.partial();
        if (k < count)
          part = share(first_k, length_k, 1 << t, rank);
        const P total = team_total(t, part, merge);
        if (k < count && rank == 0)
          p.out[base + src] = result(length_k, total);
      }
      __syncwarp(); // s_order is rewritten by the next tier
    }
    __syncthreads();
  };

  // Every segment of the block tier (known on the host): a group is one segment, and only step 3
  // runs (block-uniform branches), so that long segments spread over the grid; step 3 keeps one
  // call site, so that it stays inline.
  const bool block_only = p.block_per_segment;
  const std::int64_t span = block_only ? 1 : std::int64_t(W) * G; // segments per group
  for (std::int64_t g = blockIdx.x; g * span < p.num_segments; g += gridDim.x) {
    if (block_only) {
      if (lane == 0)
        s_long[warp] = warp == 0 ? 1u : 0u;
      __syncthreads();
    } else {
      warp_tiers(g);
    }
    // 3. The block per long segment, in the group's order (a block-uniform loop).
    for (int w = 0; w < W; ++w) {
      for (unsigned m = s_long[w]; m != 0; m &= m - 1) {
        const std::int64_t s = block_only ? g : (g * W + w) * G + (__ffs(m) - 1);
        std::int64_t first_s = 0, length_s = 0;
        p.segments.bounds(s, first_s, length_s);
        const P part = share(first_s, length_s, segmented_threads, static_cast<int>(threadIdx.x));
        const P total = BlockP(s_reduce).Reduce(part, merge); // ends with a barrier
        if (threadIdx.x == 0)
          p.out[s] = result(length_s, total);
      }
    }
    __syncthreads(); // s_long is rewritten by the next group
  }
}

} // namespace segmented
} // namespace detail
} // namespace tcr
