// tcr: warp-level reductions.
//
//   tcr::WarpReduce<T, Algorithm> w;
//   T total = w.Sum(x);                  // one value (or one input item) per lane
//   T total = w.Sum(items);              // In items[N] per lane
//   T total = w.Sum(items, num_valid);   // only the first num_valid items of the warp count
//   T total = w.Dot(x, y);               // one item or arrays X x[N], Y y[N]
//   T total = w.Reduce(x, op);           // any associative op, one value per lane
//
// T is a plain arithmetic type or an accumulator from compensated/ (anything trivially copyable
// with tcr::merge). Contract:
//   - all 32 lanes must call (the shuffles use the full mask; mma.sync is warp-wide);
//   - every lane receives the same result, bit for bit;
//   - the combining order is fixed, so results are reproducible run to run;
//   - item arrays are in blocked arrangement: lane l holds items [l N, l N + N) of the warp's
//     32 N items, and with num_valid only items of index < num_valid are summed.
//
// Algorithms (WarpReduceAlgorithm):
//   shuffle_tree       each lane folds its items into T (tcr::accumulate), then a shuffle tree
//                      merges the lanes. Any T, any input, any op.
//   tensor_core_chain  Sum of __half, __nv_bfloat16, __nv_fp8_e4m3, __nv_fp8_e5m2 or float (split
//                      into bf16 parts) items: the lane's items are loaded into A fragments and
//                      summed by mma.sync against ones, C carrying the sum through the lane's
//                      ceil(N / E) tiles (E = 8 items per lane and tile for 16-bit and float,
//                      16 for 8-bit), then folded into T and merged over the lanes
//                      (mma/tile_sum.cuh, chain_in_tensor_core). Error: see that header.
//   tensor_core_fold   as above with C = 0 for every MMA and each D folded into T (fold_out).
//                      For e4m3 and e5m2 every MMA is exact (through f16; e5m2 in two exponent
//                      bands; proved in mma/tile_sum.cuh), so with a compensated T (neumaier)
//                      the result meets the compensated bound u|s| + gamma_h^2 S. For f16, bf16
//                      and float the MMA's alignment error (K + 2) 2^-23 S (mma/tile_sum.cuh)
//                      remains: fast-mode accuracy, whatever T is.
// Reduce(x, op) and Dot always use the shuffle tree (tensor cores only add, and a dot needs its
// products paired, which a ones matrix cannot do). A zero result of a tensor-core sum may be +0
// where IEEE summation of -0 terms gives -0.
#pragma once

#include <cstdint>
#include <type_traits>
#include "compensated/accumulator.cuh"
#include "mma/tile_sum.cuh"

namespace tcr {

enum class WarpReduceAlgorithm {
  shuffle_tree,      // shuffles; any T and op
  tensor_core_chain, // mma.sync against ones, C carries the running sum (Sum of 8/16-bit, float)
  tensor_core_fold,  // mma.sync against ones, C = 0, each D folded into T
};

namespace detail {

inline constexpr unsigned full_warp_mask = 0xffffffffu;

__device__ __forceinline__ unsigned lane_id() {
  unsigned lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}

using mma::detail::shuffle_words;

template <class T>
__device__ __forceinline__ T shfl_down(unsigned mask, const T& v, int delta) {
  return shuffle_words(v, [=](uint32_t w) { return __shfl_down_sync(mask, w, delta); });
}

template <class T>
__device__ __forceinline__ T shfl_xor(unsigned mask, const T& v, int lane_mask) {
  return shuffle_words(v, [=](uint32_t w) { return __shfl_xor_sync(mask, w, lane_mask); });
}

template <class T>
__device__ __forceinline__ T shfl(unsigned mask, const T& v, int src_lane) {
  return shuffle_words(v, [=](uint32_t w) { return __shfl_sync(mask, w, src_lane); });
}

// The functor form of tcr::merge, used where an operator is expected.
struct merge_op {
  template <class A>
  __host__ __device__ __forceinline__ A operator()(const A& a, const A& b) const {
    return tcr::merge(a, b);
  }
};

template <class A, class X, class Y, class = void>
struct has_add2 : std::false_type {};
template <class A, class X, class Y>
struct has_add2<A, X, Y,
                std::void_t<decltype(std::declval<A&>().add(
                    std::declval<const X&>(), std::declval<const Y&>()))>> : std::true_type {};

// a with the product x * y folded in: a.add(x, y) for a dot accumulator (tcr::dot2), a + x * y
// for a plain type (rounded as the compiler pleases: plain types are the fast path).
template <class A, class X, class Y>
__device__ __forceinline__ A accumulate_product(A a, const X& x, const Y& y) {
  if constexpr (is_accumulator_v<A>) {
    static_assert(has_add2<A, X, Y>::value,
                  "tcr: Dot needs a plain type or an accumulator with add(x, y), such as "
                  "tcr::dot2<T>; a sum accumulator (neumaier, kahan) would round each product");
    a.add(x, y);
    return a;
  } else {
    return a + widen<A>(x) * widen<A>(y);
  }
}

template <WarpReduceAlgorithm Algorithm>
inline constexpr bool is_tensor_core_v = Algorithm != WarpReduceAlgorithm::shuffle_tree;

template <WarpReduceAlgorithm Algorithm>
using mma_policy_t = std::conditional_t<Algorithm == WarpReduceAlgorithm::tensor_core_fold,
                                        mma::fold_out, mma::chain_in_tensor_core>;

// The tile path per input: e4m3 goes through f16 (exact, proved in mma/tile_sum.cuh, and no
// dearer than the native fp8 MMA on sm_90); e5m2 through f16 in two exponent bands (exact, twice
// the MMAs) under tensor_core_fold, natively under tensor_core_chain.
template <class In, WarpReduceAlgorithm Algorithm>
inline constexpr mma::tile_path tile_path_v =
    std::is_same_v<In, __nv_fp8_e4m3> ? mma::tile_path::exact_f16
    : std::is_same_v<In, __nv_fp8_e5m2>&& Algorithm == WarpReduceAlgorithm::tensor_core_fold
        ? mma::tile_path::exact_bands_f16
        : mma::tile_path::native;

} // namespace detail

template <class T, WarpReduceAlgorithm Algorithm = WarpReduceAlgorithm::shuffle_tree>
class WarpReduce {
  static_assert(std::is_trivially_copyable_v<T>,
                "tcr::WarpReduce<T>: T must be trivially copyable (a number or an accumulator)");
  static_assert(std::is_default_constructible_v<T>,
                "tcr::WarpReduce<T>: T must default-construct to the empty sum");

public:
  // Shuffles and registers only: no shared memory is needed. Kept so code reads like CUB's.
  struct TempStorage {};

  __device__ __forceinline__ explicit WarpReduce(TempStorage&) {}
  __device__ __forceinline__ WarpReduce() {}

  // Reduce one value per lane with op (associative; applied in a fixed tree order, and always
  // as op(lower lanes, higher lanes), so it need not be commutative). Every lane gets the result.
  // A shfl.down tree into lane 0 (lane l merges lanes [l, l + 2 delta) at level delta: the same
  // pairwise tree as a butterfly, without its operand-order selects), then one broadcast.
  // Cheaper than the butterfly, which needs two selects per word and level to keep op's operand
  // order: in bench/block_bench.cu on the H200 a block sum of 16 floats per thread went from 1.39x
  // to 1.06x CUB's time (plain float), and from 4.37x to 3.89x (neumaier<float>).
  template <class Op>
  __device__ __forceinline__ T Reduce(T x, Op op) const {
    using namespace detail;
#pragma unroll
    for (int delta = 1; delta < 32; delta *= 2) {
      const T other = shfl_down(full_warp_mask, x, delta);
      x = op(x, other); // lanes past 31 - delta merge garbage: their values are never used
    }
    return shfl(full_warp_mask, x, 0);
  }

  // As above over lanes [0, valid_lanes) only; valid_lanes in [1, 32]. The other lanes' values
  // are never passed to op.
  template <class Op>
  __device__ __forceinline__ T Reduce(T x, Op op, int valid_lanes) const {
    using namespace detail;
    if (valid_lanes >= 32)
      return Reduce(x, op);
    const int lane = static_cast<int>(lane_id());
#pragma unroll
    for (int delta = 1; delta < 32; delta *= 2) {
      const T other = shfl_down(full_warp_mask, x, delta);
      if (lane + delta < valid_lanes)
        x = op(x, other);
    }
    return shfl(full_warp_mask, x, 0);
  }

  // The sum (merge, for accumulators) of one value per lane. Every lane gets the result.
  __device__ __forceinline__ T Sum(const T& x) const {
    return Reduce(x, detail::merge_op{});
  }

  // The sum of one input item per lane (an In that is not T, e.g. a __half into
  // tcr::neumaier<float>).
  template <class In, class = std::enable_if_t<!std::is_same_v<In, T> && !std::is_array_v<In>>>
  __device__ __forceinline__ T Sum(const In& item) const {
    const In items[1] = {item};
    return Sum(items);
  }

  // The sum of the warp's 32 N items (blocked arrangement). Every lane gets the result.
  template <class In, int N>
  __device__ __forceinline__ T Sum(const In (&items)[N]) const {
    if constexpr (detail::is_tensor_core_v<Algorithm>) {
      return mma::merge_shares(LanePartial(items, N));
    } else {
      return Reduce(LanePartial(items, N), detail::merge_op{});
    }
  }

  // As above over the warp's first num_valid items only (num_valid in [0, 32 N]; 0 gives the
  // empty sum). Invalid items are never read as values.
  template <class In, int N>
  __device__ __forceinline__ T Sum(const In (&items)[N], int num_valid) const {
    const int lane = static_cast<int>(detail::lane_id());
    if constexpr (detail::is_tensor_core_v<Algorithm>) {
      return mma::merge_shares(LanePartial(items, num_valid - lane * N));
    } else {
      const int valid_lanes = (num_valid + N - 1) / N;
      if (valid_lanes <= 0)
        return T{};
      return Reduce(LanePartial(items, num_valid - lane * N), detail::merge_op{},
                    valid_lanes < 32 ? valid_lanes : 32);
    }
  }

  // The dot product of one pair of items per lane, or of arrays x[N], y[N] per lane (blocked),
  // optionally over the first num_valid pairs. T is a plain type (fast) or tcr::dot2<...>.
  // Always the shuffle tree. Every lane gets the result.
  template <class X, class Y, class = std::enable_if_t<!std::is_array_v<X>>>
  __device__ __forceinline__ T Dot(const X& x, const Y& y) const {
    const X xs[1] = {x};
    const Y ys[1] = {y};
    return Dot(xs, ys);
  }
  template <class X, class Y, int N>
  __device__ __forceinline__ T Dot(const X (&x)[N], const Y (&y)[N]) const {
    T acc{};
#pragma unroll
    for (int i = 0; i < N; ++i)
      acc = detail::accumulate_product(acc, x[i], y[i]);
    return Reduce(acc, detail::merge_op{});
  }
  template <class X, class Y, int N>
  __device__ __forceinline__ T Dot(const X (&x)[N], const Y (&y)[N], int num_valid) const {
    const int lane = static_cast<int>(detail::lane_id());
    const int valid_lanes = (num_valid + N - 1) / N;
    if (valid_lanes <= 0)
      return T{};
    const int mine = num_valid - lane * N;
    T acc{};
#pragma unroll
    for (int i = 0; i < N; ++i)
      if (i < mine)
        acc = detail::accumulate_product(acc, x[i], y[i]);
    return Reduce(acc, detail::merge_op{}, valid_lanes < 32 ? valid_lanes : 32);
  }

  // This lane's share of the sum of the items, before the lanes are combined: the merge of
  // LanePartial over all 32 lanes is the warp's sum. `mine` is how many of this lane's items
  // count (clamped to [0, N]). With a tensor-core algorithm all 32 lanes must call, and lanes
  // l and l ^ 1 hold the same share (see mma/tile_sum.cuh): mma::share_of or mma::merge_shares
  // combine them. For blocks and device-wide reductions.
  template <class In, int N>
  __device__ __forceinline__ T LanePartial(const In (&items)[N], int mine) const {
    if constexpr (detail::is_tensor_core_v<Algorithm>) {
      static_assert(mma::is_tile_input_v<In>,
                    "tcr::WarpReduce: the tensor-core algorithms sum __half, __nv_bfloat16, "
                    "__nv_fp8_e4m3, __nv_fp8_e5m2 or float items; use shuffle_tree for others");
      constexpr int E = mma::lane_tile<In>::elements;
      constexpr int tiles = (N + E - 1) / E;
      mma::lane_tile<In> r_tiles[tiles];
#pragma unroll
      for (int t = 0; t < tiles; ++t)
        r_tiles[t] = mma::pack_lane_tile(items, t * E, mine);
      T acc{};
      mma::lane_tile_sum<detail::mma_policy_t<Algorithm>, detail::tile_path_v<In, Algorithm>>(
          r_tiles, acc);
      return acc;
    } else {
      T acc{};
#pragma unroll
      for (int i = 0; i < N; ++i)
        if (i < mine)
          acc = tcr::accumulate(acc, items[i]);
      return acc;
    }
  }
};

} // namespace tcr
