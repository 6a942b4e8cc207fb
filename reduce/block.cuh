// tcr: block-level reductions.
//
//   using BR = tcr::BlockReduce<T, BLOCK_THREADS>;
//   __shared__ typename BR::TempStorage s_reduce;
//   T r = BR(s_reduce).Sum(items);        // items: one T, or an array In[N]
//
// T is a plain arithmetic type or an accumulator from compensated/ (a compensated block sum is
// BlockReduce<tcr::neumaier<float>, 256>). Contract:
//   - every thread of the block must call, and every thread receives the same result;
//   - the call ends with a barrier, so the same TempStorage (or memory aliased with it) may be
//     reused right after it returns;
//   - the combining order is fixed by BLOCK_THREADS alone, so results are bitwise reproducible.
// Blocks may be 1-, 2- or 3-dimensional; BLOCK_THREADS is their total size, a multiple of 32 up
// to 1024. Each layer calls only the one below: block -> warp.
#pragma once

#include <type_traits>
#include "compensated/accumulator.cuh"
#include "reduce/warp.cuh"

namespace tcr {

// How the block combines its warps' values.
enum class BlockReduceAlgorithm {
  shuffle_tree,  // warp shuffle trees, then one warp over the warps' partials
};

template <class T, int BLOCK_THREADS,
          BlockReduceAlgorithm Algorithm = BlockReduceAlgorithm::shuffle_tree>
class BlockReduce {
  static_assert(BLOCK_THREADS % 32 == 0 && BLOCK_THREADS >= 32 && BLOCK_THREADS <= 1024,
                "tcr::BlockReduce: BLOCK_THREADS must be a multiple of 32 in [32, 1024]");
  static_assert(std::is_trivially_copyable_v<T> && std::is_default_constructible_v<T>,
                "tcr::BlockReduce<T>: T must be a number or an accumulator from compensated/");
  static_assert(Algorithm == BlockReduceAlgorithm::shuffle_tree,
                "tcr::BlockReduce: this algorithm is not available for this value type");

  static constexpr int warps = BLOCK_THREADS / 32;

 public:
  struct TempStorage {
    T warp_partials[warps];  // [warps], one per warp, written by its lane 0
    T result;                // the block's result, broadcast to every thread
  };

  __device__ __forceinline__ explicit BlockReduce(TempStorage& storage) : s_(storage) {}

  // Reduce one value per thread with op (associative; combined in a fixed order). Every thread
  // gets the result.
  template <class Op>
  __device__ __forceinline__ T Reduce(const T& x, Op op) {
    return reduce_impl(x, op, BLOCK_THREADS);
  }

  // As above over the first num_valid threads only (linear thread rank < num_valid), for
  // partial tiles; num_valid must be in [1, BLOCK_THREADS].
  template <class Op>
  __device__ __forceinline__ T Reduce(const T& x, Op op, int num_valid) {
    return reduce_impl(x, op, num_valid);
  }

  // The sum (merge, for accumulators) over the block. Every thread gets the result.
  __device__ __forceinline__ T Sum(const T& x) { return Reduce(x, detail::merge_op{}); }
  __device__ __forceinline__ T Sum(const T& x, int num_valid) {
    return Reduce(x, detail::merge_op{}, num_valid);
  }

  // Each thread accumulates its N items in order (tcr::accumulate), then the block merges.
  template <class In, int N>
  __device__ __forceinline__ T Sum(const In (&items)[N]) {
    T acc{};
#pragma unroll
    for (int i = 0; i < N; ++i) acc = tcr::accumulate(acc, items[i]);
    return Sum(acc);
  }

 private:
  __device__ __forceinline__ static int linear_tid() {
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  }

  template <class Op>
  __device__ __forceinline__ T reduce_impl(const T& x, Op op, int num_valid) {
    const int tid = linear_tid();
    const int warp = tid / 32;
    const int lane = tid & 31;
    // Values of threads at or past num_valid are never passed to op.
    const int valid_lanes = num_valid - warp * 32;
    if (valid_lanes > 0) {
      const T warp_total =
          WarpReduce<T>().Reduce(x, op, valid_lanes < 32 ? valid_lanes : 32);
      if (lane == 0) s_.warp_partials[warp] = warp_total;
    }
    __syncthreads();
    if (warp == 0) {
      const int valid_warps = (num_valid + 31) / 32;
      const T partial = lane < valid_warps ? s_.warp_partials[lane] : T{};
      const T total = WarpReduce<T>().Reduce(partial, op, valid_warps);
      if (lane == 0) s_.result = total;
    }
    __syncthreads();
    const T total = s_.result;
    __syncthreads();  // every thread has read s_.result: the storage may be reused
    return total;
  }

  TempStorage& s_;
};

}  // namespace tcr
