// SPDX-License-Identifier: BSD-3-Clause
// tcr: double_carried<float>, a compensated float sum or dot carried as one double (thread
// level, no parallel code). For block- and warp-level reductions of float-result data: every
// add and merge is one double addition (a dot pair one double fma), where Sum2 / Dot2 spend a
// TwoSum (6 additions, plus the error's) per add and per merge.
//
// Bound. Inputs are float, __half, __nv_bfloat16, __nv_fp8_e4m3 or __nv_fp8_e5m2 values, all
// exact in double (compensated/convert.cuh); a product of two such values is exact in double too
// (at most 24 + 24 significant bits, |x y| between 2^-298 and 2^256, inside double's normal
// range). So the accumulator computes in double a sum of exact terms along whatever tree of add
// and merge calls the caller builds. Let h be that tree's height (the most double additions on a
// path from an input to the root; one chain of n adds: h = n), s the exact sum, S = sum|x_i|
// (dot: sum|x_i y_i|), u_d = 2^-53, u = 2^-24. Any summation tree of height h has
// |sum - s| <= gamma_h(u_d) S, gamma_h(u_d) = h u_d / (1 - h u_d) (Higham, Accuracy and
// Stability, (4.3) and its proof: each term passes through at most h roundings). result()
// rounds once to float: |res - sum| <= u |sum| <= u (|s| + gamma_h(u_d) S). Hence
//     |res - s| <= u|s| + (1 + u) gamma_h(u_d) S,
// and for h <= 4096: |res - s| <= u|s| + 2^-40 S (4096 * 2^-53 = 2^-41, the factors
// (1 + u) / (1 - h u_d) < 2). That is Sum2's form u|s| + O(u^2) S with a smaller second term
// than Sum2's gamma_{h}(u)^2 S ~ h^2 2^-48 S for every h >= 1.
// e4m3 arrays (add(items)): chunks of up to 64 items are first summed in float, exactly: e4m3
// values are multiples of 2^-9 with |x| <= 448, so a partial sum of at most 64 of them is a
// multiple of 2^-9 below 64 * 448 < 2^15, at most 24 significant bits. An exact chunk counts as
// one term of the double sum (it lowers h).
// Special values: the double sum follows IEEE summation of the inputs (Inf stays Inf, Inf - Inf
// and NaN give NaN). A sum of finite floats cannot overflow a double (|sum| <= n 2^128); a
// result beyond float's range rounds to +-Inf, as the exact sum does. Zeros: the empty
// accumulator holds -0, so a sum of -0 terms is -0 and any +0 term makes it +0, as in IEEE.
#pragma once

#include <type_traits>
#include "accumulator.cuh"
#include "convert.cuh"
#include "eft.cuh"

namespace tcr {

template <class T>
struct double_carried {
  static_assert(std::is_same_v<T, float>,
                "tcr::double_carried<T>: T (the result type) must be float; double results have "
                "no wider hardware type: use tcr::neumaier<double> / tcr::dot2<double>");
  using value_type = T;
  static constexpr bool adds_item_arrays = true; // add(const X (&)[N]) below
  double sum = -0.0;

  template <class X>
  TCR_HD void add(const X& x) {
    static_assert(!std::is_same_v<X, double>,
                  "tcr::double_carried<float>::add: a double input is not exact in the carry's "
                  "error analysis; use tcr::neumaier<double>");
    sum = detail::add_rn(sum, widen<double>(x));
  }

  // The whole array of a thread's items at once (see the header comment for e4m3).
  template <class X, int N>
  TCR_HD void add(const X (&x)[N]) {
    if constexpr (std::is_same_v<X, __nv_fp8_e4m3>) {
      constexpr int chunk = 64; // exact float sums (header comment)
      TCR_UNROLL
      for (int c = 0; c < N; c += chunk) {
        float part = -0.f;
        TCR_UNROLL
        for (int i = c; i < (c + chunk < N ? c + chunk : N); ++i)
          part = detail::add_rn(part, widen<float>(x[i]));
        sum = detail::add_rn(sum, static_cast<double>(part));
      }
    } else {
      TCR_UNROLL
      for (int i = 0; i < N; ++i)
        add(x[i]);
    }
  }

  // One product of a dot: fma rounds once, the product itself is exact in double.
  template <class X, class Y>
  TCR_HD void add(const X& x, const Y& y) {
    static_assert(!std::is_same_v<X, double> && !std::is_same_v<Y, double>,
                  "tcr::double_carried<float>::add(x, y): double inputs; use tcr::dot2<double>");
    sum = detail::fma_rn(widen<double>(x), widen<double>(y), sum);
  }

  TCR_HD void merge(const double_carried& o) { sum = detail::add_rn(sum, o.sum); }

  TCR_HD T result() const { return static_cast<float>(sum); }
};

} // namespace tcr
