// SPDX-License-Identifier: BSD-3-Clause
// tcr: the accumulators of the device-wide reductions (thread level, no parallel code).
//
// reduce/device.cuh is generic over one concept, which every type here models. With A an
// accumulator and `a` a copy of the empty one (the reduction's identity; it may carry state, such
// as Reduce's operator and init):
//   a.add(x)          x: const X (&)[N], N >= 1 consecutive inputs, folded in order (the
//                     conversion to the accumulation type and the cut into chunks happen here)
//   a.add(x, y)       the same for the pairs of a dot product
//   a.add_magnitudes(x)  optional (sum_accumulator): a.add(|x|) with the magnitudes taken after
//                     the conversion, where they are free; callers without it clear sign bits
//   a.add(v), a.merge(b)  sums only: one float already reduced elsewhere (a tensor-core row sum),
//                     and the merge of two accumulators, as tcr::accumulate and tcr::merge expect
//   A::partial_type   P, what threads and blocks combine: a.partial() gives this thread's
//   a.merge(p, q)     P, the combination of two partials (any tree; the caller fixes the order)
//   a.finish<Out>(p)  the result in Out (float, double, __half, __nv_bfloat16, tcr::df32 or
//                     tcr::dd; integer_sum_accumulator also any integer type, and tcr::int128)
//   a.empty_result<Out>()  the result of an empty reduction (+0 for sums, as CUB; Reduce: init)
//   A::compact_type   C (or void): a smaller form of P that blocks combine instead when every
//                     thread's partial fits it: a.to_compact(p, c) -> bool (fits), a.merge(c, d),
//                     a.from_compact(c) -> P.
// Empty accumulators and partials hold -0 (sums), so that a sum of -0 terms is -0.
//
// Accuracy (s the exact result, S = sum |x_i| (Dot: sum |x_i y_i|), u the unit roundoff of the
// result type), for n < 2^35 inputs, folds and merges of the chunked states in a tree of height
// at most 2^16, and (float results) a tree of partials of height below 64, as the device kernel
// builds them:
//   float results  (sum_accumulator<float>, dot_accumulator<float>):
//                  |res - s| <= 2u|s| + 2^-40 S
//   double results (sum_accumulator<double>, dot_accumulator<double>):
//                  |res - s| <= 2u|s| + 2^-88 S
//   nrm2_accumulator<float / double>: relative error <= u + 2^-40 / u + 2^-100.
//   __half and __nv_bfloat16 results, from either machinery: rounded once (to nearest even, by
//   tcr::round_to, compensated/narrow.cuh) from the accurate value a: the float machinery's
//   double (|a - s| <= 2^-42 S, rounded_partial below), the double machinery's unevaluated pair
//   hi + lo (|a - s| <= 2^-104 |s| + 2^-100 S, the dd result), never from a rounded double.
//   With u = 2^-11 (half), 2^-8 (bfloat16) and eta/2 half the subnormal spacing (2^-25, 2^-134):
//     |res - s| <= u|s| + 2^-41 S + eta/2   (float machinery)
//     |res - s| <= u|s| + 2^-99 S + eta/2   (double machinery)
//   because |res - a| <= u|a| + eta/2 and u|a| <= u|s| + u|a - s|, with (1 + u) 2^-42 < 2^-41
//   and (1 + u)(2^-104 + 2^-100) < 2^-99 (|s| <= S). Results beyond the range overflow to +-inf
//   (half: |a| >= 65520); a result that rounds to zero keeps a's sign (a sum of -0 terms gives
//   -0, as the float result does). nrm2: relative error <= u + 2^-40 (float machinery), u +
//   2^-99 (double), plus eta/2 absolute.
//   When s is farther than that accurate value's error from every midpoint of Out's grid, the
//   result is RN_Out(s) itself (a and s round alike).
// integer_sum_accumulator: exact (a 128-bit sum) for n < 2^35 inputs of up to 64 bits or products
// of up to 32 x 32 bits (|s| < 2^99); each result rounded once from it, integers wrap (below).
// Proofs: the chunked accumulators in compensated/chunked.cuh, the float results' partials
// below (rounded_partial), and the rounding in compensated/narrow.cuh.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cstring>
#include <type_traits>
#include "chunked.cuh"
#include "convert.cuh"
#include "double_word.cuh"
#include "eft.cuh"
#include "narrow.cuh"

namespace tcr {
namespace detail {

// Types whose pairwise products are exact in float: at most 11 + 11 significant bits, and
// 2^-48 <= |x y| <= 2^32 (half: 2^-24 .. 65504; e4m3: 2^-9 .. 448; e5m2: 2^-16 .. 57344).
template <class T>
inline constexpr bool exact_products_v = std::is_same_v<T, __half> || is_fp8_v<T>;

template <class Out>
inline constexpr bool is_result_type_v =
    std::is_same_v<Out, float> || std::is_same_v<Out, double> || std::is_same_v<Out, __half> ||
    std::is_same_v<Out, __nv_bfloat16> || std::is_same_v<Out, df32> || std::is_same_v<Out, dd>;

// Calls f(chunk) for consecutive chunks of at most L elements of v, in order (a shorter last
// chunk where L does not divide N).
template <int L, int Off = 0, class T, int N, class F>
TCR_HD void for_chunks(const T (&v)[N], F&& f) {
  if constexpr (Off < N) {
    constexpr int len = N - Off < L ? N - Off : L;
    T c[len];
    std::memcpy(c, v + Off, sizeof c); // whole words of packed 8- and 16-bit inputs
    f(c);
    for_chunks<L, Off + len>(v, f);
  }
}
template <int L, int Off = 0, class T, class U, int N, class F>
TCR_HD void for_chunk_pairs(const T (&a)[N], const U (&b)[N], F&& f) {
  if constexpr (Off < N) {
    constexpr int len = N - Off < L ? N - Off : L;
    T ca[len];
    U cb[len];
    std::memcpy(ca, a + Off, sizeof ca);
    std::memcpy(cb, b + Off, sizeof cb);
    f(ca, cb);
    for_chunk_pairs<L, Off + len>(a, b, f);
  }
}

// The same over x widened exactly to To: x is converted one 16-byte vector at a time (whole
// words of packed inputs go to the converters; converting smaller slices costs byte shuffles),
// and the widened vector is cut into chunks of at most L.
template <int L, class To, bool Abs = false, class T, int N, class F>
TCR_HD void for_widened_chunks(const T (&x)[N], F&& f);
template <int L, class To, class T, class U, int N, class F>
TCR_HD void for_widened_chunk_pairs(const T (&x)[N], const U (&y)[N], F&& f);

// A chunk widened exactly to To, returned by value (its .v passes on as an array).
template <class To, int N>
struct widened_chunk {
  To v[N];
};
// Abs: the magnitudes of the widened values (fabs of a float or double is a free source modifier
// of the additions that consume it; clearing the sign bits in the packed inputs is not).
template <class To, bool Abs = false, class T, int N>
TCR_HD widened_chunk<To, N> widened(const T (&x)[N]) {
  widened_chunk<To, N> r;
  widen_all(x, r.v);
  if constexpr (Abs) {
    TCR_UNROLL
    for (int i = 0; i < N; ++i)
      r.v[i] = detail::abs(r.v[i]);
  }
  return r;
}

template <int L, class To, bool Abs, class T, int N, class F>
TCR_HD void for_widened_chunks(const T (&x)[N], F&& f) {
  constexpr int G = N < int(16 / sizeof(T)) ? N : int(16 / sizeof(T));
  for_chunks<G>(x, [&](const auto& v) {
    const auto w = widened<To, Abs>(v);
    for_chunks<L>(w.v, f);
  });
}
template <int L, class To, class T, class U, int N, class F>
TCR_HD void for_widened_chunk_pairs(const T (&x)[N], const U (&y)[N], F&& f) {
  constexpr int wider = sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U);
  constexpr int G = N < 16 / wider ? N : 16 / wider;
  for_chunk_pairs<G>(x, y, [&](const auto& a, const auto& b) {
    const auto wa = widened<To>(a);
    const auto wb = widened<To>(b);
    for_chunk_pairs<L>(wa.v, wb.v, f);
  });
}

// A double rounded to Out (df32: split into a float pair; dd: the double itself; half and
// bfloat16: one rounding, tcr::round_to).
template <class Out>
TCR_HD Out from_double(double v) {
  if constexpr (std::is_same_v<Out, df32>)
    return to_df32(v);
  else if constexpr (std::is_same_v<Out, dd>)
    return dd(v);
  else if constexpr (std::is_same_v<Out, __half> || std::is_same_v<Out, __nv_bfloat16>)
    return round_to<Out>(v);
  else
    return static_cast<Out>(v);
}

// The partial of the float-result accumulators: the thread's value rounded to double, combined
// by plain double additions (in the caller's fixed order). Why that keeps 2u|s| + 2^-40 S:
// rounding costs u_d per thread, and a tree of height h < 64 (two block reductions and the last
// block's sequential merges) adds at most gamma_h S < 2^-46 S, next to the chunks' 2^-42.3 S
// (chunked_sum<float>); so the double a the partials end in meets |a - s| <= (2^-53 + 2^-42.3 +
// 2^-46) S < 2^-42 S, and each result is one rounding of a. Inf and NaN follow plain summation.
// SquareRoot: the value is a sum of squares and the result its root (rounded once in double: u_f +
// 2^-42 relative).
template <bool SquareRoot>
struct rounded_partial {
  double value = SquareRoot ? 0.0 : -0.0;
};

// The double-result accumulators combine themselves; blocks whose partials have nothing outside
// their main cascade, and |hi| <= 2^1000 (so that no sum of the at most 2^12 partials of a
// combine can overflow), combine just that cascade.
inline constexpr double compact_limit = 0x1p1000;

// The partial's operations of the float-result accumulators (merge, finish, empty_result).
template <bool SquareRoot = false>
struct float_result_ops {
  using partial_type = rounded_partial<SquareRoot>;
  using compact_type = void;

  TCR_HD partial_type merge(partial_type a, const partial_type& b) const {
    return {add_rn(a.value, b.value)};
  }
  template <class Out>
  TCR_HD Out finish(const partial_type& p) const {
    return from_double<Out>(SquareRoot ? sqrt_rn(p.value) : p.value);
  }
  template <class Out>
  TCR_HD Out empty_result() const {
    return from_double<Out>(0.0);
  }
};

// Shared members of the float-result accumulators: a chunked sum as the thread's state.
template <bool SquareRoot = false>
struct float_result_base : float_result_ops<SquareRoot> {
  using typename float_result_ops<SquareRoot>::partial_type;
  chunked_sum<float> state;

  TCR_HD partial_type partial() const { return {state.value()}; }
};

// Shared members of the double-result accumulators: State (chunked_sum<double>,
// chunked_dot_double, chunked_ssq_double) is both the thread state and the partial; its compact
// form is its common cascade (the one every ordinary input goes to), used while nothing else is
// nonzero and the magnitude stays below compact_limit.
template <class State>
struct double_result_base {
  using partial_type = State;
  using compact_type = cascade3;
  State state;

  TCR_HD partial_type partial() const { return state; }
  TCR_HD partial_type merge(partial_type a, const partial_type& b) const {
    a.merge(b);
    return a;
  }
  TCR_HD bool to_compact(const partial_type& p, compact_type& c) const {
    c = p.common();
    return p.only_common() && abs(p.common().hi) <= compact_limit;
  }
  TCR_HD compact_type merge(compact_type a, const compact_type& b) const {
    a.merge(b);
    return a;
  }
  TCR_HD partial_type from_compact(const compact_type& c) const {
    partial_type p;
    p.common() = c;
    return p;
  }
  template <class Out>
  TCR_HD Out empty_result() const {
    return from_double<Out>(0.0);
  }
  template <class Out>
  TCR_HD Out finish(const partial_type& p) const {
    constexpr bool norm = std::is_same_v<State, chunked_ssq_double>;
    constexpr bool narrow = std::is_same_v<Out, __half> || std::is_same_v<Out, __nv_bfloat16>;
    if constexpr (std::is_same_v<Out, dd> && norm) {
      return p.nrm2_pair();
    } else if constexpr (std::is_same_v<Out, dd>) {
      const auto [h, l] = p.pair();
      return dd(h, l);
    } else if constexpr (narrow && norm) { // the pair rounded once, not its double
      const dd r = p.nrm2_pair();
      return round_to<Out>(r.hi, r.lo);
    } else if constexpr (narrow) {
      const auto [h, l] = p.pair();
      return round_to<Out>(h, l);
    } else if constexpr (norm) {
      return from_double<Out>(p.nrm2());
    } else {
      return from_double<Out>(p.value());
    }
  }
};

} // namespace detail

// Sum (and, of magnitudes, Asum) of any input type. Result float: short f32 Sum2 chunks folded
// into a double Neumaier sum (chunked_sum<float>); e4m3 and e5m2 chunks of up to 64 values are
// summed exactly in f32 first (exact_sum_e4m3, exact_band_sums_e5m2).
template <class Result>
struct sum_accumulator;

namespace detail {
// The inputs x (Abs: their magnitudes, taken after widening) into a chunked sum `state` of
// machinery T: e4m3 and e5m2 chunks of up to 64 values exact in f32 first, the rest in chunks of
// at most L values widened to T.
template <class T, int L, bool Abs, class State, class X, int N>
TCR_HD void add_sum_inputs(State& state, const X (&x)[N]) {
  static_assert(!(std::is_same_v<T, float> && std::is_same_v<X, double>),
                "double inputs use sum_accumulator<double>");
  if constexpr (std::is_same_v<X, __nv_fp8_e4m3> && N > 1) {
    for_chunks<64>(x, [&](const auto& c) {
      state.add(static_cast<double>(exact_sum_e4m3(widened<float, Abs>(c).v))); // exact
    });
  } else if constexpr (std::is_same_v<X, __nv_fp8_e5m2> && N > 1) {
    for_chunks<64>(x, [&](const auto& c) {
      const auto [a, b] = exact_band_sums_e5m2(widened<float, Abs>(c).v);
      const T pair[2] = {a, b};
      state.add_chunk(pair);
    });
  } else {
    for_widened_chunks<L, T, Abs>(x, [&](const auto& c) { state.add_chunk(c); });
  }
}
} // namespace detail

template <>
struct sum_accumulator<float> : detail::float_result_base<> {
  using detail::float_result_base<>::merge; // partials; merge(sum_accumulator) below
  // One 16-byte vector per chunk (float: 4, 16-bit types: 8).
  template <class X>
  static constexpr int chunk_length = sizeof(X) >= 4 ? 4 : 8;
  template <class X, int N>
  TCR_HD void add(const X (&x)[N]) {
    detail::add_sum_inputs<float, chunk_length<X>, false>(state, x);
  }
  // add(|x|), the magnitudes taken after widening (Asum).
  template <class X, int N>
  TCR_HD void add_magnitudes(const X (&x)[N]) {
    detail::add_sum_inputs<float, chunk_length<X>, true>(state, x);
  }
  // One float reduced elsewhere (a tensor-core row sum), and the merge of two accumulators: what
  // tcr::accumulate and tcr::merge call, so that the warp layer can fold into this type.
  TCR_HD void add(float v) { state.add(static_cast<double>(v)); }
  TCR_HD void merge(const sum_accumulator& o) { state.merge(o.state); }
};

// Result double (or dd): every chunk of up to 4 doubles into chunked_sum<double>'s cascade.
template <>
struct sum_accumulator<double> : detail::double_result_base<chunked_sum<double>> {
  using detail::double_result_base<chunked_sum<double>>::merge; // partials; below: accumulators
  template <class X, int N>
  TCR_HD void add(const X (&x)[N]) {
    detail::add_sum_inputs<double, 4, false>(state, x);
  }
  // add(|x|), the magnitudes taken after widening (Asum).
  template <class X, int N>
  TCR_HD void add_magnitudes(const X (&x)[N]) {
    detail::add_sum_inputs<double, 4, true>(state, x);
  }
  TCR_HD void add(float v) { state.add(static_cast<double>(v)); }
  TCR_HD void merge(const sum_accumulator& o) { state.merge(o.state); }
};

// Dot product of any pair of input types. Result float: products exact in float (both operands
// from half, e4m3, e5m2) go through f32 Sum2 chunks of 8; others are exact in double and summed
// there in chunks of up to 16 (chunked_sum<float>::add_dot_chunk).
template <class Result>
struct dot_accumulator;

template <>
struct dot_accumulator<float> : detail::float_result_base<> {
  template <class X, class Y, int N>
  TCR_HD void add(const X (&x)[N], const Y (&y)[N]) {
    add_to(state, x, y);
  }
  // The same into any state with chunked_sum<float>'s chunk calls (compensated/certified.cuh).
  template <class State, class X, class Y, int N>
  TCR_HD static void add_to(State& state, const X (&x)[N], const Y (&y)[N]) {
    static_assert(!std::is_same_v<X, double> && !std::is_same_v<Y, double>,
                  "double inputs use dot_accumulator<double>");
    if constexpr (detail::exact_products_v<X> && detail::exact_products_v<Y>) {
      detail::for_widened_chunk_pairs<8, float>(
          x, y, [&](const auto& a, const auto& b) { state.add_exact_products_chunk(a, b); });
    } else {
      detail::for_widened_chunk_pairs<16, float>(
          x, y, [&](const auto& a, const auto& b) { state.add_dot_chunk(a, b); });
    }
  }
};

// Result double: chunks of up to 4 products into chunked_dot_double (no spurious overflow or
// underflow for any finite data).
template <>
struct dot_accumulator<double> : detail::double_result_base<chunked_dot_double> {
  template <class X, class Y, int N>
  TCR_HD void add(const X (&x)[N], const Y (&y)[N]) {
    detail::for_widened_chunk_pairs<4, double>(
        x, y, [&](const auto& a, const auto& b) { state.add_dot_chunk(a, b); });
  }
};

// Euclidean norm. Result float: squares exact in float (half, e4m3, e5m2) through f32 Sum2
// chunks; bfloat16 squares in float with a double redo for tiny or huge chunks
// (add_ssq_chunk_short); float squares exact in double. The root is taken once, in double.
template <class Result>
struct nrm2_accumulator;

template <>
struct nrm2_accumulator<float> : detail::float_result_base<true> {
  template <class X, int N>
  TCR_HD void add(const X (&x)[N]) {
    static_assert(!std::is_same_v<X, double>, "double inputs use nrm2_accumulator<double>");
    if constexpr (detail::exact_products_v<X>) {
      detail::for_widened_chunks<8, float>(
          x, [&](const auto& c) { state.add_exact_products_chunk(c, c); });
    } else if constexpr (std::is_same_v<X, __nv_bfloat16>) {
      detail::for_widened_chunks<8, float>(x, [&](const auto& c) { state.add_ssq_chunk_short(c); });
    } else {
      detail::for_widened_chunks<16, float>(x, [&](const auto& c) { state.add_ssq_chunk(c); });
    }
  }
};

// Result double: chunked_ssq_double (Blue's bands, exact squares).
template <>
struct nrm2_accumulator<double> : detail::double_result_base<chunked_ssq_double> {
  template <class X, int N>
  TCR_HD void add(const X (&x)[N]) {
    detail::for_widened_chunks<4, double>(x, [&](const auto& c) { state.add_chunk(c); });
  }
};

// Short float-result reductions: Sum / Asum (short_sum_accumulator<false>) and Nrm2 (<true>: sum
// of squares) of at most short_terms terms in all, each input of a float-range type (f32, f16,
// bf16, e4m3, e5m2) widened exactly to double and every term added in double, one rounding per
// addition (a square of a float-range value is exact in double: 24 + 24 significant bits,
// 2^-298 <= x^2 <= 2^256, and the fused multiply-add rounds once). The segmented reductions use
// them for their warp-tier segments (at most 4096 elements), where the chunked accumulators'
// per-element two_sum work would cost more than the memory traffic. Their partial and its merge,
// finish and empty_result are those of the float-result accumulators above (rounded_partial: a
// double; merged by double additions), so a segment's value is a tree of n - 1 double additions of
// its n terms, in a fixed order.
//
// Bound (any tree of additions: Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed.,
// section 4.2): |v - s| <= gamma_{n-1} S, gamma_k = k u_d / (1 - k u_d), u_d = 2^-53, S the sum of
// the terms' magnitudes. For n <= short_terms = 2^12, gamma_{n-1} < 2^-41, so the float result
// RN(v) meets |res - s| <= u|v| + |v - s| <= u|s| + (1 + u) 2^-41 S < 2u|s| + 2^-40 S, the
// compensated contract. Nrm2: every term is nonnegative, so v = s (1 +
// e), |e| <= 2^-41; sqrt_rn in double and the rounding to float add u_d and u: relative error <=
// u + 2^-42 + 2^-52 < u + 2^-40. Results of type __half / __nv_bfloat16 keep the chunked
// accumulators (their contract's 2^-41 S has no room for the (1 + u) factor).
// No overflow: |terms| < 2^256 and n <= 2^12 keep every partial sum finite for finite data; Inf
// and NaN propagate as in plain summation; the sum starts at -0 (IEEE addition's identity), so
// an all -0 Sum gives -0 as plain summation does. Each step is an _rn intrinsic (fma_rn, add_rn):
// contraction cannot change a bit.
inline constexpr long long short_terms = 4096;

template <bool Squares>
struct short_sum_accumulator : detail::float_result_ops<Squares> {
  using partial_type = detail::rounded_partial<Squares>;
  double value = Squares ? 0.0 : -0.0;

  template <class X, int N>
  TCR_HD void add(const X (&x)[N]) {
    static_assert(!std::is_same_v<X, double>, "short accumulators: float-range inputs");
    double w[N];
    widen_all(x, w); // exact
    TCR_UNROLL
    for (int i = 0; i < N; ++i)
      value = Squares ? detail::fma_rn(w[i], w[i], value) : detail::add_rn(value, w[i]);
  }
  // add(|x|), the magnitudes taken after widening (Asum).
  template <class X, int N>
  TCR_HD void add_magnitudes(const X (&x)[N]) {
    double w[N];
    widen_all(x, w);
    TCR_UNROLL
    for (int i = 0; i < N; ++i)
      value = detail::add_rn(value, detail::abs(w[i]));
  }
  TCR_HD partial_type partial() const { return {value}; }
};

// The short accumulator that stands in for Acc (with result Out) where every reduction has at
// most short_terms terms: the above for the float-result Sum / Asum and Nrm2 into float, Acc
// itself otherwise (Dot keeps its chunked accumulator: the short form measured slower there, the
// kernels' registers for two operands being the limit).
template <class Acc, class Out>
struct short_accumulator {
  using type = Acc;
};
template <>
struct short_accumulator<sum_accumulator<float>, float> {
  using type = short_sum_accumulator<false>;
};
template <>
struct short_accumulator<nrm2_accumulator<float>, float> {
  using type = short_sum_accumulator<true>;
};
template <class Acc, class Out>
using short_accumulator_t = typename short_accumulator<Acc, Out>::type;

// Exact sums of integers: Sum (Absolute = false) and Asum (Absolute = true: sum |x_i|, with
// |INT64_MIN| = 2^63) of any integer type of 8 to 64 bits, signed or unsigned, and Dot of
// integers of at most 32 bits each. The partial is the sum modulo 2^128 (tcr::int128), merged by
// exact 128-bit addition, so any tree gives the same bits. Exact (no wrap) while |s| < 2^127: for
// n < 2^35 inputs of up to 64 bits (|x| <= 2^64) or products of 32-bit operands (|x y| <= 2^64),
// |s| < 2^99. Results, from the exact s:
//   integer Out (8 to 64 bits, signed or unsigned): s modulo 2^bits, read as two's complement
//     (what a plain sum in Out, such as cub::DeviceReduce::Sum with an Out accumulator, wraps to);
//   float, double, __half, __nv_bfloat16: RN_Out(s), one rounding (tcr::round_to), +-inf beyond
//     the range (half: |s| >= 65520; float, bfloat16 and double hold every |s| < 2^127);
//   df32, dd: hi = RN(s), lo = RN(s - hi) with s - hi exact in 128 bits (so |hi + lo - s| <=
//     u^2 |s| and hi = RN(hi + lo));
//   tcr::int128: s itself. Zero is +0 (integers have no -0); empty_result is 0.
// Chunks: inputs of at most 16 bits (N <= 2^15) sum exactly in 32 bits, of 32 bits in 64, and
// 64-bit inputs go to the 128-bit sum one by one; products of at most 48 bits together (N <=
// 2^14) sum in 64 bits, others one by one (int64, or uint64 for two unsigned 32-bit operands).
template <bool Absolute = false>
struct integer_sum_accumulator {
  using partial_type = int128;
  using compact_type = void;
  int128 state{};

  template <class X, int N>
  TCR_HD void add(const X (&x)[N]) {
    static_assert(detail::is_integer_input_v<X>,
                  "tcr::integer_sum_accumulator: integer inputs of 8 to 64 bits (not bool)");
    if constexpr (sizeof(X) <= 2 && N <= (1 << 15)) { // |sum| < 2^15 * 2^16 = 2^31
      std::int32_t c = 0;
      TCR_UNROLL
      for (int i = 0; i < N; ++i)
        c += magnitude_or_value<std::int32_t>(x[i]);
      state = state + int128::from_signed(c);
    } else if constexpr (sizeof(X) <= 4 && N <= (1 << 30)) { // |sum| < 2^30 * 2^32 = 2^62
      std::int64_t c = 0;
      TCR_UNROLL
      for (int i = 0; i < N; ++i)
        c += magnitude_or_value<std::int64_t>(x[i]);
      state = state + int128::from_signed(c);
    } else {
      TCR_UNROLL
      for (int i = 0; i < N; ++i) {
        if constexpr (std::is_unsigned_v<X> || Absolute)
          state = state + int128::from_unsigned(magnitude_or_value<std::uint64_t>(x[i]));
        else
          state = state + int128::from_signed(static_cast<std::int64_t>(x[i]));
      }
    }
  }
  template <class X, class Y, int N>
  TCR_HD void add(const X (&x)[N], const Y (&y)[N]) {
    static_assert(detail::is_integer_input_v<X> && detail::is_integer_input_v<Y>,
                  "tcr::integer_sum_accumulator: integer inputs of 8 to 64 bits (not bool)");
    static_assert(sizeof(X) <= 4 && sizeof(Y) <= 4,
                  "tcr::integer_sum_accumulator: a dot product takes integers of at most 32 bits "
                  "(each product must fit 64 bits)");
    static_assert(!Absolute, "tcr::integer_sum_accumulator: Asum (Absolute) has no dot product");
    constexpr bool two_unsigned = std::is_unsigned_v<X> && std::is_unsigned_v<Y>;
    if constexpr (sizeof(X) + sizeof(Y) <= 6 && N <= (1 << 14)) { // |x y| < 2^48: |sum| < 2^62
      std::int64_t c = 0;
      TCR_UNROLL
      for (int i = 0; i < N; ++i)
        c += static_cast<std::int64_t>(x[i]) * static_cast<std::int64_t>(y[i]);
      state = state + int128::from_signed(c);
    } else {
      TCR_UNROLL
      for (int i = 0; i < N; ++i) {
        if constexpr (two_unsigned) // up to (2^32 - 1)^2
          state = state + int128::from_unsigned(static_cast<std::uint64_t>(x[i]) *
                                                static_cast<std::uint64_t>(y[i]));
        else // |x y| <= 2^31 (2^32 - 1) < 2^63
          state = state + int128::from_signed(static_cast<std::int64_t>(x[i]) *
                                              static_cast<std::int64_t>(y[i]));
      }
    }
  }
  TCR_HD void merge(const integer_sum_accumulator& o) { state = state + o.state; }

  TCR_HD partial_type partial() const { return state; }
  TCR_HD partial_type merge(const partial_type& a, const partial_type& b) const { return a + b; }
  template <class Out>
  TCR_HD Out finish(const partial_type& p) const {
    static_assert(detail::is_integer_input_v<Out> || detail::is_result_type_v<Out> ||
                      std::is_same_v<Out, int128>,
                  "tcr::integer_sum_accumulator: the result must be an integer type, float, "
                  "double, __half, __nv_bfloat16, tcr::df32, tcr::dd or tcr::int128");
    if constexpr (std::is_same_v<Out, int128>) {
      return p;
    } else if constexpr (detail::is_integer_input_v<Out>) {
      // The low bits, read as two's complement (memcpy: no implementation-defined conversion).
      const auto bits = static_cast<std::make_unsigned_t<Out>>(p.lo);
      Out r;
      std::memcpy(&r, &bits, sizeof r);
      return r;
    } else if constexpr (std::is_same_v<Out, df32> || std::is_same_v<Out, dd>) {
      using T = typename Out::value_type;
      const T hi = round_to<T>(p);
      return Out(hi, round_to<T>(p - detail::int128_of(hi)));
    } else {
      return round_to<Out>(p);
    }
  }
  template <class Out>
  TCR_HD Out empty_result() const {
    return finish<Out>(int128{});
  }

private:
  // x as To: |x| for Asum (in To's range by the callers' choice of To), x otherwise.
  template <class To, class X>
  TCR_HD static To magnitude_or_value(X x) {
    if constexpr (Absolute && std::is_signed_v<X>) {
      // In the unsigned type of X's width, 0 - x is |x| modulo 2^bits: exact, INT_MIN included.
      using U = std::make_unsigned_t<X>;
      const U u = static_cast<U>(x);
      return static_cast<To>(x < 0 ? static_cast<U>(U(0) - u) : u);
    } else {
      return static_cast<To>(x);
    }
  }
};

// Reduce(op, init): each input converted to Out and combined with op, which must be associative
// (the combining order is fixed by the caller). The partial is a value with a validity flag, so
// threads without inputs need no identity element; op and init live in the accumulator (a copy
// of the empty one reaches every thread), not in the partials.
template <class Out, class Op>
struct reduce_accumulator {
  struct partial_type {
    Out value;
    bool valid;
  };
  using compact_type = void;

  Op op;
  Out init;
  partial_type state{Out{}, false};

  template <class X, int N>
  TCR_HD void add(const X (&x)[N]) {
    TCR_UNROLL
    for (int i = 0; i < N; ++i) {
      const Out v = static_cast<Out>(x[i]);
      state = {state.valid ? op(state.value, v) : v, true};
    }
  }
  TCR_HD partial_type partial() const { return state; }
  TCR_HD partial_type merge(const partial_type& a, const partial_type& b) const {
    if (!b.valid)
      return a;
    if (!a.valid)
      return b;
    return {op(a.value, b.value), true};
  }
  template <class O>
  TCR_HD O finish(const partial_type& p) const {
    static_assert(std::is_same_v<O, Out>, "Reduce writes its own result type");
    return p.valid ? op(init, p.value) : init;
  }
  template <class O>
  TCR_HD O empty_result() const {
    return init;
  }
};

} // namespace tcr
