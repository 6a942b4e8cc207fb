// SPDX-License-Identifier: BSD-3-Clause
// tcr: the results of parts of one reduction, merged in a fixed order into the result of the
// whole (a vector split across GPUs: reduce/multi_gpu.cuh; or any other split of the data).
//
//   merge_sum_pairs<Out>(count, part)    Sum, Asum, Dot: the parts' unrounded sums -> the sum
//   merge_norm_pairs<Out>(count, part)   Nrm2: the parts' unrounded norms -> the norm
//
// part(i) (i = 0 .. count - 1, visited in that order) returns a distributed_part: the part's
// result as an unrounded dd pair (what tcr::DeviceReduce writes into a tcr::dd result) and
// whether the part held no elements (it is then skipped, so that its identity cannot change a
// sign: a Sum of -0 terms stays -0). Out is float or double. No part at all gives +0, as
// DeviceReduce does for n = 0. The exact modes need none of this: tcr::exact_merge (any order)
// and tcr::exact_finish (compensated/exact.cuh).
//
// Bounds (u_d = 2^-53; p the number of nonempty parts, v_i = hi_i + lo_i part i's pair, s_i its
// exact sum, s = sum s_i, S = sum S_i the sum of |x| over all the data, e_i = |v_i - s_i|).
// merge_sum_pairs adds the pairs in index order with AccurateDWPlusDW (compensated/double_word.cuh:
// relative error <= 3u_d^2 + 13u_d^3 of each partial result, and |partial result| <= (1 + 4u_d^2)^p
// sum |v_i|), so the merged pair t meets |t - sum v_i| <= 3.1 p u_d^2 sum |v_i|; then t is rounded
// once to double (Out = double: RN(t) = hi of the normalised pair) or twice, to double and to float
// (Out = float: at most (u_f + u_d + u_f u_d) |t|, or half float's subnormal spacing, 2^-150).
// With the pairs of tcr::DeviceReduce (float results of float-range inputs: its df32 pair, the
// float machinery's double value split into two floats, e_i <= 2^-42 S_i + 2^-48 |s_i| + 2^-150;
// double inputs: its dd pair, e_i <= 2^-104 |s_i| + 2^-100 S_i):
//   float result:  |res - s| <= (u_f + 2^-52.9) |s| + 2^-41.9 S + (p + 1) 2^-150
//                             <= 2u|s| + 2^-40 S + p 2^-150                    (p < 2^40)
//   double result: |res - s| <= u_d |s| + (2^-99.9 + 3.2 p 2^-106) S <= 2u|s| + 2^-88 S   (p <
//   2^16)
// the single-GPU contracts (float: plus p 2^-150 below the normal range). merge_norm_pairs scales
// every pair by one power of two 2^-e (the largest hi to [1/2, 1): exact, and terms it pushes below
// the normal range are smaller than 2^-1022 of the largest, so their squares change the sum by less
// than 2^-2040 relatively), sums the squares w_i^2 (DWTimesDW3, 4u_d^2) in index order (3u_d^2
// each) and takes SQRTDWtoDW (25/8 u_d^2): relative error e + (7p + 4) u_d^2 before the rounding to
// Out, where e is the largest relative error of a part's norm (DeviceReduce: 2^-42.9 for
// float-range inputs, 2^-100 for doubles), so within u + 2^-40 (float) and u + 2^-100 + (7p + 4)
// 2^-106 (double) of the norm.
//
// Special values: a part whose hi is Inf or NaN makes the result the IEEE sum of the parts' hi
// (Inf + -Inf = NaN, NaN propagates; Nrm2: NaN if any part is NaN, else +Inf). When all nonempty
// parts are zero the result is their IEEE sum (-0 only if every one is -0). No overflow of the
// merge itself: where the largest |hi| exceeds 2^1000, the pairs are scaled by 2^-64 first (exact,
// but for pieces below 2^-1010, which the bound's S >= 2^1000 absorbs), and scaled back after the
// rounding to double, so a result overflows only where its rounding does.
//
// Rounding is pinned (tcr::detail::*_rn, double_word's algorithms), so contraction cannot change a
// bit; everything is __host__ __device__ and sequential: the order of the parts is the caller's.
#pragma once

#include <cmath>
#include <type_traits>
#include "config.cuh"
#include "double_word.cuh"
#include "eft.cuh"

namespace tcr {

// One part's unrounded result (a DeviceReduce dd result) and whether the part was empty.
struct distributed_part {
  dd value;
  bool empty = false;
};

namespace detail {
template <class Out>
TCR_HD Out to_result(double v) {
  static_assert(std::is_same_v<Out, float> || std::is_same_v<Out, double>,
                "tcr: distributed results are float or double");
  return static_cast<Out>(v); // float: round to nearest (the device's __double2float_rn)
}
// f(value) for the pair of every nonempty part, in index order.
template <class Part, class F>
TCR_HD void for_each_nonempty(int count, const Part& part, F&& f) {
  for (int i = 0; i < count; ++i) {
    const distributed_part q = part(i);
    if (!q.empty)
      f(q.value);
  }
}
} // namespace detail

// (Both merges start from the pair 0: AccurateDWPlusDW adds a normalised pair to it exactly, and
// the zero results whose sign matters are settled before the pairs are added.)
template <class Out, class Part>
TCR_HD Out merge_sum_pairs(int count, const Part& part) {
  using namespace detail;
  double plain = -0.0; // the IEEE sum of the nonempty parts' hi, in index order
  double largest = 0.0;
  bool any = false, special = false, nonzero = false;
  for_each_nonempty(count, part, [&](const dd& v) {
    plain = any ? add_rn(plain, v.hi) : v.hi;
    any = true;
    if (!is_finite(v.hi))
      special = true;
    else if (v.hi != 0.0) {
      nonzero = true;
      largest = ::fmax(largest, ::fabs(v.hi));
    }
  });
  if (!any)
    return to_result<Out>(0.0);
  if (special || !nonzero)
    return to_result<Out>(plain);
  const bool scaled = largest > 0x1p1000;
  const double down = scaled ? 0x1p-64 : 1.0;
  dd t;
  for_each_nonempty(count, part,
                    [&](const dd& v) { t = add(t, dd(mul_rn(v.hi, down), mul_rn(v.lo, down))); });
  if (scaled) // RN(t) scaled back: the same double as RN(2^64 t), or its overflow
    return to_result<Out>(mul_rn(t.hi, 0x1p64));
  return to_result<Out>(t.hi);
}

template <class Out, class Part>
TCR_HD Out merge_norm_pairs(int count, const Part& part) {
  using namespace detail;
  double largest = 0.0;
  double special = 0.0; // a NaN part's value, else an infinite one's, else 0
  for_each_nonempty(count, part, [&](const dd& v) {
    const double h = v.hi;
    if (h != h)
      special = h;
    else if (!is_finite(h)) {
      if (special == 0.0)
        special = ::fabs(h);
    } else
      largest = ::fmax(largest, h);
  });
  if (special != 0.0)
    return to_result<Out>(special);
  if (largest == 0.0) // no part, or only zeros
    return to_result<Out>(0.0);
  int e = 0;
  (void)::frexp(largest, &e); // largest = f 2^e, f in [1/2, 1)
  dd q;
  for_each_nonempty(count, part, [&](const dd& v) {
    const dd w(::ldexp(v.hi, -e), ::ldexp(v.lo, -e));
    q = add(q, mul(w, w));
  });
  const dd r = sqrt(q); // in [1/2, sqrt(p))
  return to_result<Out>(::ldexp(r.hi, e));
}

} // namespace tcr
