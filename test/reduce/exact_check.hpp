// SPDX-License-Identifier: BSD-3-Clause
// tcr tests of the exact modes (reduce/device.cuh, Accuracy::correctly_rounded and
// ::reproducible): whether a result is the exact value rounded to nearest even, judged from its
// neighbours in the result format with exact MPFR distances; bit helpers; a two-phase runner and
// the exact Dot / Nrm2 runner on NaN-padded operands.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mpfr.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>
#include <tcr/reduce/device.cuh>
#include "reduce/device_test_util.hpp"
#include "support/mpfr_ref.hpp"

namespace tcr::test::exact {

inline constexpr ReduceOptions rounded{Accuracy::correctly_rounded, tcr::Engine::automatic};
inline constexpr ReduceOptions reproducible{Accuracy::reproducible, tcr::Engine::automatic};

// Bits of a result value.
template <class V>
std::uint64_t bits_of(V v) {
  if constexpr (sizeof(V) == 2) {
    std::uint16_t b;
    std::memcpy(&b, &v, 2);
    return b;
  } else if constexpr (sizeof(V) == 4) {
    std::uint32_t b;
    std::memcpy(&b, &v, 4);
    return b;
  } else {
    std::uint64_t b;
    std::memcpy(&b, &v, 8);
    return b;
  }
}
template <class V>
V from_bits(std::uint64_t b) {
  V v;
  if constexpr (sizeof(V) == 2) {
    const std::uint16_t w = static_cast<std::uint16_t>(b);
    std::memcpy(&v, &w, 2);
  } else if constexpr (sizeof(V) == 4) {
    const std::uint32_t w = static_cast<std::uint32_t>(b);
    std::memcpy(&v, &w, 4);
  } else {
    std::memcpy(&v, &b, 8);
  }
  return v;
}
using tcr::test::run_two_phase;
// Dot (y given) or Nrm2 (y null) in an exact mode, the operands at element offsets ox, oy of
// NaN-padded buffers.
template <class Out, class X, class Y = X>
Out run_dot(const std::vector<X>& x, const std::vector<Y>* y, std::size_t ox, std::size_t oy,
            ReduceOptions opt = rounded) {
  padded_device<X> dx(x, ox);
  const std::int64_t n = static_cast<std::int64_t>(x.size());
  std::vector<Y> none;
  padded_device<Y> dy(y ? *y : none, oy);
  return run_two_phase<Out>([&](void* temp, std::size_t& bytes, Out* out) {
    if (y)
      return DeviceReduce::Dot(temp, bytes, dx.get(), dy.get(), out, n, 0, opt);
    return DeviceReduce::Nrm2(temp, bytes, dx.get(), out, n, 0, opt);
  });
}
// run_dot with the certify-first pass off (the exact pass alone) and on (reduce/device.cuh's
// certify_first_enabled): the two results must have the same bits; returns the certify-first one.
template <class Out, class X, class Y = X>
Out run_dot_both_ways(const std::vector<X>& x, const std::vector<Y>* y, std::size_t ox,
                      std::size_t oy) {
  tcr::detail::device::certify_first_enabled = false;
  const Out alone = run_dot<Out>(x, y, ox, oy);
  tcr::detail::device::certify_first_enabled = true;
  const Out first = run_dot<Out>(x, y, ox, oy);
  INFO("exact pass alone ", to_double(alone), ", certify first ", to_double(first));
  CHECK(bits_of(first) == bits_of(alone));
  return first;
}
// Sizes of T's exact Sum tests: tiny, around the warp and block, and around 1 .. 700 blocks of
// the grid's 16 KB each.
template <class T>
std::vector<std::int64_t> exact_sizes() {
  const std::int64_t per_block = 16384 / sizeof(T);
  std::vector<std::int64_t> s = {1, 2, 3, 15, 16, 17, 255, 256, 257, 1025, 4097};
  for (std::int64_t b : {1, 2, 3, 9, 64, 700})
    for (std::int64_t d : {-1, 1})
      s.push_back(b * per_block + d);
  return s;
}
template <class V>
constexpr std::uint64_t sign_bit() {
  return std::uint64_t(1) << (8 * sizeof(V) - 1);
}
// The bits of V's largest finite value.
template <class V>
constexpr std::uint64_t max_bits() {
  if constexpr (std::is_same_v<V, double>)
    return 0x7fefffffffffffffull;
  else if constexpr (std::is_same_v<V, float>)
    return 0x7f7fffffu;
  else if constexpr (std::is_same_v<V, __half>)
    return 0x7bffu;
  else
    return 0x7f7fu; // bfloat16
}
inline std::vector<double> to_doubles(const std::vector<float>& v) {
  return {v.begin(), v.end()};
}

// True when res is the exact value s rounded to nearest even in V (V's finite values, its
// overflow to +-inf), judged from res's neighbours: no finite value of V is nearer, a tie goes to
// an even significand, and res is +-inf exactly when |s| reaches max + ulp(max) / 2.
template <class V>
bool is_round_to_nearest(V res, const mp& s) {
  const std::uint64_t b = bits_of(res);
  const double r = to_double(res);
  const bool s_negative = mpfr_sgn(s.get()) < 0;
  // The overflow threshold max + ulp(max) / 2 = max + (max - prev(max)) / 2, exactly.
  const double maxd = to_double(from_bits<V>(max_bits<V>()));
  const double prevd = to_double(from_bits<V>(max_bits<V>() - 1));
  mp threshold(mp::exact_dot_bits);
  mpfr_set_d(threshold.get(), maxd, MPFR_RNDN);
  mp half_ulp(mp::exact_dot_bits);
  mpfr_set_d(half_ulp.get(), maxd, MPFR_RNDN);
  mpfr_sub_d(half_ulp.get(), half_ulp.get(), prevd, MPFR_RNDN);
  mpfr_div_2ui(half_ulp.get(), half_ulp.get(), 1, MPFR_RNDN);
  mpfr_add(threshold.get(), threshold.get(), half_ulp.get(), MPFR_RNDN);
  mp abs_s(mp::exact_dot_bits);
  mpfr_abs(abs_s.get(), s.get(), MPFR_RNDN);
  const bool overflows = mpfr_cmp(abs_s.get(), threshold.get()) >= 0;
  if (std::isnan(r))
    return false;
  if (std::isinf(r))
    return overflows && ((r < 0) == s_negative);
  if (overflows)
    return false;
  if (mpfr_zero_p(s.get()))
    return r == 0;
  // The neighbours of res in V (toward zero / away from zero), as exact doubles.
  const std::uint64_t mag = b & ~sign_bit<V>();
  const std::uint64_t sgn = b & sign_bit<V>();
  const double away = mag == max_bits<V>() ? std::numeric_limits<double>::infinity()
                                           : to_double(from_bits<V>(sgn | (mag + 1)));
  const double toward = mag == 0 ? -to_double(from_bits<V>(sgn | 1)) // across zero
                                 : to_double(from_bits<V>(sgn | (mag - 1)));
  const auto dist = [&](double v) {
    mp d(mp::exact_dot_bits + 64);
    mpfr_sub_d(d.get(), s.get(), v, MPFR_RNDN); // exact at this precision
    mpfr_abs(d.get(), d.get(), MPFR_RNDN);
    return d;
  };
  const mp d0 = dist(r);
  const mp dt = dist(toward);
  if (mpfr_cmp(d0.get(), dt.get()) > 0)
    return false;
  if (mpfr_cmp(d0.get(), dt.get()) == 0 && (b & 1))
    return false; // a tie, res odd
  if (!std::isinf(away)) {
    const mp da = dist(away);
    if (mpfr_cmp(d0.get(), da.get()) > 0)
      return false;
    if (mpfr_cmp(d0.get(), da.get()) == 0 && (b & 1))
      return false;
  }
  return true;
}

} // namespace tcr::test::exact
