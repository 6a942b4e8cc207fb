// tcr: per-operation thread-level traits for the device reduction kernel (implementation
// detail). They decide which accumulator from compensated/wide.cuh a thread uses and how a
// loaded vector is cut into the accumulator's chunks; all numerics live in compensated/.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include "compensated/convert.cuh"
#include "compensated/double_word.cuh"
#include "compensated/eft.cuh"
#include "compensated/wide.cuh"
#include "mma/tile_sum.cuh"

namespace tcr {
namespace detail {
namespace device {

enum class op_kind { sum, asum, dot, nrm2 };

template <class T>
inline constexpr bool is_fp8_v =
    std::is_same_v<T, __nv_fp8_e4m3> || std::is_same_v<T, __nv_fp8_e5m2>;
// Types whose pairwise products are exact in float: at most 11 + 11 significant bits, and
// 2^-48 <= |x y| <= 2^32 (half: 2^-24 .. 65504; e4m3: 2^-9 .. 448; e5m2: 2^-16 .. 57344).
template <class T>
inline constexpr bool small_exact_v = std::is_same_v<T, __half> || is_fp8_v<T>;

// Widening of N packed elements to float, pairwise where the hardware converts pairs.
template <class T, int N>
__device__ __forceinline__ void to_float(const T (&x)[N], float (&f)[N]) {
  if constexpr (std::is_same_v<T, float>) {
#pragma unroll
    for (int i = 0; i < N; ++i)
      f[i] = x[i];
  } else if constexpr (std::is_same_v<T, __half> && N % 2 == 0) {
#pragma unroll
    for (int i = 0; i < N; i += 2) {
      const float2 v = __half22float2(__halves2half2(x[i], x[i + 1]));
      f[i] = v.x;
      f[i + 1] = v.y;
    }
  } else if constexpr (std::is_same_v<T, __nv_fp8_e5m2> && N % 4 == 0) {
    // e5m2 is the upper byte of a half: one byte permute makes two halves.
    unsigned w[N / 4];
    std::memcpy(w, x, sizeof w);
#pragma unroll
    for (int i = 0; i < N / 4; ++i) {
      const unsigned lo = __byte_perm(w[i], 0u, 0x1404); // [0, b0, 0, b1]
      const unsigned hi = __byte_perm(w[i], 0u, 0x3424); // [0, b2, 0, b3]
      __half2 hl, hh;
      std::memcpy(&hl, &lo, 4);
      std::memcpy(&hh, &hi, 4);
      const float2 a = __half22float2(hl);
      const float2 b = __half22float2(hh);
      f[4 * i] = a.x;
      f[4 * i + 1] = a.y;
      f[4 * i + 2] = b.x;
      f[4 * i + 3] = b.y;
    }
  } else if constexpr (std::is_same_v<T, __nv_fp8_e4m3> && N % 4 == 0) {
    unsigned w[N / 4];
    std::memcpy(w, x, sizeof w);
#pragma unroll
    for (int i = 0; i < N / 4; ++i) {
      const __half2 hl(
          __nv_cvt_fp8x2_to_halfraw2(static_cast<__nv_fp8x2_storage_t>(w[i]), __NV_E4M3));
      const __half2 hh(
          __nv_cvt_fp8x2_to_halfraw2(static_cast<__nv_fp8x2_storage_t>(w[i] >> 16), __NV_E4M3));
      const float2 a = __half22float2(hl);
      const float2 b = __half22float2(hh);
      f[4 * i] = a.x;
      f[4 * i + 1] = a.y;
      f[4 * i + 2] = b.x;
      f[4 * i + 3] = b.y;
    }
  } else {
#pragma unroll
    for (int i = 0; i < N; ++i)
      f[i] = widen<float>(x[i]);
  }
}

template <class T, int N>
__device__ __forceinline__ void to_double(const T (&x)[N], double (&d)[N]) {
  if constexpr (std::is_same_v<T, double>) {
#pragma unroll
    for (int i = 0; i < N; ++i)
      d[i] = x[i];
  } else {
    float f[N];
    to_float(x, f);
#pragma unroll
    for (int i = 0; i < N; ++i)
      d[i] = static_cast<double>(f[i]);
  }
}

template <class T, int N>
__device__ __forceinline__ void make_abs(T (&v)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i)
    v[i] = abs(v[i]);
}

// The L elements of v starting at Off.
template <int L, int Off, class T, int N>
__device__ __forceinline__ void slice(const T (&v)[N], T (&out)[L]) {
  static_assert(Off + L <= N, "slice out of range");
#pragma unroll
  for (int i = 0; i < L; ++i)
    out[i] = v[Off + i];
}

// Calls f(chunk) for each consecutive chunk of L elements of v (L divides N).
template <int L, int Off = 0, class T, int N, class F>
__device__ __forceinline__ void for_chunks(const T (&v)[N], F&& f) {
  if constexpr (Off < N) {
    T c[L];
    slice<L, Off>(v, c);
    f(c);
    for_chunks<L, Off + L>(v, f);
  }
}
template <int L, int Off = 0, class T, int N, class F>
__device__ __forceinline__ void for_chunk_pairs(const T (&a)[N], const T (&b)[N], F&& f) {
  if constexpr (Off < N) {
    T ca[L], cb[L];
    slice<L, Off>(a, ca);
    slice<L, Off>(b, cb);
    f(ca, cb);
    for_chunk_pairs<L, Off + L>(a, b, f);
  }
}

template <int N, int Cap>
inline constexpr int chunk_len = N < Cap ? N : Cap;

template <class Out>
inline constexpr bool is_double_result_v = std::is_same_v<Out, double> || std::is_same_v<Out, dd>;

template <op_kind Op, class X, class Y, class Out>
struct traits {
  static_assert(is_input_type_v<X>, "tcr::DeviceReduce: unsupported input type");
  static constexpr bool binary = Op == op_kind::dot;
  using x_type = X;
  using y_type = std::conditional_t<binary, Y, void>;
  using YL = std::conditional_t<binary, Y, X>;
  // Double machinery where any operand or the result is double.
  static constexpr bool wide =
      std::is_same_v<X, double> || std::is_same_v<YL, double> || is_double_result_v<Out>;
  using wide_acc = std::conditional_t<
      Op == op_kind::nrm2, chunked_ssq_double,
      std::conditional_t<Op == op_kind::dot, chunked_dot_double, chunked_sum<double>>>;
  using acc_type = std::conditional_t<wide, wide_acc, chunked_sum<float>>;
  // What threads and blocks combine. Float results: each thread's value rounded to double, then
  // a plain double tree (fixed order). Why that keeps the contract: rounding costs u_d per
  // thread, and a tree of height h (BlockReduce twice, plus <= 8 sequential merges of the last
  // block's loads: h < 64) adds at most gamma_h S < 2^-46 S, next to the chains' 2^-42.3 S:
  // still within 2^-40 S. Inf and NaN follow plain summation. Double results: the whole
  // accumulator (its cascades are what make 2^-88 S).
  using partial_type = std::conditional_t<wide, acc_type, double>;
  // Double results: most blocks never touch a rare path, and then only the main cascade carries
  // anything; blocks combine that (3 doubles) instead of the whole accumulator (6 to 12).
  static constexpr bool has_fast = wide;
  using fast_type = detail::cascade3;
  static constexpr int max_size = sizeof(X) > sizeof(YL) ? sizeof(X) : sizeof(YL);
  static constexpr int vec_items = 16 / max_size;
  static constexpr bool tensor_core = false;

  template <int N>
  __device__ __forceinline__ static void add_vec(acc_type& acc, const X (&x)[N], const YL (&y)[N]) {
    if constexpr (Op == op_kind::sum || Op == op_kind::asum) {
      add_sum(acc, x);
    } else if constexpr (Op == op_kind::dot) {
      add_dot(acc, x, y);
    } else {
      add_nrm2(acc, x);
    }
  }
  // U vectors at once: fp8 sums take all U * N <= 64 elements as one exact chunk (see
  // exact_sum_e4m3, exact_band_sums_e5m2), which halves their per-element work.
  template <int U, int N>
  __device__ __forceinline__ static void add_vecs(acc_type& acc, const X (&x)[U][N],
                                                  const YL (&y)[U][N]) {
    if constexpr ((Op == op_kind::sum || Op == op_kind::asum) && is_fp8_v<X> && U * N <= 64) {
      X all[U * N];
#pragma unroll
      for (int u = 0; u < U; ++u)
#pragma unroll
        for (int i = 0; i < N; ++i)
          all[u * N + i] = x[u][i];
      add_sum(acc, all);
    } else {
#pragma unroll
      for (int u = 0; u < U; ++u)
        add_vec(acc, x[u], y[u]);
    }
  }
  __device__ __forceinline__ static void add_one(acc_type& acc, const X& x, const YL& y) {
    const X xs[1] = {x};
    const YL ys[1] = {y};
    add_vec(acc, xs, ys);
  }
  __device__ __forceinline__ static acc_type merge(acc_type a, const acc_type& b) {
    a.merge(b);
    return a;
  }
  __device__ __forceinline__ static detail::cascade3& main_cascade(acc_type& a) {
    if constexpr (std::is_same_v<acc_type, chunked_sum<double>>)
      return a.plain;
    else if constexpr (std::is_same_v<acc_type, chunked_dot_double>)
      return a.main.plain;
    else
      return a.mid;
  }
  // Fast form: nothing outside the main cascade, and |hi| <= 2^1000 so that no sum of the at
  // most 2^12 partials a combine sees can overflow (the fast merge has no overflow guard).
  __device__ __forceinline__ static bool is_fast(const partial_type& a) {
    if constexpr (!wide) {
      return false;
    } else if constexpr (std::is_same_v<acc_type, chunked_sum<double>>) {
      return a.big.is_zero() && abs(a.plain.hi) <= 0x1p1000;
    } else if constexpr (std::is_same_v<acc_type, chunked_dot_double>) {
      return a.main.big.is_zero() && a.huge.is_zero() && a.tiny.is_zero() &&
             abs(a.main.plain.hi) <= 0x1p1000;
    } else {
      return a.big.is_zero() && a.small.is_zero() && a.special == 0.0 && abs(a.mid.hi) <= 0x1p1000;
    }
  }
  __device__ __forceinline__ static fast_type to_fast(const partial_type& a) {
    if constexpr (wide) {
      partial_type c = a;
      return main_cascade(c);
    } else {
      return fast_type{};
    }
  }
  __device__ __forceinline__ static partial_type from_fast(const fast_type& f) {
    partial_type a{};
    if constexpr (wide)
      main_cascade(a) = f;
    return a;
  }
  __device__ __forceinline__ static fast_type merge_fast(fast_type a, const fast_type& b) {
    a.merge(b);
    return a;
  }
  __device__ __forceinline__ static partial_type to_partial(const acc_type& acc) {
    if constexpr (wide) {
      return acc;
    } else {
      return acc.value();
    }
  }
  __device__ __forceinline__ static partial_type merge_partials(const partial_type& a,
                                                                const partial_type& b) {
    if constexpr (wide) {
      return merge(a, b);
    } else {
      return add_rn(a, b);
    }
  }
  // The result: rounded to float or double, or the unrounded pair for dd (df32: the double
  // value split into a float pair).
  __device__ __forceinline__ static void store(void* out, const partial_type& acc) {
    if constexpr (std::is_same_v<Out, dd>) {
      if constexpr (Op == op_kind::nrm2) {
        *static_cast<dd*>(out) = acc.nrm2_pair();
      } else {
        const auto [h, l] = acc.pair();
        *static_cast<dd*>(out) = dd(h, l);
      }
      return;
    }
    double v;
    if constexpr (!wide) {
      v = Op == op_kind::nrm2 ? sqrt_rn(acc) : acc; // Nrm2: u_f + 2^-42 relative
    } else if constexpr (Op == op_kind::nrm2) {
      v = acc.nrm2();
    } else {
      v = acc.value();
    }
    if constexpr (std::is_same_v<Out, df32>) {
      *static_cast<df32*>(out) = to_df32(v);
    } else {
      *static_cast<Out*>(out) = static_cast<Out>(v);
    }
  }

private:
  template <int N>
  __device__ __forceinline__ static void add_sum(acc_type& acc, const X (&x)[N]) {
    constexpr bool absolute = Op == op_kind::asum;
    if constexpr (std::is_same_v<X, __nv_fp8_e4m3> && N > 1) {
      float f[N];
      to_float(x, f);
      if constexpr (absolute)
        make_abs(f);
      acc.add(static_cast<double>(exact_sum_e4m3(f))); // exact: see exact_sum_e4m3
    } else if constexpr (std::is_same_v<X, __nv_fp8_e5m2> && N > 1) {
      float f[N];
      to_float(x, f);
      if constexpr (absolute)
        make_abs(f);
      const auto [a, b] = exact_band_sums_e5m2(f);
      if constexpr (wide) {
        const double pair[2] = {a, b};
        acc.add_chunk(pair);
      } else {
        const float pair[2] = {a, b};
        acc.add_chunk(pair);
      }
    } else if constexpr (wide) {
      double d[N];
      to_double(x, d);
      if constexpr (absolute)
        make_abs(d);
      for_chunks<chunk_len<N, 4>>(d, [&](const auto& c) { acc.add_chunk(c); });
    } else {
      float f[N];
      to_float(x, f);
      if constexpr (absolute)
        make_abs(f);
      for_chunks<chunk_len<N, 8>>(f, [&](const auto& c) { acc.add_chunk(c); });
    }
  }

  template <int N>
  __device__ __forceinline__ static void add_dot(acc_type& acc, const X (&x)[N], const YL (&y)[N]) {
    if constexpr (wide) {
      double dx[N], dy[N];
      to_double(x, dx);
      to_double(y, dy);
      for_chunk_pairs<chunk_len<N, 4>>(
          dx, dy, [&](const auto& a, const auto& b) { acc.add_dot_chunk(a, b); });
    } else {
      float fx[N], fy[N];
      to_float(x, fx);
      to_float(y, fy);
      if constexpr (small_exact_v<X> && small_exact_v<YL>) {
        for_chunk_pairs<chunk_len<N, 8>>(
            fx, fy, [&](const auto& a, const auto& b) { acc.add_exact_products_chunk(a, b); });
      } else {
        acc.add_dot_chunk(fx, fy);
      }
    }
  }

  template <int N>
  __device__ __forceinline__ static void add_nrm2(acc_type& acc, const X (&x)[N]) {
    if constexpr (wide) {
      double d[N];
      to_double(x, d);
      for_chunks<chunk_len<N, 4>>(d, [&](const auto& c) { acc.add_chunk(c); });
    } else {
      float f[N];
      to_float(x, f);
      if constexpr (small_exact_v<X>) {
        for_chunks<chunk_len<N, 8>>(f, [&](const auto& c) { acc.add_exact_products_chunk(c, c); });
      } else if constexpr (std::is_same_v<X, __nv_bfloat16>) {
        for_chunks<chunk_len<N, 8>>(f, [&](const auto& c) { acc.add_ssq_chunk_short(c); });
      } else {
        acc.add_ssq_chunk(f);
      }
    }
  }
};

// Sum and Asum on tensor cores: each lane's 16-byte vectors are its lane tiles, summed by
// mma.sync against ones (mma/tile_sum.cuh), Unroll tiles per call in one chain whose final D is
// folded into the lane's accumulator. Lanes l and l ^ 1 receive the same D rows: tc_share keeps
// one copy.
//   fp8 (compensated and fast): exact f16 MMAs (tile_path::exact_f16 for e4m3, exact_bands_f16
//     for e5m2, proofs in mma/tile_sum.cuh), so every folded D is the exact sum of its terms.
//   __half, __nv_bfloat16 (Accuracy::fast only): the native f16 / bf16 MMA with FP32 accumulation,
//     chained through the Unroll MMAs of a call (chain_in_tensor_core). Each call adds at most
//     mma::tile_error_bound(Unroll, 16, 24, S_call) (the Hopper model: alignment and final
//     truncation to 24 bits); the folds into the compensated accumulator and the merges add
//     second-order terms only. See fast_error_constant in reduce/device.cuh.
template <op_kind Op, class X, class Out>
struct tc_traits : traits<Op, X, X, Out> {
  static constexpr bool fp8 = is_fp8_v<X>;
  static_assert((fp8 || std::is_same_v<X, __half> ||
                 std::is_same_v<X, __nv_bfloat16>)&&(Op == op_kind::sum || Op == op_kind::asum),
                "tensor-core device reductions: Sum and Asum of fp8, half and bfloat16 only");
  using base = traits<Op, X, X, Out>;
  using typename base::acc_type;
  static constexpr bool tensor_core = true;

  // Warp-wide: all 32 lanes must call, with U vectors each. tc: the lane's tensor-core share
  // (merged over even lanes only, see tc_share); acc: the lane's own CUDA-core accumulator.
  // half / bfloat16: a chain whose D is not finite (an Inf or NaN input, or bfloat16 data whose
  // row sums overflow float) is dropped and every lane adds its own vectors on the CUDA cores
  // instead (a warp-uniform rare path), so Inf and NaN propagate as in plain summation and no
  // spurious Inf arises.
  template <int U, int N>
  __device__ __forceinline__ static void tc_add(acc_type& tc, acc_type& acc, const X (&x)[U][N]) {
    static_assert(N * sizeof(X) == sizeof(mma::lane_tile<X>), "one 16-byte vector per lane tile");
    mma::lane_tile<X> tiles[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      std::memcpy(tiles[u].w, x[u], sizeof tiles[u].w);
      if constexpr (Op == op_kind::asum) {
        constexpr uint32_t magnitude = fp8 ? 0x7f7f7f7fu : 0x7fff7fffu; // |x|: sign bits cleared
#pragma unroll
        for (int j = 0; j < mma::lane_tile<X>::words; ++j)
          tiles[u].w[j] &= magnitude;
      }
    }
    if constexpr (fp8) {
      constexpr mma::tile_path path = std::is_same_v<X, __nv_fp8_e4m3>
                                          ? mma::tile_path::exact_f16
                                          : mma::tile_path::exact_bands_f16;
      mma::lane_tile_sum<mma::chain_in_tensor_core, path>(tiles, tc);
    } else {
      static_assert(U <= 4, "one chain per call: the fast bound assumes R <= 4");
      float d = 0.f; // the chain's D (one fold: 0 + D)
      mma::lane_tile_sum<mma::chain_in_tensor_core, mma::tile_path::native>(tiles, d);
      if (__any_sync(0xffffffffu, !isfinite(d))) {
#pragma unroll
        for (int u = 0; u < U; ++u)
          base::add_vec(acc, x[u], x[u]);
      } else {
        tc = tcr::accumulate(tc, d);
      }
    }
  }
  __device__ __forceinline__ static acc_type tc_share(const acc_type& tc) {
    return mma::share_of(tc);
  }
};

// Generic Reduce(op, init): a value with a validity flag, so threads without elements need no
// identity element; op and init travel in the traits object (a kernel parameter).
template <class T>
struct maybe {
  T value;
  bool valid;
};

template <class In, class Out, class Op>
struct reduce_traits {
  using x_type = In;
  using y_type = void;
  using acc_type = maybe<Out>;
  using partial_type = acc_type;
  static constexpr bool has_fast = false;
  using fast_type = acc_type;
  static constexpr int vec_items = 1;
  static constexpr bool tensor_core = false;

  Op op;
  Out init;

  __device__ __forceinline__ acc_type merge(const acc_type& a, const acc_type& b) const {
    if (!b.valid)
      return a;
    if (!a.valid)
      return b;
    return {op(a.value, b.value), true};
  }
  __device__ __forceinline__ acc_type to_partial(const acc_type& a) const { return a; }
  // (no fast form; never called)
  __device__ __forceinline__ bool is_fast(const acc_type&) const { return false; }
  __device__ __forceinline__ acc_type to_fast(const acc_type& a) const { return a; }
  __device__ __forceinline__ acc_type from_fast(const acc_type& a) const { return a; }
  __device__ __forceinline__ acc_type merge_fast(const acc_type& a, const acc_type& b) const {
    return merge(a, b);
  }
  __device__ __forceinline__ acc_type merge_partials(const acc_type& a, const acc_type& b) const {
    return merge(a, b);
  }
  template <int N>
  __device__ __forceinline__ void add_vec(acc_type& acc, const In (&x)[N], const In (&)[N]) const {
#pragma unroll
    for (int i = 0; i < N; ++i) {
      const Out v = static_cast<Out>(x[i]);
      acc = acc.valid ? acc_type{op(acc.value, v), true} : acc_type{v, true};
    }
  }
  __device__ __forceinline__ void add_one(acc_type& acc, const In& x, const In&) const {
    const In xs[1] = {x};
    add_vec(acc, xs, xs);
  }
  __device__ __forceinline__ void store(void* out, const acc_type& acc) const {
    *static_cast<Out*>(out) = acc.valid ? op(init, acc.value) : init;
  }
};

} // namespace device
} // namespace detail
} // namespace tcr
