// SPDX-License-Identifier: BSD-3-Clause
// tcr: the accumulators of the device-wide reductions (thread level, no parallel code).
//
// reduce/device.cuh is generic over one concept, which every type here models. With A an
// accumulator and `a` a copy of the empty one (the reduction's identity; it may carry state, such
// as Reduce's operator and init):
//   a.add(x)          x: const X (&)[N], N >= 1 consecutive inputs, folded in order (the
//                     conversion to the accumulation type and the cut into chunks happen here)
//   a.add(x, y)       the same for the pairs of a dot product
//   a.add(v), a.merge(b)  sums only: one float already reduced elsewhere (a tensor-core row sum),
//                     and the merge of two accumulators, as tcr::accumulate and tcr::merge expect
//   A::partial_type   P, what threads and blocks combine: a.partial() gives this thread's
//   a.merge(p, q)     P, the combination of two partials (any tree; the caller fixes the order)
//   a.finish<Out>(p)  the result in Out (float, double, tcr::df32 or tcr::dd)
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
// Proofs: the chunked accumulators in compensated/chunked.cuh, and the float results' partials
// below (rounded_partial).
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

namespace tcr {
namespace detail {

// Types whose pairwise products are exact in float: at most 11 + 11 significant bits, and
// 2^-48 <= |x y| <= 2^32 (half: 2^-24 .. 65504; e4m3: 2^-9 .. 448; e5m2: 2^-16 .. 57344).
template <class T>
inline constexpr bool exact_products_v = std::is_same_v<T, __half> || is_fp8_v<T>;

template <class Out>
inline constexpr bool is_result_type_v =
    std::is_same_v<Out, float> || std::is_same_v<Out, double> || std::is_same_v<Out, df32> ||
    std::is_same_v<Out, dd>;

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
template <int L, class To, class T, int N, class F>
TCR_HD void for_widened_chunks(const T (&x)[N], F&& f);
template <int L, class To, class T, class U, int N, class F>
TCR_HD void for_widened_chunk_pairs(const T (&x)[N], const U (&y)[N], F&& f);

// A chunk widened exactly to To, returned by value (its .v passes on as an array).
template <class To, int N>
struct widened_chunk {
  To v[N];
};
template <class To, class T, int N>
TCR_HD widened_chunk<To, N> widened(const T (&x)[N]) {
  widened_chunk<To, N> r;
  widen_all(x, r.v);
  return r;
}

template <int L, class To, class T, int N, class F>
TCR_HD void for_widened_chunks(const T (&x)[N], F&& f) {
  constexpr int G = N < int(16 / sizeof(T)) ? N : int(16 / sizeof(T));
  for_chunks<G>(x, [&](const auto& v) {
    const auto w = widened<To>(v);
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

// A double rounded to Out (df32: split into a float pair; dd: the double itself).
template <class Out>
TCR_HD Out from_double(double v) {
  if constexpr (std::is_same_v<Out, df32>)
    return to_df32(v);
  else if constexpr (std::is_same_v<Out, dd>)
    return dd(v);
  else
    return static_cast<Out>(v);
}

// The partial of the float-result accumulators: the thread's value rounded to double, combined
// by plain double additions (in the caller's fixed order). Why that keeps 2u|s| + 2^-40 S:
// rounding costs u_d per thread, and a tree of height h < 64 (two block reductions and the last
// block's sequential merges) adds at most gamma_h S < 2^-46 S, next to the chunks' 2^-42.3 S
// (chunked_sum<float>); Inf and NaN follow plain summation. SquareRoot: the value is a sum of
// squares and the result its root (rounded once in double: u_f + 2^-42 relative).
template <bool SquareRoot>
struct rounded_partial {
  double value = SquareRoot ? 0.0 : -0.0;
};

// The double-result accumulators combine themselves; blocks whose partials have nothing outside
// their main cascade, and |hi| <= 2^1000 (so that no sum of the at most 2^12 partials of a
// combine can overflow), combine just that cascade.
inline constexpr double compact_limit = 0x1p1000;

// Shared members of the float-result accumulators.
template <bool SquareRoot = false>
struct float_result_base {
  using partial_type = rounded_partial<SquareRoot>;
  using compact_type = void;
  chunked_sum<float> state;

  TCR_HD partial_type partial() const { return {state.value()}; }
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
    if constexpr (std::is_same_v<Out, dd> && norm) {
      return p.nrm2_pair();
    } else if constexpr (std::is_same_v<Out, dd>) {
      const auto [h, l] = p.pair();
      return dd(h, l);
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

template <>
struct sum_accumulator<float> : detail::float_result_base<> {
  using detail::float_result_base<>::merge; // partials; merge(sum_accumulator) below
  template <class X, int N>
  TCR_HD void add(const X (&x)[N]) {
    static_assert(!std::is_same_v<X, double>, "double inputs use sum_accumulator<double>");
    if constexpr (std::is_same_v<X, __nv_fp8_e4m3> && N > 1) {
      detail::for_chunks<64>(x, [&](const auto& c) {
        state.add(static_cast<double>(exact_sum_e4m3(detail::widened<float>(c).v))); // exact
      });
    } else if constexpr (std::is_same_v<X, __nv_fp8_e5m2> && N > 1) {
      detail::for_chunks<64>(x, [&](const auto& c) {
        const auto [a, b] = exact_band_sums_e5m2(detail::widened<float>(c).v);
        const float pair[2] = {a, b};
        state.add_chunk(pair);
      });
    } else {
      // One 16-byte vector per chunk (float: 4, 16-bit types: 8).
      constexpr int chunk = sizeof(X) >= 4 ? 4 : 8;
      detail::for_widened_chunks<chunk, float>(x, [&](const auto& c) { state.add_chunk(c); });
    }
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
    if constexpr (std::is_same_v<X, __nv_fp8_e4m3> && N > 1) {
      detail::for_chunks<64>(x, [&](const auto& c) {
        state.add(static_cast<double>(exact_sum_e4m3(detail::widened<float>(c).v)));
      });
    } else if constexpr (std::is_same_v<X, __nv_fp8_e5m2> && N > 1) {
      detail::for_chunks<64>(x, [&](const auto& c) {
        const auto [a, b] = exact_band_sums_e5m2(detail::widened<float>(c).v);
        const double pair[2] = {a, b};
        state.add_chunk(pair);
      });
    } else {
      detail::for_widened_chunks<4, double>(x, [&](const auto& c) { state.add_chunk(c); });
    }
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
