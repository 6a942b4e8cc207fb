// SPDX-License-Identifier: BSD-3-Clause
// tcr: exact widening of the supported input types to the accumulation types.
//
// Every conversion here is exact: fp8 (e4m3, e5m2), half and bfloat16 values are all floats,
// and every float is a double.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include "config.cuh"

namespace tcr {

// True for the input types tcr reduces.
template <class T>
inline constexpr bool is_input_type_v =
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, __half> ||
    std::is_same_v<T, __nv_bfloat16> || std::is_same_v<T, __nv_fp8_e4m3> ||
    std::is_same_v<T, __nv_fp8_e5m2>;

namespace detail {
// The integer inputs of tcr::integer_sum_accumulator: every integral type of 8 to 64 bits but
// bool.
template <class T>
inline constexpr bool is_integer_input_v =
    std::is_integral_v<T> && !std::is_same_v<T, bool> && sizeof(T) <= 8;

template <class T>
inline constexpr bool is_fp8_v =
    std::is_same_v<T, __nv_fp8_e4m3> || std::is_same_v<T, __nv_fp8_e5m2>;
} // namespace detail

// widen<To>(x): x converted exactly to To (float or double); plain static_cast otherwise.
template <class To, class From>
TCR_HD To widen(From x) {
  if constexpr (std::is_same_v<To, From>) {
    return x;
  } else if constexpr (std::is_same_v<From, __half> || std::is_same_v<From, __nv_bfloat16> ||
                       std::is_same_v<From, __nv_fp8_e4m3> || std::is_same_v<From, __nv_fp8_e5m2>) {
    return static_cast<To>(static_cast<float>(x));
  } else {
    return static_cast<To>(x);
  }
}

namespace detail {

// Four e5m2 values (the bytes of w) as two f16x2 words {lo: bytes 0, 1; hi: bytes 2, 3}. Exact:
// an e5m2 value is the upper byte of the f16 of the same value.
TCR_HD void e5m2x4_to_f16x4(std::uint32_t w, std::uint32_t& lo, std::uint32_t& hi) {
#if defined(__CUDA_ARCH__)
  lo = __byte_perm(w, 0u, 0x1404); // [0, b0, 0, b1]
  hi = __byte_perm(w, 0u, 0x3424); // [0, b2, 0, b3]
#else
  lo = ((w & 0xffu) << 8) | ((w & 0xff00u) << 16);
  hi = ((w >> 8) & 0xff00u) | (w & 0xff000000u);
#endif
}

} // namespace detail

// widen_all(x, f): every element of x widened exactly to float (To = float) or double, pairwise
// where the hardware converts pairs (half, e4m3, e5m2: four per 32-bit word).
template <class To, class T, int N>
TCR_HD void widen_all(const T (&x)[N], To (&f)[N]) {
  static_assert(std::is_same_v<To, float> || std::is_same_v<To, double>,
                "tcr::widen_all: float or double results");
  if constexpr (std::is_same_v<To, double> && !std::is_same_v<T, double>) {
    float g[N];
    widen_all(x, g);
    TCR_UNROLL
    for (int i = 0; i < N; ++i)
      f[i] = static_cast<double>(g[i]);
  } else if constexpr (std::is_same_v<T, __half> && N % 2 == 0) {
    TCR_UNROLL
    for (int i = 0; i < N; i += 2) {
      const float2 v = __half22float2(__halves2half2(x[i], x[i + 1]));
      f[i] = v.x;
      f[i + 1] = v.y;
    }
  } else if constexpr ((std::is_same_v<T, __nv_fp8_e5m2> || std::is_same_v<T, __nv_fp8_e4m3>)&&N %
                           4 ==
                       0) {
    std::uint32_t w[N / 4];
    std::memcpy(w, x, sizeof w);
    TCR_UNROLL
    for (int i = 0; i < N / 4; ++i) {
      __half2_raw lo, hi;
      if constexpr (std::is_same_v<T, __nv_fp8_e5m2>) {
        std::uint32_t wl, wh;
        detail::e5m2x4_to_f16x4(w[i], wl, wh);
        std::memcpy(&lo, &wl, 4);
        std::memcpy(&hi, &wh, 4);
      } else {
        lo = __nv_cvt_fp8x2_to_halfraw2(static_cast<__nv_fp8x2_storage_t>(w[i]), __NV_E4M3);
        hi = __nv_cvt_fp8x2_to_halfraw2(static_cast<__nv_fp8x2_storage_t>(w[i] >> 16), __NV_E4M3);
      }
      const float2 a = __half22float2(__half2(lo));
      const float2 b = __half22float2(__half2(hi));
      f[4 * i] = a.x;
      f[4 * i + 1] = a.y;
      f[4 * i + 2] = b.x;
      f[4 * i + 3] = b.y;
    }
  } else {
    TCR_UNROLL
    for (int i = 0; i < N; ++i)
      f[i] = widen<To>(x[i]);
  }
}

namespace detail {

// Word w (0, 1, ...) of packed T values with every sign bit cleared: AND it in to get |x|.
template <class T>
TCR_HD constexpr std::uint32_t magnitude_mask(int w) {
  return sizeof(T) == 8   ? (w % 2 == 0 ? 0xffffffffu : 0x7fffffffu)
         : sizeof(T) == 4 ? 0x7fffffffu
         : sizeof(T) == 2 ? 0x7fff7fffu
                          : 0x7f7f7f7fu;
}

// Clears the sign bits of the T values packed in w (one logical operation per word).
template <class T, int W>
TCR_HD void clear_signs(std::uint32_t (&w)[W]) {
  TCR_UNROLL
  for (int i = 0; i < W; ++i)
    w[i] &= magnitude_mask<T>(i);
}

} // namespace detail

// magnitudes(x): |x_i| for every element, by clearing the sign bits (NaN stays NaN).
template <class T, int N>
TCR_HD void magnitudes(T (&x)[N]) {
  static_assert(is_input_type_v<T>, "tcr::magnitudes: a floating-point input type");
  if constexpr ((sizeof(T) * N) % 4 == 0) {
    std::uint32_t w[sizeof(T) * N / 4];
    std::memcpy(w, x, sizeof w);
    detail::clear_signs<T>(w);
    std::memcpy(x, w, sizeof w);
  } else { // 8- and 16-bit values, an odd count: one at a time
    TCR_UNROLL
    for (int i = 0; i < N; ++i) {
      std::uint32_t b = 0;
      std::memcpy(&b, &x[i], sizeof(T));
      b &= detail::magnitude_mask<T>(0);
      std::memcpy(&x[i], &b, sizeof(T));
    }
  }
}

} // namespace tcr
