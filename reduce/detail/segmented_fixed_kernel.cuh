// SPDX-License-Identifier: BSD-3-Clause
// tcr: tcr::DeviceSegmentedReduce's kernel for the fixed-size overload with segments of at most
// segmented_warp_max elements (implementation detail).
//
// Every segment has the same length n, so every segment has the same tier t (tier_of, a team
// of T = 2^t lanes) and the kernel needs no bounds, ballots or tier loop: warp w of the grid
// takes the warp tile of (32 / T) * U consecutive segments at (grid-stride) tile w, team k of
// the warp (lanes [k T, k T + T)) its segments k, k + 32 / T, ..., k + (U - 1) 32 / T; then
// each segment's team_total (the same shuffle tree) and the team's first lane writes the
// result. Below tier 5 (every rank has at most 4 vectors of a segment) and for unary reductions,
// a rank's vectors of the U segments are loaded together (team_load) and the next tile's are
// loaded before this tile's are folded (team_fold): a software pipeline over a grid of a few
// waves of resident blocks, so that loads stay in flight while the warp adds, merges and stores.
// Tier 5 and dot products fold with team_partial's loop form; at tier 5 a warp takes one segment
// a tile (U = 1) and the grid is a block for every 8 segments, not capped at a few waves: with
// four segments a warp and two waves, 2^14 segments of 4096 floats on an H100 went to 4096 warps
// of 512 blocks, the last 116 of them a wave of their own (96.9 us, CUB's block per segment
// 90.5; now 90.8). team_load / team_fold /
// team_partial and team_total are segmented_kernel's, so a segment has the bits it gets there
// (offsets and fixed-size forms agree).
#pragma once

#include <cstdint>
#include "segmented_kernel.cuh"

namespace tcr {
namespace detail {
namespace segmented {

// Segments per team in flight (U): fixed_unroll for dot products below tier 5 (the loop form of
// team_partial), 1 at tier 5, and fixed_vectors / Slots for the unary tiers below (every rank
// has at most Slots vectors of a segment). fixed_team_unroll is the one rule: the kernel's
// dispatch instantiates fixed_tiles with it, the host sizes the grid with it.
inline constexpr int fixed_unroll = 4;
inline constexpr int fixed_vectors = 4;
__host__ __device__ constexpr int fixed_team_unroll(int slots, int tier) {
  return slots != 0 ? fixed_vectors / slots : tier == 5 ? 1 : fixed_unroll;
}

template <class R>
struct fixed_params {
  typename R::x_source x;
  typename R::y_source y; // second operand (Dot); unused when unary
  typename R::out_iterator out;
  fixed_segments segments;
  std::int64_t num_segments;
  int tier; // tier_of<R>(segments.size) < block_tier
};

// The warp tiles of a fixed-size launch with team_partial<R, Slots> (Slots 0: the loop form).
template <class R, int Slots, int U, class Acc>
__device__ __forceinline__ void
fixed_tiles(const fixed_params<R>& p, const typename R::accumulator& fresh, const Acc& warp_fresh) {
  using P = typename R::accumulator::partial_type;
  using Out = typename R::out_type;
  constexpr int W = segmented_warps;
  const auto merge = [&](const P& a, const P& b) { return fresh.merge(a, b); };
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int t = p.tier; // warp-uniform
  const int teams = 32 >> t, team = lane >> t, rank = lane & ((1 << t) - 1);
  const std::int64_t n = p.segments.size;
  const std::int64_t per_warp = std::int64_t(teams) * U;
  const std::int64_t stride = std::int64_t(gridDim.x) * W * per_warp;
  const std::int64_t first_base = (std::int64_t(blockIdx.x) * W + threadIdx.x / 32) * per_warp;
  const auto x_at = [&](std::int64_t s) { return p.segments.template source<0>(p.x, s * n); };
  const auto y_at = [&](std::int64_t s) {
    if constexpr (R::binary)
      return p.segments.template source<1>(p.y, s * n);
    else
      return p.y;
  };
  // The tile at base: its segments' totals (every lane: whole-warp shuffles) and results.
  const auto finish_tile = [&](std::int64_t base, const P(&part)[U]) {
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const std::int64_t s = base + team + std::int64_t(u) * teams;
      const P total = team_total(t, part[u], merge);
      if (s < p.num_segments && rank == 0)
        p.out[s] = n == 0 ? fresh.template empty_result<Out>() : fresh.template finish<Out>(total);
    }
  };
  if constexpr (Slots > 0) {
    // Software-pipelined: the next tile's vectors are loaded before this tile's are folded, so
    // that loads stay in flight while the warp adds, merges and stores.
    using L = team_loads<R, Slots>;
    const auto load_tile = [&](L(&l)[U], std::int64_t base) {
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const std::int64_t s = base + team + std::int64_t(u) * teams;
        if (s < p.num_segments)
          team_load(l[u], x_at(s), y_at(s), n, 1 << t, rank);
      }
    };
    L cur[U];
    if (first_base < p.num_segments)
      load_tile(cur, first_base);
    for (std::int64_t base = first_base; base < p.num_segments; base += stride) { // warp-uniform
      L next[U];
      if (base + stride < p.num_segments)
        load_tile(next, base + stride);
      P part[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const std::int64_t s = base + team + std::int64_t(u) * teams;
        part[u] = s < p.num_segments
                      ? team_fold(cur[u], x_at(s), y_at(s), n, 1 << t, rank, warp_fresh)
                      : fresh.partial();
      }
      finish_tile(base, part);
#pragma unroll
      for (int u = 0; u < U; ++u)
        cur[u] = next[u];
    }
  } else {
    for (std::int64_t base = first_base; base < p.num_segments; base += stride) { // warp-uniform
      P part[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const std::int64_t s = base + team + std::int64_t(u) * teams;
        part[u] = s < p.num_segments
                      ? team_partial<R, 0>(x_at(s), y_at(s), n, 1 << t, rank, warp_fresh)
                      : fresh.partial();
      }
      finish_tile(base, part);
    }
  }
}

// Slots for a fixed size: enough for the most vectors a rank gets (at most n / V vectors in all,
// shared by 2^tier ranks), 2 or 4 below tier 5 for unary reductions; 0 (the loop form) at tier 5
// and for dot products.
template <class R>
inline int fixed_slots(std::int64_t n, int tier) {
  if (tier >= 5 || R::binary) // dot products: the loop form (two operands' registers)
    return 0;
  const std::int64_t vectors = n / R::vector_items;
  const std::int64_t per_rank = (vectors + (std::int64_t(1) << tier) - 1) >> tier;
  return per_rank <= 2 ? 2 : 4;
}

// Blocks per SM the kernel is compiled for: 3 (80 registers) holds two tiles' fixed_vectors loads
// per rank without spilling; 8 vectors at 2 blocks per SM (109 registers) measured slower on the
// H200 from size 16 up.
inline constexpr int fixed_min_blocks = 3;

template <class R>
__global__ void __launch_bounds__(segmented_threads, fixed_min_blocks)
    segmented_fixed_kernel(fixed_params<R> p, typename R::accumulator fresh, int slots) {
  const auto warp_fresh = warp_accumulator<R>(fresh);
  if constexpr (!R::binary) {
    if (slots == 2)
      return fixed_tiles<R, 2, fixed_team_unroll(2, 0)>(p, fresh, warp_fresh);
    if (slots == 4)
      return fixed_tiles<R, 4, fixed_team_unroll(4, 0)>(p, fresh, warp_fresh);
  }
  if (p.tier == 5)
    return fixed_tiles<R, 0, fixed_team_unroll(0, 5)>(p, fresh, warp_fresh);
  fixed_tiles<R, 0, fixed_team_unroll(0, 0)>(p, fresh, warp_fresh);
}

} // namespace segmented
} // namespace detail
} // namespace tcr
