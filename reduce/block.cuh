// SPDX-License-Identifier: BSD-3-Clause
// tcr: block-level reductions.
//
//   using BR = tcr::BlockReduce<T, BLOCK_THREADS, Algorithm, Combine>;
//   __shared__ typename BR::TempStorage s_reduce;
//   T r = BR(s_reduce).Sum(items);            // items: one value or item, or an array In[N]
//   T r = BR(s_reduce).Sum(items, num_valid); // partial tiles
//   T r = BR(s_reduce).Dot(x, y);             // one item or arrays X[N], Y[N]
//   T r = BR(s_reduce).Reduce(x, op);
//
// T is a plain arithmetic type or an accumulator from compensated/. Compensated block sums:
// BlockReduce<tcr::neumaier<float>, 256> (Sum2's bound), or the cheaper
// BlockReduce<tcr::double_carried<float>, 256> for float results (compensated/block_sum.cuh: a
// float sum or dot carried in double, bound u|s| + 2^-40 S); compensated dots: tcr::dot2<T> or
// tcr::double_carried<float>. Contract:
//   - every thread of the block must call, and every thread receives the same result;
//   - the call ends with a barrier, so the same TempStorage (or memory aliased with it) may be
//     reused right after it returns;
//   - the combining order is fixed by BLOCK_THREADS, the algorithm and the combine alone, so
//     results are bitwise reproducible run to run;
//   - item arrays are in blocked arrangement: thread t (linear rank) holds items [t N, t N + N)
//     of the block's tile, and with num_valid only items of index < num_valid count (for one
//     value per thread, num_valid counts threads).
// Blocks may be 1-, 2- or 3-dimensional; BLOCK_THREADS is their total size, any value in
// [1, 1024] (ceil(BLOCK_THREADS / 32) warps, the last one possibly partial) for shuffle_tree, a
// multiple of 32 for the tensor-core algorithms (mma.sync needs whole warps).
// TempStorage is raw, suitably aligned bytes (trivially constructible), so it may share a union
// with the caller's other shared memory.
//
// Algorithms (BlockReduceAlgorithm), the same as the warp's (reduce/warp.cuh): shuffle_tree for
// anything; tensor_core_exact for exact Sums of e4m3 and e5m2 items; tensor_core_chain and
// tensor_core_fold for Sum of __half, __nv_bfloat16, e4m3, e5m2 and float items: each warp sums
// its items on the tensor cores, then the warps' totals are merged as in shuffle_tree. Reduce and
// Dot always use the shuffle tree. Default: shuffle_tree (it works for every T, op and input).
// tcr::block_sum_algorithm_v<In, N> below is the fastest algorithm whose sums are exact or
// compensated for N In items per thread, chosen by measurement.
#pragma once

#include <type_traits>
#include "../compensated/accumulator.cuh"
#include "warp.cuh"

namespace tcr {

// How the block's warps reduce their items before the warps' totals are merged.
enum class BlockReduceAlgorithm {
  shuffle_tree,      // per-thread accumulation, then warp shuffle trees
  tensor_core_exact, // mma.sync against ones, exact sums of e4m3 / e5m2 (through f16)
  tensor_core_chain, // mma.sync against ones, C carries the sum (Sum of 8/16-bit and float items)
  tensor_core_fold,  // mma.sync against ones, C = 0, each D folded into T
};

// The algorithm to use for a compensated block Sum of N In items per thread: the fastest one
// whose sums are exact or compensated, by the measurement in
// bench/results/2026-12-01-h200-block-a6a512e/README.md (bench/block_bench.cuh on the H200).
template <class In, int N = 16>
inline constexpr BlockReduceAlgorithm block_sum_algorithm_v =
    (std::is_same_v<In, __nv_fp8_e4m3> || std::is_same_v<In, __nv_fp8_e5m2>)&&N >= 16
        ? BlockReduceAlgorithm::tensor_core_exact
        : BlockReduceAlgorithm::shuffle_tree;

// How Sum and Dot combine the threads' partials across the block (Reduce(x, op) always uses
// warp_totals, which applies op in rank order).
//   raking       every thread stores its partial; warp 0 merges them (lane l: ranks l, l + 32,
//                l + 64, ...) and merges its lanes with one warp tree; the result goes back
//                through shared memory. One warp tree per call instead of one per warp: the
//                shuffle unit is the block layer's bottleneck (one shuffle per word of T and
//                tree level in every warp; bench/results/2026-12-01-h200-block-a6a512e/README.md).
//                Three barriers, BLOCK_THREADS + 1 T of storage.
//   warp_totals  each warp merges its lanes with a warp tree; every warp then merges the warp
//                totals itself (for whole warps; else warp 0 and a broadcast), two barriers,
//                ceil(BLOCK_THREADS / 32) + 1 T of storage.
// Tree heights for error bounds (N items per thread, W = ceil(BLOCK_THREADS / 32) warps):
// raking N - 1 + W + 5 at most, warp_totals N - 1 + 10 at most.
enum class BlockCombine { raking, warp_totals };

template <class T, int BLOCK_THREADS,
          BlockReduceAlgorithm Algorithm = BlockReduceAlgorithm::shuffle_tree,
          BlockCombine Combine = BlockCombine::raking>
class BlockReduce {
  static_assert(BLOCK_THREADS >= 1 && BLOCK_THREADS <= 1024,
                "tcr::BlockReduce: BLOCK_THREADS must be in [1, 1024]");
  static_assert(Algorithm == BlockReduceAlgorithm::shuffle_tree || BLOCK_THREADS % 32 == 0,
                "tcr::BlockReduce: the tensor-core algorithms need whole warps (mma.sync is "
                "warp-wide): BLOCK_THREADS must be a multiple of 32; use shuffle_tree");
  static_assert(std::is_trivially_copyable_v<T> && std::is_default_constructible_v<T>,
                "tcr::BlockReduce<T>: T must be a number or an accumulator from compensated/");

  static constexpr int warps = (BLOCK_THREADS + 31) / 32;
  static constexpr int tail_lanes = BLOCK_THREADS % 32; // threads of the last warp; 0: full
  static constexpr int full_warps = BLOCK_THREADS / 32;
  static constexpr WarpReduceAlgorithm warp_algorithm =
      Algorithm == BlockReduceAlgorithm::tensor_core_exact ? WarpReduceAlgorithm::tensor_core_exact
      : Algorithm == BlockReduceAlgorithm::tensor_core_chain
          ? WarpReduceAlgorithm::tensor_core_chain
      : Algorithm == BlockReduceAlgorithm::tensor_core_fold ? WarpReduceAlgorithm::tensor_core_fold
                                                            : WarpReduceAlgorithm::shuffle_tree;
  using FullWarp = WarpReduce<T, warp_algorithm>;
  using FullTree = WarpReduce<T, WarpReduceAlgorithm::shuffle_tree>;
  using TailWarp = WarpReduce<T, WarpReduceAlgorithm::shuffle_tree, tail_lanes ? tail_lanes : 32>;
  using WarpTotals = WarpReduce<T, WarpReduceAlgorithm::shuffle_tree, warps>;

  static constexpr bool raking = Combine == BlockCombine::raking && warps > 1;
  static constexpr int slots = (raking ? BLOCK_THREADS : warps) + 1;

public:
  // Raw storage: one T per thread (raking) or per warp, and a broadcast slot.
  struct TempStorage {
    alignas(T) unsigned char bytes[sizeof(T) * slots]; // [slots] T
  };

  __device__ __forceinline__ explicit BlockReduce(TempStorage& storage) : s_(storage) {}

  // Reduce one value per thread with op (associative; combined in a fixed order). Every thread
  // gets the result.
  template <class Op>
  __device__ __forceinline__ T Reduce(const T& x, Op op) {
    const int warp = linear_tid() / 32;
    T total;
    if (tail_lanes == 0 || warp < full_warps)
      total = FullTree().ReduceToLane0(x, op);
    else
      total = TailWarp().ReduceToLane0(x, op);
    return combine_warps(total, op, warps);
  }

  // As above over the first num_valid threads only (linear thread rank < num_valid), for
  // partial tiles; num_valid must be in [1, BLOCK_THREADS].
  template <class Op>
  __device__ __forceinline__ T Reduce(const T& x, Op op, int num_valid) {
    const int warp = linear_tid() / 32;
    const int valid_lanes = num_valid - warp * 32;
    T total{};
    if (valid_lanes > 0) {
      if (tail_lanes == 0 || warp < full_warps)
        total = FullTree().ReduceToLane0(x, op, valid_lanes);
      else
        total = TailWarp().ReduceToLane0(x, op, valid_lanes);
    }
    return combine_warps(total, op, (num_valid + 31) / 32);
  }

  // The sum (merge, for accumulators) of one value per thread. Every thread gets the result.
  __device__ __forceinline__ T Sum(const T& x) {
    if constexpr (raking)
      return rake(x, BLOCK_THREADS);
    else
      return Reduce(x, detail::merge_op{});
  }
  __device__ __forceinline__ T Sum(const T& x, int num_valid) {
    if constexpr (raking)
      return rake(x, num_valid);
    else
      return Reduce(x, detail::merge_op{}, num_valid);
  }

  // The sum of one input item per thread (an In that is not T, e.g. __half into neumaier<float>),
  // optionally over the first num_valid threads (num_valid in [0, BLOCK_THREADS]).
  template <class In, class = std::enable_if_t<!std::is_same_v<In, T> && !std::is_array_v<In>>>
  __device__ __forceinline__ T Sum(const In& item, int num_valid = BLOCK_THREADS) {
    const In items[1] = {item};
    return Sum(items, num_valid);
  }

  // The sum of the block's BLOCK_THREADS * N items (blocked arrangement), optionally over the
  // first num_valid of them (num_valid in [0, BLOCK_THREADS N]; 0 gives the empty sum). Every
  // thread gets the result.
  template <class In, int N>
  __device__ __forceinline__ T Sum(const In (&items)[N]) {
    if constexpr (raking) {
      const FullWarp w;
      return rake(w.LaneShare(w.LanePartial(items, N)), BLOCK_THREADS);
    }
    const int warp = linear_tid() / 32;
    T total;
    if (tail_lanes == 0 || warp < full_warps)
      total = FullWarp().SumToLane0(items);
    else
      total = TailWarp().SumToLane0(items);
    return combine_warps(total, detail::merge_op{}, warps);
  }
  template <class In, int N>
  __device__ __forceinline__ T Sum(const In (&items)[N], int num_valid) {
    if constexpr (raking) {
      const FullWarp w;
      const int mine = num_valid - linear_tid() * N;
      if constexpr (detail::is_tensor_core_v<warp_algorithm>) {
        // a lane's share mixes its quad's items: every thread of the valid warps counts
        return rake(w.LaneShare(w.LanePartial(items, mine)), 32 * valid_warps_for<N>(num_valid));
      } else {
        return rake(w.LanePartial(items, mine), valid_threads_for<N>(num_valid));
      }
    }
    const int warp = linear_tid() / 32;
    const int mine = num_valid - warp * 32 * N;
    T total;
    if (tail_lanes == 0 || warp < full_warps)
      total = FullWarp().SumToLane0(items, mine);
    else
      total = TailWarp().SumToLane0(items, mine);
    return combine_warps(total, detail::merge_op{}, valid_warps_for<N>(num_valid));
  }

  // The dot product of one pair per thread or arrays x[N], y[N] per thread (blocked), optionally
  // over the first num_valid pairs. T: a plain type (fast) or a dot accumulator (tcr::dot2<...>,
  // tcr::double_carried<float>: compensated).
  template <class X, class Y, class = std::enable_if_t<!std::is_array_v<X>>>
  __device__ __forceinline__ T Dot(const X& x, const Y& y, int num_valid = BLOCK_THREADS) {
    const X xs[1] = {x};
    const Y ys[1] = {y};
    return Dot(xs, ys, num_valid);
  }
  template <class X, class Y, int N>
  __device__ __forceinline__ T Dot(const X (&x)[N], const Y (&y)[N]) {
    if constexpr (raking)
      return rake(FullTree::LaneDot(x, y, N), BLOCK_THREADS);
    const int warp = linear_tid() / 32;
    T total;
    if (tail_lanes == 0 || warp < full_warps)
      total = FullTree().DotToLane0(x, y);
    else
      total = TailWarp().DotToLane0(x, y);
    return combine_warps(total, detail::merge_op{}, warps);
  }
  template <class X, class Y, int N>
  __device__ __forceinline__ T Dot(const X (&x)[N], const Y (&y)[N], int num_valid) {
    if constexpr (raking)
      return rake(FullTree::LaneDot(x, y, num_valid - linear_tid() * N),
                  valid_threads_for<N>(num_valid));
    const int warp = linear_tid() / 32;
    const int mine = num_valid - warp * 32 * N;
    T total;
    if (tail_lanes == 0 || warp < full_warps)
      total = FullTree().DotToLane0(x, y, mine);
    else
      total = TailWarp().DotToLane0(x, y, mine);
    return combine_warps(total, detail::merge_op{}, valid_warps_for<N>(num_valid));
  }

private:
  // Warps holding any of the first num_valid items (N per thread), at least 1.
  template <int N>
  __device__ __forceinline__ static int valid_warps_for(int num_valid) {
    const int w = (num_valid + 32 * N - 1) / (32 * N);
    return w < 1 ? 1 : (w > warps ? warps : w);
  }

  // Threads holding any of the first num_valid items (N per thread), in [1, BLOCK_THREADS].
  template <int N>
  __device__ __forceinline__ static int valid_threads_for(int num_valid) {
    const int t = (num_valid + N - 1) / N;
    return t < 1 ? 1 : (t > BLOCK_THREADS ? BLOCK_THREADS : t);
  }

  __device__ __forceinline__ static int linear_tid() {
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  }

  __device__ __forceinline__ T* partials() { return reinterpret_cast<T*>(s_.bytes); }

  // The merge of the first valid_threads threads' partials (raking; see BlockCombine). Partials
  // are stored by rank, and lane l of warp 0 reads ranks l + 32 j: consecutive lanes read
  // consecutive slots, so the loads are free of bank conflicts.
  __device__ __forceinline__ T rake(const T& mine, int valid_threads) {
    const int tid = linear_tid();
    T* s_values = partials();
    T* s_result = partials() + BLOCK_THREADS;
    s_values[tid] = mine;
    __syncthreads();
    if (tid < 32) {
      T r = s_values[tid];
#pragma unroll
      for (int j = 1; j < warps; ++j) {
        const int rank = 32 * j + tid;
        if (rank < valid_threads)
          r = tcr::merge(r, s_values[rank]);
      }
      const T total = FullTree().ReduceToLane0(r, detail::merge_op{}, valid_threads);
      if (tid == 0)
        *s_result = total;
    }
    __syncthreads();
    const T total = *s_result;
    __syncthreads(); // every thread has read the result: the storage may be reused
    return total;
  }

  // Each warp's lane 0 holds its warp's total (the empty sum where it had nothing valid). The first
  // valid_warps totals are merged by WarpTotals (the warp layer's tree over warp ranks), and
  // every thread gets the same bits. Whole warps only: every warp merges the totals itself, so
  // no broadcast through shared memory is needed; two barriers (the totals are written; every
  // warp has read them, so the storage may be reused on return). A partial last warp has too few
  // lanes for that tree: warp 0 merges, and the result goes through shared memory (three
  // barriers).
  template <class Op>
  __device__ __forceinline__ T combine_warps(const T& warp_total, Op op, int valid_warps) {
    const int tid = linear_tid();
    const int lane = tid & 31;
    if constexpr (warps == 1) {
      // One warp: its total goes from lane 0 to the others; the barrier keeps the reuse contract.
      const T total = detail::shfl(tail_lanes ? (1u << tail_lanes) - 1u : detail::full_warp_mask,
                                   warp_total, 0);
      __syncthreads();
      return total;
    } else {
      const int warp = tid / 32;
      if (lane == 0)
        partials()[warp] = warp_total;
      __syncthreads();
      if constexpr (tail_lanes == 0) {
        // Every warp merges the totals itself, all 32 lanes in the tree (no branch around it).
        T total = FullTree().template ReduceToLane0Within<warps>(
            lane < valid_warps ? partials()[lane] : T{}, op, valid_warps);
        total = detail::shfl(detail::full_warp_mask, total, 0);
        __syncthreads(); // every warp has read the totals: the storage may be reused
        return total;
      } else {
        T* s_result = partials() + warps;
        if (warp == 0 && lane < warps) {
          const T total = WarpTotals().ReduceToLane0(lane < valid_warps ? partials()[lane] : T{},
                                                     op, valid_warps);
          if (lane == 0)
            *s_result = total;
        }
        __syncthreads();
        const T total = *s_result;
        __syncthreads(); // every thread has read the result: the storage may be reused
        return total;
      }
    }
  }

  TempStorage& s_;
};

} // namespace tcr
