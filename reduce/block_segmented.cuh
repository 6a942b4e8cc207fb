// SPDX-License-Identifier: BSD-3-Clause
// tcr: block-level segmented reductions: several segments per block, one per team of threads.
//
//   using BSR = tcr::BlockSegmentedReduce<T, BLOCK_THREADS, SEGMENT_THREADS>;
//   __shared__ typename BSR::TempStorage s_reduce;
//   T r = BSR(s_reduce).Sum(items);            // items: one value or item, or an array In[N]
//   T r = BSR(s_reduce).Sum(items, num_valid); // the segment's first num_valid items only
//   T r = BSR(s_reduce).Dot(x, y);             // arrays X[N], Y[N] (and num_valid)
//   T r = BSR(s_reduce).Reduce(x, op);
//
// The block's BLOCK_THREADS threads (linear rank) form BLOCK_THREADS / SEGMENT_THREADS teams of
// SEGMENT_THREADS consecutive threads; team k (threads [k S, k S + S), S = SEGMENT_THREADS)
// reduces its own segment, and every thread of a team receives its team's result, bit for bit.
// T is a plain arithmetic type or an accumulator from compensated/ (as BlockReduce's). Contract:
//   - SEGMENT_THREADS a power of two up to 32 (a team is a logical warp of WarpReduce, no shared
//     memory, no barrier; any team may call on its own, with all its threads), or a multiple of
//     32 (whole warps: the call has barriers, so every thread of the block must call);
//     BLOCK_THREADS a multiple of SEGMENT_THREADS, at most 1024;
//   - item arrays are blocked within the team: rank r of the team holds items [r N, r N + N) of
//     the team's S N items; with num_valid (in [0, S N], the same for the whole team) only items
//     of index < num_valid count, and 0 gives the empty sum;
//   - the combining order is fixed by SEGMENT_THREADS alone (a team's lanes: WarpReduce's tree;
//     across a team's warps: their totals in warp order), so a segment's result does not depend
//     on BLOCK_THREADS, on the other teams or on the run;
//   - error bounds: tree height N - 1 + 5 within a warp, plus S / 32 - 1 across a team's warps;
//   - the multi-warp calls end with a barrier, so TempStorage may be reused right after them.
// The tensor-core algorithms need a warp per segment; use BlockReduce or WarpReduce for those.
#pragma once

#include <type_traits>
#include "../compensated/accumulator.cuh"
#include "warp.cuh"

namespace tcr {

template <class T, int BLOCK_THREADS, int SEGMENT_THREADS>
class BlockSegmentedReduce {
  static constexpr bool in_warp = SEGMENT_THREADS <= 32;
  static_assert(SEGMENT_THREADS >= 1 && (in_warp ? (SEGMENT_THREADS & (SEGMENT_THREADS - 1)) == 0
                                                 : SEGMENT_THREADS % 32 == 0),
                "tcr::BlockSegmentedReduce: SEGMENT_THREADS must be a power of two up to 32 or a "
                "multiple of 32");
  static_assert(BLOCK_THREADS >= 1 && BLOCK_THREADS <= 1024 && BLOCK_THREADS % SEGMENT_THREADS == 0,
                "tcr::BlockSegmentedReduce: BLOCK_THREADS must be a multiple of SEGMENT_THREADS, "
                "at most 1024");
  static_assert(std::is_trivially_copyable_v<T> && std::is_default_constructible_v<T>,
                "tcr::BlockSegmentedReduce<T>: T must be a number or an accumulator from "
                "compensated/");

  static constexpr int team_warps = in_warp ? 1 : SEGMENT_THREADS / 32; // warps per team
  static constexpr int slots = in_warp ? 1 : BLOCK_THREADS / 32;
  using Warp = WarpReduce<T, WarpReduceAlgorithm::shuffle_tree, in_warp ? SEGMENT_THREADS : 32>;

public:
  static constexpr int segments = BLOCK_THREADS / SEGMENT_THREADS; // teams per block

  // Raw storage: one T per warp (multi-warp teams; unused otherwise).
  struct TempStorage {
    alignas(T) unsigned char bytes[sizeof(T) * slots]; // [slots] T
  };

  __device__ __forceinline__ explicit BlockSegmentedReduce(TempStorage& storage) : s_(storage) {}

  // The team (segment) of the calling thread, and its rank in the team.
  __device__ __forceinline__ static int segment() { return linear_tid() / SEGMENT_THREADS; }
  __device__ __forceinline__ static int rank() { return linear_tid() % SEGMENT_THREADS; }

  // One value per thread combined with op (associative; a fixed order).
  template <class Op>
  __device__ __forceinline__ T Reduce(const T& x, Op op) {
    if constexpr (in_warp)
      return Warp().Reduce(x, op);
    else
      return across_warps(Warp().ReduceToLane0(x, op), op);
  }

  // The sum (merge, for accumulators) of one value per thread.
  __device__ __forceinline__ T Sum(const T& x) { return Reduce(x, detail::merge_op{}); }

  // The sum of the team's S N items (blocked), or of its first num_valid.
  template <class In, int N>
  __device__ __forceinline__ T Sum(const In (&items)[N]) {
    if constexpr (in_warp)
      return Warp().Sum(items);
    else
      return across_warps(Warp().SumToLane0(items), detail::merge_op{});
  }
  template <class In, int N>
  __device__ __forceinline__ T Sum(const In (&items)[N], int num_valid) {
    if constexpr (in_warp)
      return Warp().Sum(items, num_valid);
    else
      return across_warps(Warp().SumToLane0(items, warp_share<N>(num_valid)), detail::merge_op{});
  }

  // The dot product of the team's S N pairs (blocked), or of its first num_valid.
  template <class X, class Y, int N>
  __device__ __forceinline__ T Dot(const X (&x)[N], const Y (&y)[N]) {
    if constexpr (in_warp)
      return Warp().Dot(x, y);
    else
      return across_warps(Warp().DotToLane0(x, y), detail::merge_op{});
  }
  template <class X, class Y, int N>
  __device__ __forceinline__ T Dot(const X (&x)[N], const Y (&y)[N], int num_valid) {
    if constexpr (in_warp)
      return Warp().Dot(x, y, num_valid);
    else
      return across_warps(Warp().DotToLane0(x, y, warp_share<N>(num_valid)), detail::merge_op{});
  }

private:
  TempStorage& s_;

  __device__ __forceinline__ static int linear_tid() {
    return static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
  }

  // The part of the team's num_valid items that falls in this thread's warp, in [0, 32 N].
  template <int N>
  __device__ __forceinline__ static int warp_share(int num_valid) {
    const int mine = num_valid - (rank() / 32) * 32 * N;
    return mine < 0 ? 0 : mine > 32 * N ? 32 * N : mine;
  }

  // Lane 0 of each warp holds its warp's total: the team's warp totals in warp order, to every
  // thread of the team.
  template <class Op>
  __device__ __forceinline__ T across_warps(const T& warp_total, Op op) {
    T* s_total = reinterpret_cast<T*>(s_.bytes); // [BLOCK_THREADS / 32] per warp
    const int warp = linear_tid() / 32;
    if (linear_tid() % 32 == 0)
      s_total[warp] = warp_total;
    __syncthreads();
    const int first = segment() * team_warps;
    T r = s_total[first];
#pragma unroll
    for (int w = 1; w < team_warps; ++w)
      r = op(r, s_total[first + w]);
    __syncthreads(); // the storage may be reused
    return r;
  }
};

} // namespace tcr
