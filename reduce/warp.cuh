// SPDX-License-Identifier: BSD-3-Clause
// tcr: warp-level reductions.
//
//   tcr::WarpReduce<T, Algorithm, LOGICAL_WARP_THREADS> w;
//   T total = w.Sum(x);                  // one value (or one input item) per lane
//   T total = w.Sum(items);              // In items[N] per lane
//   T total = w.Sum(items, num_valid);   // only the first num_valid items of the warp count
//   T total = w.Dot(x, y);               // one item or arrays X x[N], Y y[N]
//   T total = w.Reduce(x, op);           // any associative op, one value per lane
//   T lane0 = w.ReduceToLane0(x, op);    // cheaper: the result is valid in (logical) lane 0 only
//                                        // (likewise SumToLane0, DotToLane0)
//   w.AccumulateLane(acc, items);        // this lane's share of the items folded into acc
//   T share = w.LaneShare(acc);          // merged over all lanes (or a block): the total
//
// T is a plain arithmetic type or an accumulator from compensated/ (anything trivially copyable
// with tcr::merge). Contract, with L = LOGICAL_WARP_THREADS:
//   - L = 32: the whole warp calls (mma.sync is warp-wide, so the tensor-core algorithms need
//     L = 32);
//   - L a power of two below 32 (shuffle_tree): as CUB's logical warps, the warp holds 32 / L
//     logical warps of L consecutive lanes (lanes [k L, k L + L) form logical warp k), each
//     reducing its own values on its own; any of them may call, each with all its L lanes, and
//     "lane" below means the rank in the logical warp (lane id mod L);
//   - L not a power of two: lanes [0, L) of the warp must call, and no other lane (the shuffles
//     use that member mask);
//   - every calling lane of a logical warp receives the same result, bit for bit (except the
//     ...ToLane0 variants, which deliver it to the logical warp's first lane only);
//   - the combining order is fixed (the same tree for every logical warp), so results are
//     reproducible run to run;
//   - item arrays are in blocked arrangement: lane l holds items [l N, l N + N) of the logical
//     warp's L N items, and with num_valid only items of index < num_valid are summed.
//
// Algorithms (WarpReduceAlgorithm):
//   shuffle_tree       each lane folds its items into T (tcr::accumulate), then a shuffle tree
//                      merges the lanes. Any T, any input, any op, any LOGICAL_WARP_THREADS.
//   tensor_core_exact  Sum of __nv_fp8_e4m3 or __nv_fp8_e5m2 items on the tensor cores through
//                      f16 MMAs against ones (e5m2 in two exponent bands), C chained through at
//                      most 4 MMAs: every D is the exact sum of its items (proved in
//                      mma/tile_sum.cuh, tile_path::exact_f16 and exact_bands_f16). The only
//                      rounding is T's, so with a compensated T the result has T's bound.
//   tensor_core_chain  Sum of __half, __nv_bfloat16, __nv_fp8_e4m3, __nv_fp8_e5m2 or float (split
//                      into bf16 parts) items: the lane's items are loaded into A fragments and
//                      summed by mma.sync against ones, C carrying the sum through the lane's
//                      ceil(N / E) tiles (E = 8 items per lane and tile for 16-bit and float,
//                      16 for 8-bit), then folded into T and merged over the lanes
//                      (mma/tile_sum.cuh, chain_in_tensor_core). The MMAs round: the error
//                      bound is that header's (fast-mode accuracy). e4m3 goes through f16
//                      (exact, and no dearer than the native fp8 MMA on sm_90).
//   tensor_core_fold   as above with C = 0 for every MMA and each D folded into T (fold_out);
//                      e5m2 through the exact bands. For f16, bf16 and float the MMA's alignment
//                      error (K + 2) 2^-23 S remains: fast-mode accuracy, whatever T is.
// Reduce(x, op) and Dot always use the shuffle tree (tensor cores only add, and a dot needs its
// products paired, which a ones matrix cannot do). A zero result of a tensor-core sum may be +0
// where IEEE summation of -0 terms gives -0 (an MMA's D of zero terms is +0).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>
#include "../compensated/accumulator.cuh"
#include "../mma/tile_sum.cuh"

namespace tcr {

enum class WarpReduceAlgorithm {
  shuffle_tree,      // shuffles; any T and op
  tensor_core_exact, // mma.sync against ones, exact sums of e4m3 / e5m2 through f16
  tensor_core_chain, // mma.sync against ones, C carries the running sum (Sum of 8/16-bit, float)
  tensor_core_fold,  // mma.sync against ones, C = 0, each D folded into T
};

namespace detail {

inline constexpr unsigned full_warp_mask = 0xffffffffu;

// Applies a 32-bit shuffle (a functor of one word) to every word of a trivially copyable value.
template <class T, class Shuffle>
__device__ __forceinline__ T shuffle_words(const T& v, Shuffle shuffle) {
  static_assert(std::is_trivially_copyable_v<T>, "shuffled values must be trivially copyable");
  constexpr int words = (sizeof(T) + 3) / 4;
  uint32_t in[words] = {}, out[words];
  std::memcpy(in, &v, sizeof(T));
#pragma unroll
  for (int i = 0; i < words; ++i)
    out[i] = shuffle(in[i]);
  T r;
  std::memcpy(&r, out, sizeof(T));
  return r;
}

// Width: the shuffles stay within aligned groups of Width lanes (a power of two; src_lane and
// delta count within the group), as the width argument of __shfl_sync.
template <int Width = 32, class T>
__device__ __forceinline__ T shfl_down(unsigned mask, const T& v, int delta) {
  if constexpr (Width == 32)
    return shuffle_words(v, [=](uint32_t w) { return __shfl_down_sync(mask, w, delta); });
  else
    return shuffle_words(v, [=](uint32_t w) { return __shfl_down_sync(mask, w, delta, Width); });
}

template <int Width = 32, class T>
__device__ __forceinline__ T shfl(unsigned mask, const T& v, int src_lane) {
  if constexpr (Width == 32)
    return shuffle_words(v, [=](uint32_t w) { return __shfl_sync(mask, w, src_lane); });
  else
    return shuffle_words(v, [=](uint32_t w) { return __shfl_sync(mask, w, src_lane, Width); });
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

// An accumulator that folds a whole item array at once (a.add(items)), e.g. with exact partial
// sums in a cheaper type before its own arithmetic, says so with a member
// `static constexpr bool adds_item_arrays = true` (a generic add(const X&) would match arrays
// too, so the overload alone cannot tell).
template <class A, class = void>
struct adds_item_arrays : std::false_type {};
template <class A>
struct adds_item_arrays<A, std::void_t<decltype(A::adds_item_arrays)>>
    : std::bool_constant<A::adds_item_arrays> {};

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

// The empty sum: -0 for floating-point types (the identity of IEEE addition, so a sum of -0
// terms stays -0), T{} otherwise (accumulators start empty; compensated/ gives them -0 too).
template <class T>
__host__ __device__ __forceinline__ T empty_sum() {
  if constexpr (std::is_floating_point_v<T>)
    return T(-0.0);
  else
    return T{};
}

template <WarpReduceAlgorithm Algorithm>
inline constexpr bool is_tensor_core_v = Algorithm != WarpReduceAlgorithm::shuffle_tree;

template <WarpReduceAlgorithm Algorithm>
using mma_policy_t = std::conditional_t<Algorithm == WarpReduceAlgorithm::tensor_core_fold,
                                        mma::fold_out, mma::chain_in_tensor_core>;

// (is_fp8_v: compensated/convert.cuh)
// The tile path per input and algorithm: e4m3 always through f16 (exact); e5m2 through f16 in
// two exponent bands (exact, twice the MMAs) under tensor_core_exact and tensor_core_fold,
// natively under tensor_core_chain; 16-bit and float natively.
template <class In, WarpReduceAlgorithm Algorithm>
inline constexpr mma::tile_path tile_path_v =
    std::is_same_v<In, __nv_fp8_e4m3> ? mma::tile_path::exact_f16
    : std::is_same_v<In, __nv_fp8_e5m2>&& Algorithm != WarpReduceAlgorithm::tensor_core_chain
        ? mma::tile_path::exact_bands_f16
        : mma::tile_path::native;

template <class In, WarpReduceAlgorithm Algorithm>
__host__ __device__ constexpr bool check_tile_input() {
  static_assert(mma::is_tile_input_v<In>,
                "tcr::WarpReduce: the tensor-core algorithms sum __half, __nv_bfloat16, "
                "__nv_fp8_e4m3, __nv_fp8_e5m2 or float items; use shuffle_tree for others");
  static_assert(Algorithm != WarpReduceAlgorithm::tensor_core_exact || is_fp8_v<In>,
                "tcr::WarpReduce: tensor_core_exact sums __nv_fp8_e4m3 and __nv_fp8_e5m2 items "
                "only (their f16 MMAs are exact); the MMAs of 16-bit and float items round: use "
                "tensor_core_chain or tensor_core_fold (fast-mode accuracy) or shuffle_tree");
  return true;
}

} // namespace detail

template <class T, WarpReduceAlgorithm Algorithm = WarpReduceAlgorithm::shuffle_tree,
          int LOGICAL_WARP_THREADS = 32>
class WarpReduce {
  static_assert(std::is_trivially_copyable_v<T>,
                "tcr::WarpReduce<T>: T must be trivially copyable (a number or an accumulator)");
  static_assert(std::is_default_constructible_v<T>,
                "tcr::WarpReduce<T>: T must default-construct to the empty sum");
  static_assert(LOGICAL_WARP_THREADS >= 1 && LOGICAL_WARP_THREADS <= 32,
                "tcr::WarpReduce: LOGICAL_WARP_THREADS must be in [1, 32]");
  static_assert(!detail::is_tensor_core_v<Algorithm> || LOGICAL_WARP_THREADS == 32,
                "tcr::WarpReduce: the tensor-core algorithms need the whole warp (mma.sync is "
                "warp-wide): LOGICAL_WARP_THREADS must be 32; use shuffle_tree for fewer lanes");

  static constexpr int lanes = LOGICAL_WARP_THREADS;
  static constexpr bool lanes_pow2 = (lanes & (lanes - 1)) == 0;
  static constexpr bool logical_warps = lanes_pow2 && lanes < 32; // 32 / lanes per warp
  // The shuffles' width: the logical warp for a power of two, else the whole warp.
  static constexpr int width = logical_warps ? lanes : 32;

  // The lanes of the caller's logical warp (for lanes not a power of two: [0, lanes)).
  __device__ __forceinline__ static unsigned member_mask() {
    if constexpr (lanes == 32)
      return detail::full_warp_mask;
    else if constexpr (logical_warps)
      return ((1u << lanes) - 1u) << (detail::lane_id() & ~(lanes - 1));
    else
      return (1u << lanes) - 1u;
  }

  // The caller's rank in its logical warp.
  __device__ __forceinline__ static int logical_lane() {
    if constexpr (logical_warps)
      return detail::lane_id() & (lanes - 1);
    else
      return detail::lane_id();
  }

public:
  // Shuffles and registers only: no shared memory is needed. Kept so code reads like CUB's.
  struct TempStorage {};

  __device__ __forceinline__ explicit WarpReduce(TempStorage&) {}
  __device__ __forceinline__ WarpReduce() {}

  // Reduce one value per lane with op (associative; applied in a fixed tree order, and always
  // as op(lower lanes, higher lanes), so it need not be commutative). Every lane gets the result.
  template <class Op>
  __device__ __forceinline__ T Reduce(const T& x, Op op) const {
    return broadcast(tree_to_lane0<1, true>(x, op, lanes));
  }

  // As above over lanes [0, valid_lanes) only; valid_lanes in [1, LOGICAL_WARP_THREADS]. The
  // other lanes' values are never passed to op.
  template <class Op>
  __device__ __forceinline__ T Reduce(const T& x, Op op, int valid_lanes) const {
    return broadcast(ReduceToLane0(x, op, valid_lanes));
  }

  // Reduce and Reduce(x, op, valid_lanes) without the final broadcast: the result is valid in
  // the logical warp's lane 0 only (cheaper by one shuffle per word of T).
  template <class Op>
  __device__ __forceinline__ T ReduceToLane0(const T& x, Op op) const {
    return tree_to_lane0<1, true>(x, op, lanes);
  }
  template <class Op>
  __device__ __forceinline__ T ReduceToLane0(const T& x, Op op, int valid_lanes) const {
    if (valid_lanes >= lanes)
      return tree_to_lane0<1, true>(x, op, lanes);
    return tree_to_lane0<1, false>(x, op, valid_lanes);
  }

  // ReduceToLane0(x, op, valid_lanes) over the first SPAN lanes only (valid_lanes <= SPAN <=
  // LOGICAL_WARP_THREADS), called by every lane of the logical warp: a tree of log2(SPAN) levels
  // with the logical warp's mask, so that callers need not branch around the shuffles (a branch
  // makes the compiler add warp-synchronisation code around each of them).
  template <int SPAN, class Op>
  __device__ __forceinline__ T ReduceToLane0Within(const T& x, Op op, int valid_lanes) const {
    return tree_to_lane0<1, false, Op, SPAN>(x, op, valid_lanes);
  }

  // The sum (merge, for accumulators) of one value per lane. Every lane gets the result.
  __device__ __forceinline__ T Sum(const T& x) const { return Reduce(x, detail::merge_op{}); }

  // The sum of one input item per lane (an In that is not T, e.g. a __half into
  // tcr::neumaier<float>).
  template <class In, class = std::enable_if_t<!std::is_same_v<In, T> && !std::is_array_v<In>>>
  __device__ __forceinline__ T Sum(const In& item) const {
    const In items[1] = {item};
    return Sum(items);
  }

  // The sum of the logical warp's L N items (blocked arrangement), optionally over the first
  // num_valid of them only (num_valid in [0, L N]; 0 gives the empty sum; invalid items are never
  // read as values). Every lane gets the result; SumToLane0: lane 0 only.
  template <class In, int N>
  __device__ __forceinline__ T Sum(const In (&items)[N]) const {
    return broadcast(SumToLane0(items));
  }
  template <class In, int N>
  __device__ __forceinline__ T Sum(const In (&items)[N], int num_valid) const {
    return broadcast(SumToLane0(items, num_valid));
  }
  template <class In, int N>
  __device__ __forceinline__ T SumToLane0(const In (&items)[N]) const {
    if constexpr (detail::is_tensor_core_v<Algorithm>) {
      return merge_shares_to_lane0(LanePartial(items, N));
    } else {
      return tree_to_lane0<1, true>(LanePartial(items, N), detail::merge_op{}, lanes);
    }
  }
  template <class In, int N>
  __device__ __forceinline__ T SumToLane0(const In (&items)[N], int num_valid) const {
    const int mine = num_valid - logical_lane() * N;
    if constexpr (detail::is_tensor_core_v<Algorithm>) {
      return merge_shares_to_lane0(LanePartial(items, mine));
    } else {
      const int valid_lanes = (num_valid + N - 1) / N;
      if (valid_lanes <= 0)
        return detail::empty_sum<T>();
      return ReduceToLane0(LanePartial(items, mine), detail::merge_op{}, valid_lanes);
    }
  }

  // The dot product of one pair of items per lane, or of arrays x[N], y[N] per lane (blocked),
  // optionally over the first num_valid pairs. T is a plain type (fast) or a dot accumulator
  // (tcr::dot2<...>). Always the shuffle tree. Every lane gets the result; DotToLane0: lane 0.
  template <class X, class Y, class = std::enable_if_t<!std::is_array_v<X>>>
  __device__ __forceinline__ T Dot(const X& x, const Y& y) const {
    const X xs[1] = {x};
    const Y ys[1] = {y};
    return Dot(xs, ys);
  }
  template <class X, class Y, int N>
  __device__ __forceinline__ T Dot(const X (&x)[N], const Y (&y)[N]) const {
    return broadcast(DotToLane0(x, y));
  }
  template <class X, class Y, int N>
  __device__ __forceinline__ T Dot(const X (&x)[N], const Y (&y)[N], int num_valid) const {
    return broadcast(DotToLane0(x, y, num_valid));
  }
  template <class X, class Y, int N>
  __device__ __forceinline__ T DotToLane0(const X (&x)[N], const Y (&y)[N]) const {
    return tree_to_lane0<1, true>(LaneDot(x, y, N), detail::merge_op{}, lanes);
  }
  template <class X, class Y, int N>
  __device__ __forceinline__ T DotToLane0(const X (&x)[N], const Y (&y)[N], int num_valid) const {
    const int valid_lanes = (num_valid + N - 1) / N;
    if (valid_lanes <= 0)
      return detail::empty_sum<T>();
    return ReduceToLane0(LaneDot(x, y, num_valid - logical_lane() * N), detail::merge_op{},
                         valid_lanes);
  }

  // This lane's share of the sum of the items, before the lanes are combined: the merge of
  // LaneShare(LanePartial(...)) over all lanes is the warp's sum. `mine` is how many of this
  // lane's items count (clamped to [0, N]; items past it are not read). With a tensor-core
  // algorithm all 32 lanes must call.
  template <class In, int N>
  __device__ __forceinline__ T LanePartial(const In (&items)[N], int mine) const {
    if constexpr (detail::is_tensor_core_v<Algorithm>) {
      static_assert(detail::check_tile_input<In, Algorithm>());
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
      T acc = detail::empty_sum<T>();
      if constexpr (detail::adds_item_arrays<T>::value) {
        if (mine >= N) {
          acc.add(items);
          return acc;
        }
      }
#pragma unroll
      for (int i = 0; i < N; ++i)
        if (i < mine)
          acc = tcr::accumulate(acc, items[i]);
      return acc;
    }
  }

  // Folds this lane's part of the sum of the warp's items into acc (the full-tile path: every
  // item counts, none is masked). Tensor-core algorithms: all 32 lanes must call;
  // N * sizeof(In) must be a multiple of mma::lane_tile<In>::bytes (16; 32 for float), and the
  // items are copied into the lane tiles as raw bytes. tensor_core_chain runs the whole call as
  // one chain over its N / lane_tile<In>::elements tiles (its D is rounded: keep calls short,
  // the error bound grows with the chain; mma/tile_sum.cuh); tensor_core_exact cuts its chains
  // after 4 MMAs, the length the exactness proofs allow. Lanes l and l ^ 1 fold the same values:
  // LaneShare gives each value to one of them. acc: a float, a double or an accumulator with
  // add(float). shuffle_tree: the items are folded into acc one by one (tcr::accumulate).
  template <class In, int N>
  __device__ __forceinline__ void AccumulateLane(T& acc, const In (&items)[N]) const {
    if constexpr (detail::is_tensor_core_v<Algorithm>) {
      static_assert(detail::check_tile_input<In, Algorithm>());
      constexpr int bytes = mma::lane_tile<In>::bytes;
      static_assert(N * sizeof(In) % bytes == 0,
                    "tcr::WarpReduce::AccumulateLane: N * sizeof(In) must be a multiple of "
                    "mma::lane_tile<In>::bytes (16 bytes; 32 for float): whole lane tiles");
      constexpr int tiles = N * sizeof(In) / bytes;
      mma::lane_tile<In> r_tiles[tiles];
#pragma unroll
      for (int t = 0; t < tiles; ++t)
        std::memcpy(r_tiles[t].w, reinterpret_cast<const unsigned char*>(items) + t * bytes, bytes);
      mma::lane_tile_sum<detail::mma_policy_t<Algorithm>, detail::tile_path_v<In, Algorithm>>(
          r_tiles, acc);
    } else {
      if constexpr (detail::adds_item_arrays<T>::value) {
        acc.add(items);
      } else {
#pragma unroll
        for (int i = 0; i < N; ++i)
          acc = tcr::accumulate(acc, items[i]);
      }
    }
  }

  // The lane's share of what AccumulateLane (or LanePartial) left in acc: merging LaneShare over
  // all lanes of the warp (or of a block) gives the total. Tensor-core algorithms: acc in the
  // even lanes and T{} in the odd ones (whose copies duplicate their even neighbours');
  // shuffle_tree: acc itself.
  __device__ __forceinline__ T LaneShare(const T& acc) const {
    if constexpr (detail::is_tensor_core_v<Algorithm>) {
      return mma::share_of(acc);
    } else {
      return acc;
    }
  }

  // This lane's part of a dot product before the lanes are combined (its first `mine` pairs,
  // clamped to [0, N]; pairs past it are not read): the merge of LaneDot over the lanes is the dot.
  template <class X, class Y, int N>
  __device__ __forceinline__ static T LaneDot(const X (&x)[N], const Y (&y)[N], int mine) {
    T acc = detail::empty_sum<T>();
#pragma unroll
    for (int i = 0; i < N; ++i)
      if (i < mine)
        acc = detail::accumulate_product(acc, x[i], y[i]);
    return acc;
  }

private:
  __device__ __forceinline__ static T broadcast(const T& x) {
    if constexpr (lanes == 1)
      return x;
    else
      return detail::shfl<width>(member_mask(), x, 0);
  }

  // The one shuffle tree of tcr: a shfl.down tree into lane 0 over lanes FIRST_DELTA * k (lane l
  // merges lanes [l, l + 2 delta) at level delta, lower lanes first), no broadcast. It is the
  // same pairwise tree as a butterfly without the two selects per word and level a butterfly
  // needs to keep op's operand order. FIRST_DELTA = 2 merges the even lanes only (the tensor-core
  // shares). ALL_VALID: every lane of the logical warp counts (valid_lanes == lanes); then, for
  // a power-of-two lane count, lanes whose partner is past the end merge unused values without a
  // test, since lane 0 never reads them.
  // SPAN: the tree covers lanes [0, SPAN) (SPAN <= lanes; every lane of the logical warp still
  // calls, with the whole member mask).
  template <int FIRST_DELTA, bool ALL_VALID, class Op, int SPAN = lanes>
  __device__ __forceinline__ static T tree_to_lane0(T x, Op op, int valid_lanes) {
    static_assert(SPAN >= 1 && SPAN <= lanes, "tree span within the logical warp");
    const int lane = logical_lane();
#pragma unroll
    for (int delta = FIRST_DELTA; delta < SPAN; delta *= 2) {
      const T other = detail::shfl_down<width>(member_mask(), x, delta);
      if constexpr (ALL_VALID && lanes_pow2) {
        x = op(x, other);
      } else {
        if (lane + delta < (ALL_VALID ? lanes : valid_lanes))
          x = op(x, other);
      }
    }
    return x;
  }

  // The merge of the 16 even lanes' shares left by the tensor-core algorithms, into lane 0. D's
  // columns are equal row sums, but nothing promises the tensor core rounds two columns alike,
  // so only the even lanes' copies are used.
  __device__ __forceinline__ static T merge_shares_to_lane0(const T& acc) {
    return tree_to_lane0<2, true>(acc, detail::merge_op{}, lanes);
  }
};

} // namespace tcr
