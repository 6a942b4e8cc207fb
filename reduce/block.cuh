// tcr: block-level reductions.
//
//   using BR = tcr::BlockReduce<T, BLOCK_THREADS, Algorithm>;
//   __shared__ typename BR::TempStorage s_reduce;
//   T r = BR(s_reduce).Sum(items);            // items: one value or item, or an array In[N]
//   T r = BR(s_reduce).Sum(items, num_valid); // partial tiles
//   T r = BR(s_reduce).Dot(x, y);             // one item or arrays X[N], Y[N]; T plain or dot2
//   T r = BR(s_reduce).Reduce(x, op);
//
// T is a plain arithmetic type or an accumulator from compensated/ (a compensated block sum is
// BlockReduce<tcr::neumaier<float>, 256>). Contract:
//   - every thread of the block must call, and every thread receives the same result;
//   - the call ends with a barrier, so the same TempStorage (or memory aliased with it) may be
//     reused right after it returns;
//   - the combining order is fixed by BLOCK_THREADS and the algorithm alone, so results are
//     bitwise reproducible run to run;
//   - item arrays are in blocked arrangement: thread t (linear rank) holds items [t N, t N + N)
//     of the block's tile, and with num_valid only items of index < num_valid count (for one
//     value per thread, num_valid counts threads).
// Blocks may be 1-, 2- or 3-dimensional; BLOCK_THREADS is their total size, a multiple of 32 up
// to 1024. Each layer calls only the one below: block -> warp (-> mma).
//
// Algorithms (BlockReduceAlgorithm), the same as the warp's (reduce/warp.cuh): shuffle_tree for
// anything; tensor_core_chain and tensor_core_fold for Sum of __half, __nv_bfloat16, e4m3, e5m2
// and float items: each warp sums its items on the tensor cores, then the warps' totals are
// merged as in shuffle_tree. Reduce and Dot always use the shuffle tree.
// Default: shuffle_tree (it works for every T, op and input). Per input type and items per
// thread, the algorithm to pick for a compensated Sum is tcr::block_sum_algorithm_v<In, N> below,
// chosen by measurement: bench/block_bench.cu on the H200 (bench/results/2026-11-30-h200-8bf8d38/
// block.json; 256 threads, each block reducing register tiles 512 times; time per block call of
// tcr's BlockReduce<neumaier<float>> against cub::BlockReduce<float>'s plain sum with its result
// broadcast to every thread, which is tcr's contract; "-": not exact, so not compensated):
//            N = 4: shuffle / fold / chain      N = 16                 N = 64
//   f32      3.4x  / -    / -                   3.9x / - / -           3.2x / - / -
//   f16      3.1x  / -    / -                   3.3x / - / -           3.4x / - / -
//   bf16     3.1x  / -    / -                   3.1x / - / -           2.9x / - / -
//   e4m3     2.8x  / 2.8x / 2.6x                2.3x / 1.4x / 1.4x     2.1x / 0.85x / 0.72x
//   e5m2     2.8x  / 3.4x / -                   2.3x / 2.2x / -        2.1x / 1.8x / -
// The compensated contract (DESIGN.md section 5) lets tensor cores in only where their sums are
// exact: e4m3 under both tensor-core algorithms (f16 MMAs, chains of at most 4), e5m2 under
// tensor_core_fold (exact bands; its chain runs the native, rounding e5m2 MMA). f16, bf16 and
// float keep the shuffle tree (their MMAs round: fast-mode accuracy only). Why a compensated sum
// on CUDA cores costs 3-4x a plain one (the 1.3x target of DESIGN.md is out of reach there): a
// Neumaier step is 7 FADDs per item where the plain sum has 1, and each merge of the tree ~8
// FADDs where the plain tree has 1 (notes/block-cost.md counts the SASS).
// Plain (fast) float sums, T = float: tensor_core_chain beats the shuffle tree for 8- and 16-bit
// items from N = 16 (f16 N = 64: 0.74x CUB against 0.98x; e5m2 N = 64: 0.38x against 0.94x), the
// shuffle tree is cheaper at N = 4 (f16 1.13x against 1.17x) and for float items (N = 16: 1.06x).
#pragma once

#include <type_traits>
#include "compensated/accumulator.cuh"
#include "reduce/warp.cuh"

namespace tcr {

// How the block's warps reduce their items before the warps' totals are merged.
enum class BlockReduceAlgorithm {
  shuffle_tree,      // per-thread accumulation, then warp shuffle trees
  tensor_core_chain, // mma.sync against ones, C carries the sum (Sum of 8/16-bit and float items)
  tensor_core_fold,  // mma.sync against ones, C = 0, each D folded into T
};

// The algorithm to use for a compensated block Sum of N In items per thread (see the numbers
// above): the fastest one whose sums are exact or compensated.
template <class In, int N = 16>
inline constexpr BlockReduceAlgorithm block_sum_algorithm_v =
    std::is_same_v<In, __nv_fp8_e4m3>             ? BlockReduceAlgorithm::tensor_core_chain
    : std::is_same_v<In, __nv_fp8_e5m2>&& N >= 16 ? BlockReduceAlgorithm::tensor_core_fold
                                                  : BlockReduceAlgorithm::shuffle_tree;

template <class T, int BLOCK_THREADS,
          BlockReduceAlgorithm Algorithm = BlockReduceAlgorithm::shuffle_tree>
class BlockReduce {
  static_assert(BLOCK_THREADS % 32 == 0 && BLOCK_THREADS >= 32 && BLOCK_THREADS <= 1024,
                "tcr::BlockReduce: BLOCK_THREADS must be a multiple of 32 in [32, 1024]");
  static_assert(std::is_trivially_copyable_v<T> && std::is_default_constructible_v<T>,
                "tcr::BlockReduce<T>: T must be a number or an accumulator from compensated/");

  static constexpr int warps = BLOCK_THREADS / 32;
  static constexpr WarpReduceAlgorithm warp_algorithm =
      Algorithm == BlockReduceAlgorithm::tensor_core_chain  ? WarpReduceAlgorithm::tensor_core_chain
      : Algorithm == BlockReduceAlgorithm::tensor_core_fold ? WarpReduceAlgorithm::tensor_core_fold
                                                            : WarpReduceAlgorithm::shuffle_tree;
  using WarpSum = WarpReduce<T, warp_algorithm>;
  using WarpTree = WarpReduce<T, WarpReduceAlgorithm::shuffle_tree>;

public:
  struct TempStorage {
    T warp_partials[warps]; // [warps], one per warp, written by its lane 0
  };

  __device__ __forceinline__ explicit BlockReduce(TempStorage& storage) : s_(storage) {}

  // Reduce one value per thread with op (associative; combined in a fixed order). Every thread
  // gets the result.
  template <class Op>
  __device__ __forceinline__ T Reduce(const T& x, Op op) {
    return combine_warps(WarpTree().Reduce(x, op), op, warps);
  }

  // As above over the first num_valid threads only (linear thread rank < num_valid), for
  // partial tiles; num_valid must be in [1, BLOCK_THREADS].
  template <class Op>
  __device__ __forceinline__ T Reduce(const T& x, Op op, int num_valid) {
    const int warp = linear_tid() / 32;
    const int valid_lanes = num_valid - warp * 32;
    T warp_total{};
    if (valid_lanes > 0)
      warp_total = WarpTree().Reduce(x, op, valid_lanes < 32 ? valid_lanes : 32);
    return combine_warps(warp_total, op, (num_valid + 31) / 32);
  }

  // The sum (merge, for accumulators) of one value per thread. Every thread gets the result.
  __device__ __forceinline__ T Sum(const T& x) { return Reduce(x, detail::merge_op{}); }
  __device__ __forceinline__ T Sum(const T& x, int num_valid) {
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
    return combine_warps(WarpSum().Sum(items), detail::merge_op{}, warps);
  }
  template <class In, int N>
  __device__ __forceinline__ T Sum(const In (&items)[N], int num_valid) {
    const int tid = linear_tid();
    const int warp = tid / 32;
    const T warp_total = WarpSum().Sum(items, num_valid - warp * 32 * N);
    return combine_warps(warp_total, detail::merge_op{}, valid_warps_for<N>(num_valid));
  }

  // The dot product of one pair per thread or arrays x[N], y[N] per thread (blocked), optionally
  // over the first num_valid pairs. T: a plain type (fast) or tcr::dot2<...> (compensated).
  template <class X, class Y, class = std::enable_if_t<!std::is_array_v<X>>>
  __device__ __forceinline__ T Dot(const X& x, const Y& y, int num_valid = BLOCK_THREADS) {
    const X xs[1] = {x};
    const Y ys[1] = {y};
    return Dot(xs, ys, num_valid);
  }
  template <class X, class Y, int N>
  __device__ __forceinline__ T Dot(const X (&x)[N], const Y (&y)[N]) {
    return combine_warps(WarpTree().Dot(x, y), detail::merge_op{}, warps);
  }
  template <class X, class Y, int N>
  __device__ __forceinline__ T Dot(const X (&x)[N], const Y (&y)[N], int num_valid) {
    const int warp = linear_tid() / 32;
    const T warp_total = WarpTree().Dot(x, y, num_valid - warp * 32 * N);
    return combine_warps(warp_total, detail::merge_op{}, valid_warps_for<N>(num_valid));
  }

private:
  // Warps holding any of the first num_valid items (N per thread), at least 1.
  template <int N>
  __device__ __forceinline__ static int valid_warps_for(int num_valid) {
    const int w = (num_valid + 32 * N - 1) / (32 * N);
    return w < 1 ? 1 : (w > warps ? warps : w);
  }

  __device__ __forceinline__ static int linear_tid() {
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  }

  // Every warp holds its total in all lanes (or T{} where it had nothing valid). Each warp then
  // merges the first valid_warps totals itself, in the same fixed order (a tree over warp
  // ranks), so every thread gets the same bits without a broadcast through shared memory. Two
  // barriers: the totals are written; every warp has read them (so the storage may be reused
  // on return).
  template <class Op>
  __device__ __forceinline__ T combine_warps(const T& warp_total, Op op, int valid_warps) {
    using namespace detail;
    if constexpr (warps == 1) {
      // One warp: its total is already in every lane; the barrier keeps the reuse contract.
      __syncthreads();
      return warp_total;
    } else {
      const int tid = linear_tid();
      const int warp = tid / 32;
      const int lane = tid & 31;
      if (lane == 0)
        s_.warp_partials[warp] = warp_total;
      __syncthreads();
      T partial = lane < valid_warps ? s_.warp_partials[lane] : T{};
#pragma unroll
      for (int delta = 1; delta < warps; delta *= 2) {
        const T other = shfl_down(full_warp_mask, partial, delta);
        if (lane + delta < valid_warps)
          partial = op(partial, other); // never past valid_warps
      }
      const T total = shfl(full_warp_mask, partial, 0);
      __syncthreads(); // every warp has read s_.warp_partials: the storage may be reused
      return total;
    }
  }

  TempStorage& s_;
};

} // namespace tcr
