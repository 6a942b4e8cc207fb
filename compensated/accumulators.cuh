// SPDX-License-Identifier: BSD-3-Clause
// tcr: compensated accumulators for sums and dot products (thread level, no parallel code).
//
// Special values: while the running sum is finite these return the compensated result; once
// it is not (an Inf or NaN input, or an overflow of the running sum) they return the running
// sum itself, which is exactly what plain recursive summation gives: +inf stays +inf,
// inf + -inf is NaN, NaN propagates, and an overflow gives +-inf, never NaN.
// Zeros: the empty accumulator holds -0 (the identity of IEEE addition), so a sum of zeros has
// the sign plain summation gives it (-0 only if every term is -0).
//
// Error bounds for a tree of add and merge calls of height h (the most two_sum steps on a path
// from an input to the root; h = n for one chain of n adds), S = sum|x_i| (dot: sum|x_i y_i|),
// gamma_k = k u / (1 - k u), u the unit roundoff of T:
//   neumaier: |res - s| <= u|s| + (1 + u) gamma_h gamma_{2h} S
//             (one chain: gamma_{n-1}^2 S)
//   dot2:     |res - s| <= u|s| + (1 + u) gamma_{2h} (u + (1 + u) gamma_h) S
//             (one chain: gamma_n^2 S)
// One chain is exactly Ogita, Rump & Oishi's Sum2 / Dot2 (2005), and has their bounds.
// For trees: every two_sum error e satisfies |e| <= u |s_node|, and sum over nodes of
// |s_node| <= (1 + gamma_h) h S (each input lies under at most h nodes), so sum|e| <= gamma_h S
// (plus u S for dot2's exact product errors). The errors are summed in T along the same tree,
// each passing at most 2 roundings per level (merge: c1 + c2, then + e; dot2 add: ep + es, then
// + c), hence within gamma_{2h} of their exact sum; the final addition rounds once more.
#pragma once

#include "accumulator.cuh"
#include "convert.cuh"
#include "double_word.cuh"
#include "eft.cuh"

namespace tcr {

// kahan<T>: Kahan's compensated summation. Error bound for a chain of n additions (Knuth;
// Higham, Accuracy and Stability, (4.9)): |res - s| <= (2u + O(n u^2)) sum|x_i| -- no better than
// u sum|x_i| on ill-conditioned sums, unlike neumaier. Kept for comparison.
template <class T>
struct kahan {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "tcr::kahan<T>: T must be float or double");
  using value_type = T;
  T sum = T(-0.0);
  T comp = T(0); // minus what rounding lost so far

  template <class X>
  TCR_HD void add(const X& xin) {
    static_assert(!(std::is_same_v<T, float> && std::is_same_v<X, double>),
                  "tcr::kahan<float>::add: a double input would be rounded; use kahan<double>");
    using namespace detail;
    const T x = widen<T>(xin);
    const T y = sub_rn(x, comp);
    const T t = add_rn(sum, y);
    // Once t is Inf or NaN, (t - sum) - y is NaN; kahan feeds comp back into the sum, so it must
    // stay finite for the sum to follow plain summation (inf + 1 = inf, not NaN).
    const T c = sub_rn(sub_rn(t, sum), y);
    comp = is_finite(t) ? c : T(0);
    sum = t;
  }
  TCR_HD void merge(const kahan& o) {
    using namespace detail;
    const auto [s, e] = two_sum(sum, o.sum);
    sum = s;
    const T c = sub_rn(add_rn(comp, o.comp), e);
    comp = is_finite(s) ? c : T(0);
  }
  TCR_HD T result() const {
    using namespace detail;
    return is_finite(sum) && comp != T(0) ? sub_rn(sum, comp) : sum;
  }
};

namespace detail {
// The state neumaier and dot2 share: the running sum and the sum of the rounding errors, merged
// by a two_sum of the sums (errors added in T) and rounded once at the end. Derived is the
// accumulator itself, so that only accumulators of one kind merge.
template <class T, class Derived>
struct sum2_state {
  T sum = T(-0.0);
  T comp = T(0); // sum of the rounding errors so far

  TCR_HD void merge(const Derived& o) {
    const auto [s, e] = two_sum(sum, o.sum);
    sum = s;
    comp = add_rn(add_rn(comp, o.comp), e);
  }
  TCR_HD T result() const { return is_finite(sum) && comp != T(0) ? add_rn(sum, comp) : sum; }
  // The unrounded result as a normalised pair (hi + lo == sum + comp exactly): the bound in the
  // header comment without its u|s| term. Non-finite sums come back as {sum, 0}.
  TCR_HD double_word<T> result_pair() const {
    if (!is_finite(sum) || comp == T(0))
      return double_word<T>(sum);
    return double_word<T>::from_sum(sum, comp);
  }
};
} // namespace detail

// neumaier<T>: Sum2 of Ogita, Rump and Oishi (every addition a two_sum, the errors summed in T).
// Bound in the header comment: u|s| + gamma_{n-1}^2 S for one chain, u|s| + O(h^2 u^2) S for
// any order of add and merge.
template <class T>
struct neumaier : detail::sum2_state<T, neumaier<T>> {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "tcr::neumaier<T>: T must be float or double");
  using value_type = T;

  template <class X>
  TCR_HD void add(const X& xin) {
    static_assert(
        !(std::is_same_v<T, float> && std::is_same_v<X, double>),
        "tcr::neumaier<float>::add: a double input would be rounded; use neumaier<double>");
    using namespace detail;
    const auto [s, e] = two_sum(this->sum, widen<T>(xin));
    this->sum = s;
    this->comp = add_rn(this->comp, e);
  }
};

// dot2<T>: Dot2 of Ogita, Rump and Oishi (two_prod of every product, two_sum of every addition).
// Bound in the header comment (u|s| + gamma_n^2 S for one chain), as long as no product's error
// falls below the subnormals (two_prod's precondition) and no product overflows.
template <class T>
struct dot2 : detail::sum2_state<T, dot2<T>> {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "tcr::dot2<T>: T must be float or double");
  using value_type = T;

  template <class X, class Y>
  TCR_HD void add(const X& xin, const Y& yin) {
    static_assert(
        !(std::is_same_v<T, float> && (std::is_same_v<X, double> || std::is_same_v<Y, double>)),
        "tcr::dot2<float>::add: a double input would be rounded; use dot2<double>");
    using namespace detail;
    const auto [p, ep] = two_prod(widen<T>(xin), widen<T>(yin));
    const auto [s, es] = two_sum(this->sum, p);
    this->sum = s;
    this->comp = add_rn(this->comp, add_rn(ep, es));
  }
};

} // namespace tcr
