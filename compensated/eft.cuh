// SPDX-License-Identifier: BSD-3-Clause
// tcr: error-free transformations (EFTs) and correctly rounded primitives.
//
// Every EFT returns {value, error} with value + error equal to the exact result, as long as
// the operations round to nearest-even and nothing overflows. No compiler may contract the
// steps into FMAs: on the device every step is an `_rn` intrinsic (never contracted, whatever
// -fmad says); on the host each product passes through an opaque register barrier, so
// -ffp-contract=fast cannot fuse it with a later addition.
#pragma once

#include <cmath>
#include <type_traits>
#include "config.cuh"

namespace tcr {

// An unevaluated sum: value is the rounded result, error what rounding lost (exactly).
template <class T>
struct eft {
  T value;
  T error;
};

namespace detail {

// Hides a value from the optimiser: it must exist rounded in a register, so the product
// that produced it cannot be fused into an FMA with whatever consumes it.
template <class T>
TCR_HD T opaque(T x) {
#if !defined(__CUDA_ARCH__)
#if defined(__x86_64__) || defined(__i386__)
  asm("" : "+x"(x));
#elif defined(__aarch64__)
  asm("" : "+w"(x));
#else
  asm volatile("" : "+m"(x));
#endif
#endif
  return x;
}

// Correctly rounded arithmetic that no compiler contracts: on the device the `_rn` intrinsics
// (float or double, picked by T), on the host plain operations with every product behind opaque.
template <class T>
TCR_HD T add_rn(T a, T b) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>)
    return __fadd_rn(a, b);
  else
    return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
template <class T>
TCR_HD T sub_rn(T a, T b) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>)
    return __fsub_rn(a, b);
  else
    return __dsub_rn(a, b);
#else
  return a - b;
#endif
}
template <class T>
TCR_HD T mul_rn(T a, T b) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>)
    return __fmul_rn(a, b);
  else
    return __dmul_rn(a, b);
#else
  return opaque(a * b);
#endif
}
// a * b + c with one rounding.
template <class T>
TCR_HD T fma_rn(T a, T b, T c) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>)
    return __fmaf_rn(a, b, c);
  else
    return __fma_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}
template <class T>
TCR_HD T div_rn(T a, T b) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>)
    return __fdiv_rn(a, b);
  else
    return __ddiv_rn(a, b);
#else
  return a / b;
#endif
}
template <class T>
TCR_HD T sqrt_rn(T a) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>)
    return __fsqrt_rn(a);
  else
    return __dsqrt_rn(a);
#else
  return std::sqrt(a);
#endif
}
template <class T>
TCR_HD bool is_finite(T x) {
#if defined(__CUDA_ARCH__)
  return isfinite(x);
#else
  return std::isfinite(x);
#endif
}
template <class T>
TCR_HD T abs(T x) {
#if defined(__CUDA_ARCH__)
  return fabs(x);
#else
  return std::fabs(x);
#endif
}

// Veltkamp's splitting constant 2^ceil(p/2) + 1.
template <class T>
struct split_factor;
template <>
struct split_factor<float> {
  static constexpr float value = 4097.0f; // 2^12 + 1
};
template <>
struct split_factor<double> {
  static constexpr double value = 134217729.0; // 2^27 + 1
};

} // namespace detail

// two_sum (Knuth): s + e == a + b exactly, s = fl(a + b). No precondition on order; 6 flops.
// Exact unless fl(a + b) overflows (then s = +-inf and e is NaN).
template <class T>
TCR_HD eft<T> two_sum(T a, T b) {
  using namespace detail;
  const T s = add_rn(a, b);
  const T bb = sub_rn(s, a);
  const T e = add_rn(sub_rn(a, sub_rn(s, bb)), sub_rn(b, bb));
  return {s, e};
}

// fast_two_sum (Dekker): s + e == a + b exactly, s = fl(a + b), provided |a| >= |b| (or a == 0);
// 3 flops. Exact unless fl(a + b) overflows.
template <class T>
TCR_HD eft<T> fast_two_sum(T a, T b) {
  using namespace detail;
  const T s = add_rn(a, b);
  const T e = sub_rn(b, sub_rn(s, a));
  return {s, e};
}

// two_prod (FMA): p + e == a * b exactly, p = fl(a * b); 2 flops. Exact unless a * b overflows
// or its error falls below the smallest subnormal (e_a + e_b < e_min + p - 1).
template <class T>
TCR_HD eft<T> two_prod(T a, T b) {
  using namespace detail;
  const T p = mul_rn(a, b);
  const T e = fma_rn(a, b, -p);
  return {p, e};
}

// split (Veltkamp): hi + lo == a exactly, hi holding the leading p - ceil(p/2) bits and lo the
// rest (each fits half the significand, so products of halves are exact). Precondition:
// |a| < 2^(e_max - ceil(p/2)) so that the scaled value cannot overflow.
template <class T>
TCR_HD eft<T> split(T a) {
  using namespace detail;
  const T c = mul_rn(split_factor<T>::value, a);
  const T big = sub_rn(c, a);
  const T hi = sub_rn(c, big);
  const T lo = sub_rn(a, hi);
  return {hi, lo};
}

} // namespace tcr
