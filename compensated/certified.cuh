// SPDX-License-Identifier: BSD-3-Clause
// tcr: certified results: a reduction's value together with a rigorous bound on its error,
// computed in the same pass (thread level, no parallel code).
//
//   tcr::certified<T>   {value, error_bound}, T float or double: |value - s| <= error_bound for
//                       the exact result s (Sum, Asum, Dot: the exact sum; Nrm2: the exact norm).
//
// A d_out of value type certified<T> makes tcr::DeviceReduce::Sum, Asum, Dot and Nrm2 return
// both in one launch (reduce/device.cuh). Every bound is the proven error bound of the
// accumulator that produced the value, evaluated in the same pass, every operation of it rounded
// upward (RU: add_ru, mul_ru, fma_ru below):
//
//   compensated Sum/Asum/Dot, float result (certified_float_accumulator): a running bound. The
//     proof of the float machinery's 2^-42 S (compensated/chunked.cuh, reductions.cuh's
//     rounded_partial) is evaluated on the data instead of bounded by S: what each chunk's f32
//     Sum2 chain, each fold into the double Neumaier state, each thread's rounding to double and
//     each merge of partials can lose, from the rounded values themselves (tracked_float_chunks),
//     plus 2^-24 |value| + 2^-150 for the final rounding. It never exceeds the closed form below
//     with kS = 2^-42 (each of its terms is bounded by the corresponding term of that proof).
//   every other compensated case: bound = RU(k1 |value| + k0 + kS S_up), S_up >= S = sum |x_i|
//     (Dot: sum |x_i y_i|) summed beside the value with add_ru from terms each >= the exact
//     |x_i| or |x_i y_i| (upward rounding is monotone, so every partial sum of nonnegative terms
//     is >= the exact sum of its terms, whatever the tree of additions and merges):
//
//   mode                       result   k1                 k0        kS
//   compensated Sum/Asum/Dot   double   2^-53              2^-1074   2^-99
//   (the closed form, float)   float    2^-24              2^-150    2^-42
//   compensated Nrm2           float    2^-24 + 2^-39      2^-149    0
//                              double   2^-53 + 2^-99      2^-1074   0
//   exact Nrm2                 float    2^-24 + 2^-51      2^-149    0
//                              double   2^-53 + 2^-51      2^-1074   0
//   exact Sum/Asum/Dot: from the exact pair hi = RN(s) = value, lo = RN(s - hi):
//                       bound = RU(|lo| + u|lo| + eta/2), and 0 when lo = 0 and s lies on a
//                       grid coarser than eta/2 (every Sum and Asum; Dot into double)
//   (u = 2^-24 / 2^-53; eta/2 = 2^-150 / 2^-1075, half the subnormal spacing, taken as 2^-1074
//   for double because 2^-1075 is not a double.)
//
// Tightness. Compensated Sum/Asum/Dot: the bound is at most (1 + 2^-15)(u|s| + kS S) + 2^-148
// (float, kS = 2^-42; double: + 2^-1072), since |value| <= |s| + 2u|s| + 2^-40 S (the contract),
// each upward addition of nonnegative terms errs by less than 2^-52 relative, so S_up <= (1 +
// 2^-52)^n S < (1 + 2^-16) S for n < 2^35 terms (Dot into double: plus n 2^-1074 from products
// below the subnormals), and the bound's own upward roundings (and the one to float) add less
// than 2^-22 relative and 2^-149 (double: 3 * 2^-1074) absolute. That is half of the documented
// contract's u|s| term and a quarter (float; double 2^-11) of its S term (2u|s| + 2^-40 S, double
// 2u|s| + 2^-88 S: reduce/device.cuh). These are worst cases: on well-conditioned data (S close
// to |s|) the bound is about half an ulp of the value, whatever the actual error (often less);
// on ill-conditioned float data the running bound follows the roundings that happened, about
// 100 times below the closed form on GenSum data (the host test prints both). Exact modes: the
// bound is the actual error |value - s| to within a factor 1 + 2^-21, plus 2^-148 (double:
// 2^-1072), and 0 whenever a Sum's or Asum's value is exact. Nrm2: a relative bound of about
// u |value|.
//
// Special values: a NaN value gets a NaN bound; an infinite value (an Inf input, or a result
// beyond T's range) gets +inf; an S that overflows double (double inputs whose magnitudes add
// up beyond DBL_MAX, even where s itself is finite) gives +inf, a valid but useless bound. The
// empty reduction (n = 0) gives value +0 and bound 0. Beyond the contracts' range (n >= 2^35
// elements) the bound is +inf.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include "config.cuh"
#include "convert.cuh"
#include "double_word.cuh"
#include "eft.cuh"
#include "reductions.cuh"

namespace tcr {

// A value and an upper bound on its error: |value - exact| <= error_bound (see the header
// comment for the special values). A plain aggregate: trivially copyable, usable as the value
// type of a device pointer or an output iterator.
template <class T>
struct certified {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "tcr::certified<T>: T must be float or double");
  using value_type = T;
  T value = T(0);
  T error_bound = T(0);
};

template <class T>
inline constexpr bool is_certified_v = false;
template <class T>
inline constexpr bool is_certified_v<certified<T>> = true;

// The elements beyond which the accumulators' contracts are not proven (compensated/
// reductions.cuh: n < 2^35); a certified reduction of more elements returns the bound +inf.
inline constexpr std::int64_t certified_max_items = std::int64_t(1) << 35;

namespace detail {

// Upward rounding (RU, toward +inf). On the device: the _ru intrinsics, exactly RU. On the host
// (tests): RU computed from an error-free transformation, exactly RU for add_ru and to_float_ru;
// mul_ru is exactly RU where |a b| >= 2^-960 (float: 2^-90) and may be one value above RU below
// that (where the product's error term can fall below the subnormals), never below RU.
template <class T>
TCR_HD T next_up(T x) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>)
    return nextafterf(x, INFINITY);
  else
    return nextafter(x, static_cast<double>(INFINITY));
#else
  return std::nextafter(x, std::numeric_limits<T>::infinity());
#endif
}

// Host: RU where RN(a op b) = r is not finite. From finite operands RU never gives -inf (the
// most negative finite value instead); +inf and NaN are RU's answer too.
template <class T>
TCR_HD T nonfinite_ru(T r, T a, T b) {
  const bool finite_operands = is_finite(a) && is_finite(b);
  return r == -std::numeric_limits<T>::infinity() && finite_operands
             ? std::numeric_limits<T>::lowest()
             : r;
}

// a + b rounded upward. Host: s + e == a + b exactly (two_sum, exact while s is finite), so RU
// is s where e <= 0 and the next value up where e > 0; overflows as nonfinite_ru says.
template <class T>
TCR_HD T add_ru(T a, T b) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>)
    return __fadd_ru(a, b);
  else
    return __dadd_ru(a, b);
#else
  const auto [s, e] = two_sum(a, b);
  if (!is_finite(s))
    return nonfinite_ru(s, a, b);
  return e > T(0) ? next_up(s) : s;
#endif
}

// a * b rounded upward. Host: p + e == a b exactly (two_prod) where |p| >= 2^-960 (float 2^-90):
// the exponents then add up to at least -962 (float: -92), above two_prod's limit e_min + p - 1
// = -970 (float: -103; eft.cuh), a subnormal factor meeting a correspondingly large other one.
// Below that, p = RN(a b), e's sign is right where e != 0, and the next value up of p is
// >= RU(a b) where e = 0 may hide a positive error.
template <class T>
TCR_HD T mul_ru(T a, T b) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>)
    return __fmul_ru(a, b);
  else
    return __dmul_ru(a, b);
#else
  constexpr T trusted = std::is_same_v<T, float> ? T(0x1p-90) : T(0x1p-960);
  const auto [p, e] = two_prod(a, b);
  if (!is_finite(p))
    return nonfinite_ru(p, a, b);
  if (abs(p) >= trusted)
    return e > T(0) ? next_up(p) : p;
  if (a == T(0) || b == T(0) || e < T(0))
    return p; // exact zero, or RN rounded up (e < 0 holds even where e is inexact: its sign is)
  return next_up(p);
#endif
}

// a * b + c rounded upward, or (host) an upper bound of it: mul_ru, then add_ru.
template <class T>
TCR_HD T fma_ru(T a, T b, T c) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>)
    return __fmaf_ru(a, b, c);
  else
    return __fma_ru(a, b, c);
#else
  return add_ru(mul_ru(a, b), c);
#endif
}

// d rounded upward to float. Host: f = RN(d) is exact in double, so RU is f where f >= d and
// the next float up otherwise (FLT_MAX -> +inf beyond the range; NaN stays NaN).
TCR_HD float to_float_ru(double d) {
#if defined(__CUDA_ARCH__)
  return __double2float_ru(d);
#else
  const float f = static_cast<float>(d);
  return static_cast<double>(f) < d ? next_up(f) : f;
#endif
}

// The constants of bound = RU(k1 |value| + k0 + kS S) (header comment).
struct certified_terms {
  double relative;   // k1, times |value|
  double absolute;   // k0
  double magnitudes; // kS, times S = sum |x_i| (Dot: sum |x_i y_i|)
};

// Compensated Sum, Asum and Dot (reductions.cuh's sum_accumulator and dot_accumulator).
// Float result: the float machinery's partials end in a double a with |a - s| <= 2^-42 S
// (rounded_partial in compensated/reductions.cuh, from chunked_sum<float>'s chunks:
// compensated/chunked.cuh), and value = RN_float(a), so |value - a| <= 2^-24 |value| (value
// normal: half the spacing above 2^e is 2^(e - 24) <= 2^-24 |value|, both sides of a power of
// two included) or <= 2^-150 (value in the subnormal range). Hence
// |value - s| <= 2^-24 |value| + 2^-150 + 2^-42 S.
// Double result: the double machinery's unrounded pair has |hi + lo - s| <= 2^-104 |s| + 2^-100 S
// (the dd result of reduce/device.cuh; compensated/chunked.cuh), at most 2^-99 S as |s| <= S, and
// value = RN(hi + lo) (round_pair), so |value - s| <= 2^-53 |value| + 2^-1075 + 2^-99 S. (Where
// the pair is {v, 0} with v already rounded once, the dot's tiny path, v's own rounding is the
// 2^-53 |value| + 2^-1075 and the final step is exact.)
template <class T>
TCR_HD constexpr certified_terms compensated_terms() {
  if constexpr (std::is_same_v<T, float>)
    return {0x1p-24, 0x1p-150, 0x1p-42};
  else
    return {0x1p-53, 0x1p-1074, 0x1p-99};
}

// Nrm2 with |value - t| <= eps t + eta/2 (t the exact norm; the documented relative bound plus
// half the subnormal spacing): t <= |value| + err gives err (1 - eps) <= eps |value| + eta/2,
// and 1 / (1 - eps) <= 1 + 2 eps for eps <= 1/2, so err <= eps (1 + 2 eps) |value| +
// (1 + 2 eps) eta/2.
// Compensated: eps = 2^-24 + 2^-40 (float) or 2^-53 + 2^-100 (double), reduce/device.cuh;
// eps (1 + 2 eps) < eps + 2^-46 < 2^-24 + 2^-39 (double: eps + 2^-104 < 2^-53 + 2^-99), and
// (1 + 2 eps) eta/2 < 2 eta/2 = 2^-149 (double: 2^-1074).
// Exact modes (compensated/exact_binned.cuh: value = RN_T(v), v = sqrt_rn(RN_double(s))): s is
// 0 or >= 2^-298 (a sum of squares of float-range values), normal in double, so RN_double(s) =
// s (1 + d1) and v = sqrt(s (1 + d1)) (1 + d2), |d1|, |d2| <= 2^-53, whence |v - t| <= 2^-52 t;
// and |value - v| <= u |value| + eta/2. As above, err <= (u + 2^-52)(1 + 2^-51) |value| +
// (1 + 2^-51) eta/2 < (u + 2^-51) |value| + eta. (A double result is v itself: the u term is
// slack there.) value = 0 exactly when s = 0 (v >= 2^-149 otherwise), then the bound is 0.
template <class T, bool Exact>
TCR_HD constexpr certified_terms norm_terms() {
  if constexpr (std::is_same_v<T, float>)
    return {Exact ? 0x1p-24 + 0x1p-51 : 0x1p-24 + 0x1p-39, 0x1p-149, 0.0};
  else
    return {Exact ? 0x1p-53 + 0x1p-51 : 0x1p-53 + 0x1p-99, 0x1p-1074, 0.0};
}

// +inf of T (from its bits: numeric_limits is host-only in device code).
template <class T>
TCR_HD T infinity() {
  T v;
  if constexpr (std::is_same_v<T, float>) {
    const std::uint32_t b = 0x7f800000u;
    std::memcpy(&v, &b, sizeof v);
  } else {
    const std::uint64_t b = 0x7ff0000000000000ull;
    std::memcpy(&v, &b, sizeof v);
  }
  return v;
}

// A non-finite value's bound: NaN for NaN, +inf for +-inf.
template <class T>
TCR_HD T nonfinite_bound(T value) {
  return value != value ? value : infinity<T>();
}

// r, or r with the bound +inf (NaN stays NaN) where the reduction had more elements than the
// contracts cover (the accumulators' unproven flag, set by the caller).
template <class Out>
TCR_HD Out unless_unproven(Out r, bool unproven) {
  if (unproven && r.value == r.value)
    r.error_bound = infinity<typename Out::value_type>();
  return r;
}

// RU(k1 |value| + k0 + kS S) in double, rounded upward to T (header comment); S may be 0 where
// kS is. NaN S (a NaN input) gives NaN.
template <class T>
TCR_HD T certified_bound(T value, const certified_terms& k, double magnitudes) {
  if (!is_finite(value))
    return nonfinite_bound(value);
  double b = add_ru(mul_ru(k.relative, static_cast<double>(abs(value))), k.absolute);
  if (k.magnitudes != 0.0)
    b = add_ru(b, mul_ru(k.magnitudes, magnitudes));
  if constexpr (std::is_same_v<T, float>)
    return to_float_ru(b);
  else
    return b;
}

// The exact modes' bound from hi = RN_T(s) (the value) and lo = RN_T(s - hi): with r = s - hi,
// |r - lo| <= u |lo| (lo normal) or <= eta/2 (lo subnormal), so |r| <= |lo| + u |lo| + eta/2.
// lo = 0 means |r| <= eta/2; where s and hi lie on a grid coarser than eta/2 (GridExact: Sum
// and Asum, multiples of 2^-149 or 2^-1074; Dot into double, multiples of 2^-298), r = 0.
template <class T, bool GridExact>
TCR_HD T exact_pair_bound(T hi, T lo) {
  if (!is_finite(hi))
    return nonfinite_bound(hi);
  constexpr double u = std::is_same_v<T, float> ? 0x1p-24 : 0x1p-53;
  constexpr double half_eta = std::is_same_v<T, float> ? 0x1p-150 : 0x1p-1074;
  if (lo == T(0) && GridExact)
    return T(0);
  const double l = static_cast<double>(abs(lo));
  const double b = add_ru(add_ru(l, mul_ru(u, l)), half_eta); // lo = 0: eta/2 (float: 2^-149)
  if constexpr (std::is_same_v<T, float>)
    return to_float_ru(b);
  else
    return b;
}

// chunked_sum<float> (compensated/chunked.cuh) with a running bound on what its chunks and folds
// lose: the same arithmetic on the same state (chunked_sum<float>::add_chunk and add_dot_chunk
// done here step by step through its public add_pair and add, so the value is bit for bit the
// plain accumulator's), and beside it `lost`, rounded upward, >= |state.sum + state.comp - (the
// exact sum of its inputs)|. Every bound below is relative to a rounded value, so it holds in
// the subnormal range too (float additions are exact there, and sums of products of floats are
// multiples of 2^-298, normal in double).
//   A chunk of L >= 2 floats (sum2_chain): (t, c) = two_sum(x_0, x_1), then (t, e_i) =
// two_sum(t, x_i) and c_i = RN(c_{i-1} + e_i) for i = 2 .. L - 1. The two_sums are exact, so
// t + c differs from sum x by the roundings of c alone: at most u sum_{i >= 2} |c_i| (u = 2^-24).
// The fold add_pair(t, c) (two_sum(sum, t) exact; comp1 = RN(comp + e); comp2 = RN(comp1 + c))
// loses at most u_d (|comp1| + |comp2|) <= u_d ((2 + u_d)|comp2| + |c|) (u_d = 2^-53; comp1 + c
// = comp2 (1 + d), |d| <= u_d). So lost grows by u (sum |c_i| + 2^-29 |c|) (summed in float,
// upward) plus 2^-52 (1 + 2^-52) |comp2|.
//   A chunk whose chain leaves the finite range is summed in double (chunked_sum<float>'s rare
// path: L - 1 roundings, at most (L - 1) u_d (1 + 2^-40) sum |x|, the magnitudes summed upward)
// and folded by add (one rounding of comp: u_d |comp2|). A single term (add: e4m3 chunk sums,
// exact) costs the same one rounding. A dot chunk (add_dot_chunk: products exact in double,
// d_1 = x_0 y_0, d_k = RN(x_k y_k + d_{k-1})) loses u_d sum_{k >= 2} |d_k|, then folds by add.
// Inf and NaN inputs make lost Inf or NaN (and the value non-finite).
struct tracked_float_chunks {
  chunked_sum<float> state;
  double lost = 0.0;

  static constexpr double fold_coef = 0x1p-52 + 0x1p-104; // 2^-52 (1 + 2^-52), times |comp2|

  TCR_HD void add(double x) {
    state.add(x);
    fold();
  }
  template <int L>
  TCR_HD void add_chunk(const float (&x)[L]) {
    if constexpr (L == 1) {
      state.add_chunk(x); // the pair (x_0, 0): one fold
    } else {
      auto [t, c] = two_sum(x[0], x[1]);
      float rounded = 0.0f; // >= sum_{i >= 2} |c_i|
      TCR_UNROLL
      for (int i = 2; i < L; ++i) {
        const auto [t2, e] = two_sum(t, x[i]);
        t = t2;
        c = add_rn(c, e);
        rounded = add_ru(rounded, abs(c));
      }
      if (is_finite(t)) {
        state.add_pair(static_cast<double>(t), static_cast<double>(c));
        rounded = fma_ru(abs(c), 0x1p-29f, rounded);
        lost = fma_ru(0x1p-24, static_cast<double>(rounded), lost);
      } else {
        double d = static_cast<double>(x[0]);
        double magnitudes = abs(d);
        TCR_UNROLL
        for (int i = 1; i < L; ++i) {
          d = add_rn(d, static_cast<double>(x[i]));
          magnitudes = add_ru(magnitudes, static_cast<double>(abs(x[i])));
        }
        state.add(d);
        lost = fma_ru((L - 1) * 0x1p-53 * (1.0 + 0x1p-40), magnitudes, lost);
      }
    }
    fold();
  }
  template <int L>
  TCR_HD void add_dot_chunk(const float (&x)[L], const float (&y)[L]) {
    double d = mul_rn(static_cast<double>(x[0]), static_cast<double>(y[0])); // exact
    double rounded = 0.0;                                                    // >= sum |d_k|
    TCR_UNROLL
    for (int i = 1; i < L; ++i) {
      d = fma_rn(static_cast<double>(x[i]), static_cast<double>(y[i]), d);
      rounded = add_ru(rounded, abs(d));
    }
    state.add(d);
    lost = fma_ru(0x1p-53, rounded, lost);
    fold();
  }
  // Products exact in float (the precondition of chunked_sum<float>'s version): a chunk of them.
  template <int L>
  TCR_HD void add_exact_products_chunk(const float (&x)[L], const float (&y)[L]) {
    float p[L];
    TCR_UNROLL
    for (int i = 0; i < L; ++i)
      p[i] = mul_rn(x[i], y[i]);
    add_chunk(p);
  }
  TCR_HD double value() const { return state.value(); }

private:
  TCR_HD void fold() { lost = fma_ru(fold_coef, abs(state.comp), lost); }
};

} // namespace detail

// The compensated Sum, Asum and Dot of the float machinery (reductions.cuh's sum_accumulator<
// float> and dot_accumulator<float>: the same chunks, so the same value) with a running bound
// instead of the worst case: each thread's tracked_float_chunks bound, plus the rounding of its
// value to double (u_d |v|), each merge of partials (one double addition, u_d |merged|) and the
// final rounding to float (2^-24 |value| + 2^-150); all upward. Against the closed form
// (compensated_terms<float>: 2^-42 S): a chunk of L <= 8 loses at most u^2 (L - 2)(L - 1) S_chunk
// (1 + 2^-20) <= 42 u^2 S_chunk < 2^-42.6 S_chunk (|c_i| <= (1 + 2^-21) u T and T <= (L - 1)
// (1 + 2^-21) S_chunk, T the sum of the chain's |t_i|), the folds at most 2^-48 S (|comp| <=
// 2^-21 S, as chunked.cuh shows, over at most 2^25 folds a thread), the threads' roundings u_d S
// and the at most 64 merge levels 2^-47 S: together below 2^-42 S.
struct certified_float_accumulator {
  struct partial_type {
    double value; // as float_result_base's rounded_partial
    double bound; // >= |value - (exact sum of the inputs folded into it)|
  };
  using compact_type = void;

  detail::tracked_float_chunks state;
  bool unproven = false;

  template <class X, int N>
  TCR_HD void add(const X (&x)[N]) {
    detail::add_sum_inputs<float, sum_accumulator<float>::chunk_length<X>, false>(state, x);
  }
  template <class X, int N>
  TCR_HD void add_magnitudes(const X (&x)[N]) {
    detail::add_sum_inputs<float, sum_accumulator<float>::chunk_length<X>, true>(state, x);
  }
  template <class X, class Y, int N>
  TCR_HD void add(const X (&x)[N], const Y (&y)[N]) {
    dot_accumulator<float>::add_to(state, x, y);
  }

  TCR_HD partial_type partial() const {
    const double v = state.value();
    return {v, detail::fma_ru(0x1p-53, detail::abs(v), state.lost)};
  }
  TCR_HD partial_type merge(const partial_type& a, const partial_type& b) const {
    const double v = detail::add_rn(a.value, b.value);
    return {v, detail::fma_ru(0x1p-53, detail::abs(v), detail::add_ru(a.bound, b.bound))};
  }
  template <class Out>
  TCR_HD Out finish(const partial_type& p) const {
    static_assert(std::is_same_v<Out, certified<float>>,
                  "tcr::certified_float_accumulator: the result is tcr::certified<float>");
    Out r;
    r.value = static_cast<float>(p.value); // as float_result_base::finish (RN)
    r.error_bound = detail::certified_bound(r.value, {0x1p-24, 0x1p-150, 1.0}, p.bound);
    return detail::unless_unproven(r, unproven);
  }
  // n = 0: +0 (as sum_accumulator<float>), exactly: the bound is 0.
  template <class Out>
  TCR_HD Out empty_result() const {
    return Out{};
  }
};

// A compensated accumulator (compensated/reductions.cuh's sum_accumulator, dot_accumulator,
// nrm2_accumulator; Inner) with the certificate of its result: Sum, Asum and Dot also add the
// magnitudes S = sum |x_i| (Dot: sum |x_i y_i|) of the same inputs, upward (add_ru, from exact
// |x_i| widened to double and mul_ru products), and carry S in the partial; Norm (Nrm2) needs no
// S. finish<certified<T>> gives the inner value and certified_bound of it. The same concept as
// the accumulators it wraps; no compact form. unproven: the caller sets it where the reduction
// has more elements than the contracts cover (the bound is then +inf).
template <class Inner, bool Norm>
struct certified_accumulator {
  struct partial_type {
    typename Inner::partial_type inner;
    double magnitudes; // >= the exact sum of magnitudes folded into it
  };
  using compact_type = void;

  Inner inner;
  double magnitudes = 0.0;
  bool unproven = false;

  template <class X, int N>
  TCR_HD void add(const X (&x)[N]) {
    inner.add(x);
    if constexpr (!Norm)
      add_abs(x);
  }
  // Asum: the inner accumulator adds |x|, and S is the same sum.
  template <class X, int N>
  TCR_HD void add_magnitudes(const X (&x)[N]) {
    inner.add_magnitudes(x);
    add_abs(x);
  }
  template <class X, class Y, int N>
  TCR_HD void add(const X (&x)[N], const Y (&y)[N]) {
    inner.add(x, y);
    double a[N], b[N];
    widen_all(x, a); // exact
    widen_all(y, b);
    TCR_UNROLL
    for (int i = 0; i < N; ++i)
      magnitudes = detail::add_ru(magnitudes, detail::mul_ru(detail::abs(a[i]), detail::abs(b[i])));
  }

  TCR_HD partial_type partial() const { return {inner.partial(), magnitudes}; }
  TCR_HD partial_type merge(const partial_type& a, const partial_type& b) const {
    return {inner.merge(a.inner, b.inner), detail::add_ru(a.magnitudes, b.magnitudes)};
  }
  template <class Out>
  TCR_HD Out finish(const partial_type& p) const {
    static_assert(is_certified_v<Out>, "tcr::certified_accumulator: the result is tcr::certified");
    using T = typename Out::value_type;
    Out r;
    r.value = inner.template finish<T>(p.inner);
    if constexpr (Norm)
      r.error_bound = detail::certified_bound(r.value, detail::norm_terms<T, false>(), 0.0);
    else
      r.error_bound =
          detail::certified_bound(r.value, detail::compensated_terms<T>(), p.magnitudes);
    return detail::unless_unproven(r, unproven);
  }
  // n = 0: +0 (every accumulator's empty result), exactly: the bound is 0.
  template <class Out>
  TCR_HD Out empty_result() const {
    return Out{};
  }

private:
  template <class X, int N>
  TCR_HD void add_abs(const X (&x)[N]) {
    double a[N];
    widen_all(x, a); // exact
    TCR_UNROLL
    for (int i = 0; i < N; ++i)
      magnitudes = detail::add_ru(magnitudes, detail::abs(a[i]));
  }
};

// An exact accumulator (compensated/exact.cuh, compensated/exact_binned.cuh; Inner) whose result
// is certified: everything but finish and empty_result is Inner's own (its bins, collectives and
// partials). Sum, Asum, Dot: the exact pair hi = RN(s), lo = RN(s - hi) gives value hi and
// exact_pair_bound; Norm (Nrm2): norm_terms<T, true>, and 0 for a zero norm. GridExact: s lies
// on a grid coarser than half T's subnormal spacing (exact_pair_bound).
template <class Inner, bool Norm, bool GridExact>
struct certified_exact : Inner {
  bool unproven = false;

  template <class Out>
  TCR_HD Out finish(const typename Inner::partial_type& p) const {
    static_assert(is_certified_v<Out>, "tcr::certified_exact: the result is tcr::certified");
    using T = typename Out::value_type;
    Out r;
    if constexpr (Norm) {
      r.value = Inner::template finish<T>(p);
      r.error_bound = r.value == T(0)
                          ? T(0)
                          : detail::certified_bound(r.value, detail::norm_terms<T, true>(), 0.0);
    } else {
      const double_word<T> pair = Inner::template finish<double_word<T>>(p);
      r.value = pair.hi;
      r.error_bound = detail::exact_pair_bound<T, GridExact>(pair.hi, pair.lo);
    }
    return detail::unless_unproven(r, unproven);
  }
#if defined(__CUDACC__)
  // Inner's warp_finish would round to Inner's results: this finish instead, in every lane.
  template <class Out>
  __device__ Out warp_finish(const typename Inner::partial_type& p) const {
    return finish<Out>(p);
  }
#endif
  // n = 0: +0 (every accumulator's empty result), exactly: the bound is 0.
  template <class Out>
  TCR_HD Out empty_result() const {
    return Out{};
  }
};

// The exact modes' certify-first pass for double results (certify_first_accumulator's finish):
// the exact result s lies in [hi + lo - error_bound, hi + lo + error_bound], hi + lo unrounded
// (hi = RN(hi + lo)). decides_double tells whether that interval decides RN_double(s).
struct certified_double_word {
  double hi = 0.0;
  double lo = 0.0;
  double error_bound = 0.0;
};

// The exact modes' certify-first pass (reduce/device.cuh's certify_first_of): Sum, Asum and Dot
// into certified<double> (a float result's certificate) or certified_double_word (a double
// result's), lighter than certified_accumulator (about nine double operations per input).
// Each input p (float-range inputs widened exactly; Dot: the product of two widened factors,
// exact in double: at most 48 significant bits, its magnitude 0 or in [2^-298, 2^256]; Sum and
// Asum of doubles as they are; Dot with a double operand: the product's TwoProd pair, add_product)
// enters a double-word (s, c): (s, e) = two_sum(s, p) exactly,
// c = RN(c + e), and b, rounded upward, grows by u |c| (u = 2^-53) for that rounding. A merge:
// (s, e) = two_sum(s1, s2), t = RN(c1 + c2), c = RN(t + e), b = b1 + b2 + u |t| + u |c|.
// Why |s + c - (exact sum)| <= b at every step: a double addition is exact where its result is
// subnormal (both operands are multiples of 2^-1074), and otherwise |RN(x) - x| <= u |RN(x)|;
// two_sum is exact where none of its six operations overflows. An overflow anywhere (in s, c, b
// or inside two_sum, whose error term then is Inf or NaN; only possible for double inputs, since
// float-range quantities stay below 2^300) makes an Inf or NaN that every later operation keeps
// (sums of finite values with Inf or NaN, no products of zero and Inf), so the result is not
// finite and decides nothing; a finite result had no overflow on the way, and the bound holds.
// Inf or NaN inputs likewise.
// The results: for a float result, value = RN(s + c), error_bound = RU(b + u |value|); for a
// double result, (hi, lo) = two_sum(s, c) exactly, error_bound = b. Tightness: |c| <= u N S after
// N inputs (S the sum of their magnitudes), so b <= 2 N^2 u^2 S (1 + 2^-50) (plus N 2^-1074,
// the upward roundings of tiny terms): for a float result error_bound <= 2^-53 |value| (1 +
// 2^-50) + b, for one block (N <= 2^16) at most 2^-53 |value| + 2^-73 S.
struct certify_first_accumulator {
  struct partial_type {
    double s;
    double c;
    double b;
  };
  using compact_type = void;

  double s = 0.0;
  double c = 0.0;
  double b = 0.0;

  TCR_HD void add_exact(double p) {
    const eft<double> t = two_sum(s, p);
    s = t.value;
    c = detail::add_rn(c, t.error);
    b = detail::fma_ru(0x1p-53, detail::abs(c), b);
  }
  // Sum (Abs false) and Asum (Abs true) of any input type: widened exactly.
  template <bool Abs, class X, int N>
  TCR_HD void add_sum_inputs(const X (&x)[N]) {
    double a[N];
    widen_all(x, a); // exact
    TCR_UNROLL
    for (int i = 0; i < N; ++i)
      add_exact(Abs ? detail::abs(a[i]) : a[i]);
  }
  template <class X, int N>
  TCR_HD void add(const X (&x)[N]) {
    add_sum_inputs<false>(x);
  }
  template <class X, int N>
  TCR_HD void add_magnitudes(const X (&x)[N]) {
    add_sum_inputs<true>(x);
  }
  template <class X, class Y, int N>
  TCR_HD void add(const X (&x)[N], const Y (&y)[N]) {
    double a[N], g[N];
    widen_all(x, a);
    widen_all(y, g);
    TCR_UNROLL
    for (int i = 0; i < N; ++i) {
      if constexpr (std::is_same_v<X, double> || std::is_same_v<Y, double>)
        add_product(a[i], g[i]);
      else
        add_exact(detail::mul_rn(a[i], g[i])); // exact
    }
  }
  // x y where an operand is double: hi = RN(x y), lo = RN(x y - hi) by an FMA, then hi as an
  // input and lo into c, b growing by u |c| for that rounding. hi + lo = x y exactly where
  // qx + qy >= -1074 (x = Mx 2^qx, y = My 2^qy, integers M < 2^53) and hi is finite: x y - hi
  // is a multiple of 2^(qx + qy) of magnitude at most ulp(hi) / 2 <= 2^(qx + qy + 53), a double.
  // Otherwise |x y| < 2^(qx + qy + 106) <= 2^-968, so |hi| <= 2^-968, |x y - hi| <= ulp(hi) / 2
  // <= 2^-1021, and lo errs by at most half the spacing there, 2^-1075: b grows by 2^-1074
  // wherever |hi| <= 2^-968. A product beyond double's range (hi Inf) or an Inf or NaN operand
  // makes the result not finite, which decides nothing.
  TCR_HD void add_product(double x, double y) {
    const double hi = detail::mul_rn(x, y);
    const double lo = detail::fma_rn(x, y, -hi);
    add_exact(hi);
    c = detail::add_rn(c, lo);
    b = detail::fma_ru(0x1p-53, detail::abs(c), b);
    if (detail::abs(hi) <= 0x1p-968)
      b = detail::add_ru(b, 0x1p-1074);
  }

  TCR_HD partial_type partial() const { return {s, c, b}; }
  TCR_HD partial_type merge(const partial_type& p, const partial_type& q) const {
    const eft<double> t = two_sum(p.s, q.s);
    const double cc = detail::add_rn(p.c, q.c);
    const double c2 = detail::add_rn(cc, t.error);
    const double lost = detail::fma_ru(0x1p-53, detail::abs(cc), 0x1p-53 * detail::abs(c2));
    return {t.value, c2, detail::add_ru(detail::add_ru(p.b, q.b), lost)};
  }
  template <class Out>
  TCR_HD Out finish(const partial_type& p) const {
    static_assert(std::is_same_v<Out, certified<double>> ||
                      std::is_same_v<Out, certified_double_word>,
                  "tcr::certify_first_accumulator: the result is tcr::certified<double> or "
                  "tcr::certified_double_word");
    Out r;
    if constexpr (std::is_same_v<Out, certified<double>>) {
      r.value = detail::add_rn(p.s, p.c);
      r.error_bound = detail::is_finite(r.value)
                          ? detail::fma_ru(0x1p-53, detail::abs(r.value), p.b)
                          : detail::nonfinite_bound(r.value);
    } else {
      const eft<double> t = two_sum(p.s, p.c);
      r.hi = t.value;
      r.lo = t.error;
      r.error_bound = p.b;
    }
    return r;
  }
  template <class Out>
  TCR_HD Out empty_result() const {
    return Out{};
  }
};

// Nrm2's certify-first pass: the sum of squares x_i^2 (of float-range inputs each exact in double,
// as the Dot's products; of doubles TwoProd pairs, add_product), otherwise
// certify_first_accumulator. Its result is a certified_double_word of the sum of squares.
struct certify_first_squares : certify_first_accumulator {
  using certify_first_accumulator::add;
  template <class X, int N>
  TCR_HD void add(const X (&x)[N]) {
    certify_first_accumulator::add(x, x);
  }
};

// Whether c = {v, b} decides RN_float(s) for every s in [v - b, v + b]: RN_float is monotone, so
// where RN_float(RD(v - b)) and RN_float(RU(v + b)) agree, that float (returned in f) is
// RN_float(s). Zeros (whose sign the exact sum's zero rule decides), Inf and NaN are not decided.
TCR_HD bool decides_float(const certified<double>& c, float& f) {
  const double lo = -detail::add_ru(-c.value, c.error_bound); // RD(v - b)
  const double hi = detail::add_ru(c.value, c.error_bound);   // RU(v + b)
  const float f_lo = static_cast<float>(lo);                  // RN
  const float f_hi = static_cast<float>(hi);
  f = f_lo;
  return f_lo == f_hi && f_lo != 0.0f && detail::is_finite(f_lo);
}

// Whether c decides RN_double(s) for every s in [hi + lo - b, hi + lo + b]: RN_double(s) = hi for
// every s strictly inside hi's rounding interval (hi - d- / 2, hi + d+ / 2), d- and d+ the
// spacings to hi's neighbours below and above (exact differences of adjacent doubles; either
// endpoint is a tie, left undecided). So it decides where RU(lo + b) < d+ / 2 and RD(lo - b) >
// -d- / 2, compared as 2 RU(lo + b) < d+ (doubling is exact below the overflow, and an Inf
// compares false). hi = 0 (the zero rule), |hi| = DBL_MAX (whose upper half-spacing reaches the
// overflow threshold), Inf and NaN (an overflow on the way, or such inputs) are not decided.
TCR_HD bool decides_double(const certified_double_word& c, double& d) {
  d = c.hi;
  constexpr double dbl_max = 0x1.fffffffffffffp+1023;
  if (!(detail::abs(c.hi) < dbl_max) || c.hi == 0.0 || !detail::is_finite(c.lo) ||
      !detail::is_finite(c.error_bound))
    return false;
  const double up = detail::next_up(c.hi) - c.hi;             // d+, exact
  const double down = c.hi - (-detail::next_up(-c.hi));       // d-, exact
  const double above = detail::add_ru(c.lo, c.error_bound);   // >= lo + b
  const double below = -detail::add_ru(-c.lo, c.error_bound); // <= lo - b
  return 2.0 * above < up && 2.0 * below > -down;
}

} // namespace tcr
