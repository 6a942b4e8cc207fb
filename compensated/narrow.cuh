// SPDX-License-Identifier: BSD-3-Clause
// tcr: correctly rounded narrowing (one rounding to nearest, ties to even) of a double, of an
// unevaluated pair of doubles hi + lo, and of a 128-bit two's-complement integer, to __half,
// __nv_bfloat16, float or double; and the 128-bit integer type itself (tcr::int128).
//
//   round_to<T>(d)        RN_T(d)
//   round_to<T>(hi, lo)   RN_T(hi + lo), the exact sum rounded once (not RN_T(RN_double(hi + lo)))
//   round_to<T>(v)        RN_T(v), v a tcr::int128 (exact up to 2^127 in magnitude)
// A pair whose low part is zero stands for its high part (so -0 + 0 stays -0, as round_pair in
// compensated/chunked.cuh keeps the sign of a sum of -0 terms). IEEE in every case: overflow to
// +-inf (half: |x| >= 65520, bfloat16: |x| >= 2^128 - 2^119), gradual underflow to the subnormal
// grid (spacing 2^-24 half, 2^-133 bfloat16), a result that rounds to zero keeps the sign of the
// exact value (so -0 and negative tiny values give -0), Inf and NaN stay Inf and (quiet) NaN.
//
// Everything is integer arithmetic on the bit patterns, the same code on host and device, so
// the host tests check the device's rounding too (the toolkit's conversions are not relied on:
// a pair needs its low part, and __double2half's host path is a different algorithm from the
// device's cvt.rn.f16.f64).
//
// The one rounding step (detail::round_scaled): the value is m 2^e with m a 64-bit integer whose
// top bit is set, plus a tail t, the sign of (exact value - m 2^e), under the condition that no
// point of T's grid and no midpoint between two of them lies strictly between m 2^e and the
// exact value. T keeps p bits (half 11, bfloat16 8, float 24, double 53), so its last place
// 2^q lies s = q - e >= 64 - p >= 11 bits above m's; m splits into kept (above 2^q) and rem
// (below), and kept goes up exactly when rem > half a place, or rem == half a place and (t > 0,
// or t == 0 and kept is odd). That is RN: by the condition the exact value is on m 2^e's side of
// every grid point and midpoint, except at the midpoint m 2^e itself, where t decides.
//
// The condition holds for the two callers:
//   integers: m is the top 64 bits of |v|, t = +1 when a lower bit is set. The exact value is
//     below (m + 1) 2^e, and grid points and midpoints are multiples of 2^(q-1) = 2^(e + s - 1),
//     whole units of 2^e, so none lies strictly between.
//   pairs (p <= 24): after two_sum, hi = RN_double(hi + lo). Every grid point and midpoint c of
//     T is a double (p + 1 <= 25 significant bits, above 2^-150), and RN_double is monotone, so
//     hi > c gives hi + lo >= c, and hi + lo = c would give hi = RN(c) = c: hi > c implies
//     hi + lo > c (and the same below). So m 2^e = hi with t = sign(lo) meets the condition:
//     only a hi exactly on a midpoint needs lo, whose sign breaks the tie (lo == 0: the tie,
//     to even). Rounding hi alone would break that tie by evenness, wrongly. (T = double: hi is
//     the result, rem is 0.)
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include "config.cuh"
#include "eft.cuh"

namespace tcr {

// A 128-bit two's-complement integer in two 64-bit words: hi * 2^64 + lo, hi's top bit the sign.
// Arithmetic wraps modulo 2^128 (carries between the words by hand: no __int128 in device code).
struct int128 {
  std::uint64_t lo = 0;
  std::uint64_t hi = 0;

  TCR_HD static constexpr int128 from_signed(std::int64_t v) {
    return {static_cast<std::uint64_t>(v), v < 0 ? ~std::uint64_t(0) : std::uint64_t(0)};
  }
  TCR_HD static constexpr int128 from_unsigned(std::uint64_t v) { return {v, 0}; }
  TCR_HD constexpr bool is_negative() const { return (hi >> 63) != 0; }
  TCR_HD constexpr bool is_zero() const { return (lo | hi) == 0; }
};

TCR_HD constexpr int128 operator+(const int128& a, const int128& b) {
  const std::uint64_t lo = a.lo + b.lo;
  return {lo, a.hi + b.hi + (lo < a.lo ? 1u : 0u)};
}
TCR_HD constexpr int128 operator-(const int128& a) {
  const std::uint64_t lo = ~a.lo + 1;
  return {lo, ~a.hi + (lo == 0 ? 1u : 0u)};
}
TCR_HD constexpr int128 operator-(const int128& a, const int128& b) {
  return a + -b;
}
TCR_HD constexpr bool operator==(const int128& a, const int128& b) {
  return a.lo == b.lo && a.hi == b.hi;
}
TCR_HD constexpr bool operator!=(const int128& a, const int128& b) {
  return !(a == b);
}

namespace detail {

// The binary formats: p significant bits (the leading one included), the exponents of the
// smallest and largest normal binades, and the bit pattern of +inf.
template <class T>
struct float_format;
template <>
struct float_format<__half> {
  static constexpr int p = 11, emin = -14, emax = 15, bits = 16;
  static constexpr std::uint64_t inf = 0x7c00;
};
template <>
struct float_format<__nv_bfloat16> {
  static constexpr int p = 8, emin = -126, emax = 127, bits = 16;
  static constexpr std::uint64_t inf = 0x7f80;
};
template <>
struct float_format<float> {
  static constexpr int p = 24, emin = -126, emax = 127, bits = 32;
  static constexpr std::uint64_t inf = 0x7f800000;
};
template <>
struct float_format<double> {
  static constexpr int p = 53, emin = -1022, emax = 1023, bits = 64;
  static constexpr std::uint64_t inf = 0x7ff0000000000000;
};

template <class T>
inline constexpr bool is_narrow_target_v =
    std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16> || std::is_same_v<T, float> ||
    std::is_same_v<T, double>;

// Leading zeros of a nonzero word.
TCR_HD int clz64(std::uint64_t v) {
#if defined(__CUDA_ARCH__)
  return __clzll(static_cast<long long>(v));
#else
  return __builtin_clzll(v);
#endif
}

// The T with sign neg and magnitude bits (exponent and fraction fields).
template <class T>
TCR_HD T from_bits(bool neg, std::uint64_t magnitude) {
  constexpr int w = float_format<T>::bits;
  const std::uint64_t b = magnitude | (neg ? std::uint64_t(1) << (w - 1) : 0);
  if constexpr (std::is_same_v<T, __half>) {
    __half_raw r;
    r.x = static_cast<unsigned short>(b);
    return __half(r);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    __nv_bfloat16_raw r;
    r.x = static_cast<unsigned short>(b);
    return __nv_bfloat16(r);
  } else if constexpr (std::is_same_v<T, float>) {
    const std::uint32_t b32 = static_cast<std::uint32_t>(b);
    float f;
    std::memcpy(&f, &b32, sizeof f);
    return f;
  } else {
    double d;
    std::memcpy(&d, &b, sizeof d);
    return d;
  }
}

// RN_T of (-1)^neg (m 2^e + tail), m >= 2^63, tail in {-1, 0, +1} as in the header comment.
template <class T>
TCR_HD T round_scaled(bool neg, std::uint64_t m, int e, int tail) {
  using F = float_format<T>;
  const int E = e + 63; // the value lies in [2^E, 2^(E + 1))
  if (E > F::emax)
    return from_bits<T>(neg, F::inf); // >= 2^(emax + 1): beyond the largest value plus half an ulp
  const int q = (E > F::emin ? E : F::emin) - (F::p - 1); // the result's last place, 2^q
  const int s = q - e;                                    // >= 64 - p
  if (s > 64)
    return from_bits<T>(neg, 0); // below 2^(e + 64) <= 2^(q - 1): under half a subnormal place
  std::uint64_t kept = 0, rem = m, half = std::uint64_t(1) << 63;
  if (s < 64) {
    kept = m >> s;
    rem = m & ((std::uint64_t(1) << s) - 1);
    half = std::uint64_t(1) << (s - 1);
  }
  if (rem > half || (rem == half && (tail > 0 || (tail == 0 && (kept & 1) != 0))))
    ++kept; // may carry into the next binade (2^p), or from the subnormals into the normals
  // Normal results: kept in [2^(p-1), 2^p], and adding it to the exponent field of the binade
  // below places its leading one as the implicit bit (a carry increments the exponent).
  // Subnormal results: kept in [0, 2^(p-1)], the field itself.
  const std::uint64_t field = E >= F::emin ? std::uint64_t(E - F::emin) << (F::p - 1) : 0;
  const std::uint64_t b = field + kept;
  return from_bits<T>(neg, b < F::inf ? b : F::inf);
}

// The double's sign, and its magnitude as m 2^e with m's top bit set (finite, nonzero).
struct scaled_double {
  bool neg;
  std::uint64_t m;
  int e;
};
TCR_HD scaled_double scale_of(double d) {
  std::uint64_t b;
  std::memcpy(&b, &d, sizeof b);
  const bool neg = (b >> 63) != 0;
  const int biased = static_cast<int>((b >> 52) & 0x7ff);
  const std::uint64_t frac = b & ((std::uint64_t(1) << 52) - 1);
  if (biased == 0) { // subnormal: frac 2^-1074
    const int z = clz64(frac);
    return {neg, frac << z, -1074 - z};
  }
  return {neg, (frac | (std::uint64_t(1) << 52)) << 11, biased - 1075 - 11};
}

TCR_HD bool sign_bit(double d) {
  std::uint64_t b;
  std::memcpy(&b, &d, sizeof b);
  return (b >> 63) != 0;
}

template <class T>
TCR_HD T nan_of(bool neg) {
  using F = float_format<T>;
  return from_bits<T>(neg, F::inf | (std::uint64_t(1) << (F::p - 2))); // quiet
}

// An integer-valued double with |d| <= 2^127 as a tcr::int128, exactly (2^127 wraps to -2^127,
// which a difference modulo 2^128 does not mind).
TCR_HD int128 int128_of(double d) {
  if (d == 0.0)
    return {};
  const scaled_double v = scale_of(d); // d = m 2^e, -63 <= e <= 64
  int128 a;
  if (v.e < 0)
    a = {v.m >> -v.e, 0}; // the bits shifted out are zero: d is an integer
  else if (v.e < 64)
    a = {v.m << v.e, v.e == 0 ? 0 : v.m >> (64 - v.e)};
  else
    a = {0, v.m};
  return v.neg ? -a : a;
}

} // namespace detail

// RN_T(hi + lo), one rounding of the exact sum (any pair: it is normalised first, exactly).
template <class T>
TCR_HD T round_to(double hi, double lo) {
  using namespace detail;
  static_assert(is_narrow_target_v<T>,
                "tcr::round_to: T must be __half, __nv_bfloat16, float or double");
  if (!is_finite(hi) || !is_finite(lo)) { // Inf, NaN: what hi + lo gives in IEEE arithmetic
    const double v = add_rn(hi, lo);
    return v == v ? from_bits<T>(v < 0.0, float_format<T>::inf) : nan_of<T>(sign_bit(v));
  }
  double h = hi, l = lo;
  if (l != 0.0) {
    const auto [s, t] = two_sum(hi, lo);
    if (!is_finite(s)) // hi + lo beyond DBL_MAX: beyond every T's range
      return from_bits<T>(s < 0.0, float_format<T>::inf);
    h = s;
    l = t;
  }
  if (h == 0.0) // l == 0 too; the sign is the IEEE sum's
    return from_bits<T>(sign_bit(h), 0);
  const scaled_double d = scale_of(h);
  const int tail = l == 0.0 ? 0 : ((l < 0.0) == d.neg ? 1 : -1);
  return round_scaled<T>(d.neg, d.m, d.e, tail);
}

// RN_T(d).
template <class T>
TCR_HD T round_to(double d) {
  return round_to<T>(d, 0.0);
}

// RN_T(v), v read as a two's-complement integer; 0 gives +0.
template <class T>
TCR_HD T round_to(const int128& v) {
  using namespace detail;
  static_assert(is_narrow_target_v<T>,
                "tcr::round_to: T must be __half, __nv_bfloat16, float or double");
  const bool neg = v.is_negative();
  const int128 a = neg ? -v : v; // |v|, read as unsigned (|-2^127| = 2^127 fits)
  if (a.hi != 0) {
    // The top 64 bits, and a tail for the bits below them (the exact value is above m 2^e).
    const int z = clz64(a.hi);
    const std::uint64_t m = z == 0 ? a.hi : (a.hi << z) | (a.lo >> (64 - z));
    const std::uint64_t dropped = a.lo << z;
    return round_scaled<T>(neg, m, 64 - z, dropped != 0 ? 1 : 0);
  }
  if (a.lo == 0)
    return from_bits<T>(false, 0);
  const int z = clz64(a.lo);
  return round_scaled<T>(neg, a.lo << z, -z, 0);
}

} // namespace tcr
