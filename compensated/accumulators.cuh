// tcr: compensated accumulators for sums and dot products (thread level, no parallel code).
//
// Special values: while the running sum is finite these return the compensated result; once
// it is not (an Inf or NaN input, or an overflow of the running sum) they return the running
// sum itself, which is exactly what plain recursive summation gives: +inf stays +inf,
// inf + -inf is NaN, NaN propagates, and an overflow gives +-inf, never NaN.
#pragma once

#include "compensated/accumulator.cuh"
#include "compensated/convert.cuh"
#include "compensated/eft.cuh"

namespace tcr {

// kahan<T>: Kahan's compensated summation. Error bound for a chain of n additions:
// |res - s| <= 2u|s| + O(n u^2) sum|x_i|. Kept for comparison; neumaier<T> is never worse.
template <class T>
struct kahan {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "tcr::kahan<T>: T must be float or double");
  using value_type = T;
  T sum = T(0);
  T comp = T(0);  // minus what rounding lost so far

  template <class X>
  TCR_HD void add(const X& xin) {
    using namespace detail;
    const T x = widen<T>(xin);
    const T y = sub_rn(x, comp);
    const T t = add_rn(sum, y);
    comp = sub_rn(sub_rn(t, sum), y);
    sum = t;
  }
  TCR_HD void merge(const kahan& o) {
    using namespace detail;
    const auto [s, e] = two_sum(sum, o.sum);
    sum = s;
    comp = sub_rn(add_rn(comp, o.comp), e);
  }
  TCR_HD T result() const {
    using namespace detail;
    return is_finite(sum) ? sub_rn(sum, comp) : sum;
  }
};

// neumaier<T>: Sum2 of Ogita, Rump and Oishi (every addition a two_sum, the errors summed in T):
// |res - s| <= u|s| + gamma_{h}^2 sum|x_i|, gamma_h = h u / (1 - h u), where h is the height of
// the combining tree (n - 1 for one chain), for any order of add and merge.
template <class T>
struct neumaier {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "tcr::neumaier<T>: T must be float or double");
  using value_type = T;
  T sum = T(0);
  T comp = T(0);  // sum of the rounding errors so far

  template <class X>
  TCR_HD void add(const X& xin) {
    using namespace detail;
    const auto [s, e] = two_sum(sum, widen<T>(xin));
    sum = s;
    comp = add_rn(comp, e);
  }
  TCR_HD void merge(const neumaier& o) {
    using namespace detail;
    const auto [s, e] = two_sum(sum, o.sum);
    sum = s;
    comp = add_rn(add_rn(comp, o.comp), e);
  }
  TCR_HD T result() const {
    using namespace detail;
    return is_finite(sum) ? add_rn(sum, comp) : sum;
  }
};

// dot2<T>: Dot2 of Ogita, Rump and Oishi (two_prod of every product, two_sum of every addition):
// |res - s| <= u|s| + gamma_{h+1}^2 sum|x_i y_i| for a combining tree of height h, as long as no
// product underflows (two_prod's precondition).
template <class T>
struct dot2 {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "tcr::dot2<T>: T must be float or double");
  using value_type = T;
  T sum = T(0);
  T comp = T(0);

  template <class X, class Y>
  TCR_HD void add(const X& xin, const Y& yin) {
    using namespace detail;
    const auto [p, ep] = two_prod(widen<T>(xin), widen<T>(yin));
    const auto [s, es] = two_sum(sum, p);
    sum = s;
    comp = add_rn(comp, add_rn(ep, es));
  }
  TCR_HD void merge(const dot2& o) {
    using namespace detail;
    const auto [s, e] = two_sum(sum, o.sum);
    sum = s;
    comp = add_rn(add_rn(comp, o.comp), e);
  }
  TCR_HD T result() const {
    using namespace detail;
    return is_finite(sum) ? add_rn(sum, comp) : sum;
  }
};

}  // namespace tcr
