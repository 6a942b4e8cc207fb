// SPDX-License-Identifier: BSD-3-Clause
// tcr: tcr::DeviceSegmentedReduce's kernel for the fixed-size overload with segments of at most
// segmented_warp_max elements (implementation detail).
//
// Every segment has the same length n, so every segment has the same tier t (tier_of, a team
// of T = 2^t lanes) and the kernel needs no bounds, ballots or tier loop: warp w of the grid
// takes the warp tile of (32 / T) * U consecutive segments at (grid-stride) tile w, team k of
// the warp (lanes [k T, k T + T)) its segments k, k + 32 / T, ..., k + (U - 1) 32 / T, all U
// shares folded (team_partial) before any is merged, so that the loads of U segments are in
// flight at once; then each segment's team_total (the same shuffle tree) and the team's first
// lane writes the result. team_partial and team_total are segmented_kernel's, so a segment
// has the bits it gets there (offsets and fixed-size forms agree).
#pragma once

#include <cstdint>
#include "segmented_kernel.cuh"

namespace tcr {
namespace detail {
namespace segmented {

// Segments per team in flight: U.
inline constexpr int fixed_unroll = 4;

template <class R>
struct fixed_params {
  typename R::x_source x;
  typename R::y_source y; // second operand (Dot); unused when unary
  typename R::out_iterator out;
  fixed_segments segments;
  std::int64_t num_segments;
  int tier; // tier_of<R>(segments.size) < block_tier
};

template <class R>
__global__ void __launch_bounds__(segmented_threads, segmented_min_blocks<R>)
    segmented_fixed_kernel(fixed_params<R> p, typename R::accumulator fresh) {
  using P = typename R::accumulator::partial_type;
  using Out = typename R::out_type;
  constexpr int W = segmented_warps;
  constexpr int U = fixed_unroll;
  const auto merge = [&](const P& a, const P& b) { return fresh.merge(a, b); };
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int t = p.tier; // warp-uniform
  const int teams = 32 >> t, team = lane >> t, rank = lane & ((1 << t) - 1);
  const std::int64_t n = p.segments.size;
  const std::int64_t per_warp = std::int64_t(teams) * U;
  const std::int64_t stride = std::int64_t(gridDim.x) * W * per_warp;
  for (std::int64_t base = (std::int64_t(blockIdx.x) * W + threadIdx.x / 32) * per_warp;
       base < p.num_segments; base += stride) { // warp-uniform
    P part[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const std::int64_t s = base + team + std::int64_t(u) * teams;
      part[u] = fresh.partial();
      if (s < p.num_segments) {
        const std::int64_t first = s * n;
        const auto x = p.segments.template source<0>(p.x, first);
        if constexpr (R::binary)
          part[u] =
              team_partial<R>(x, p.segments.template source<1>(p.y, first), n, 1 << t, rank, fresh);
        else
          part[u] = team_partial<R>(x, p.y, n, 1 << t, rank, fresh);
      }
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const std::int64_t s = base + team + std::int64_t(u) * teams;
      const P total = team_total(t, part[u], merge); // every lane: whole-warp shuffles
      if (s < p.num_segments && rank == 0)
        p.out[s] = n == 0 ? fresh.template empty_result<Out>() : fresh.template finish<Out>(total);
    }
  }
}

} // namespace segmented
} // namespace detail
} // namespace tcr
