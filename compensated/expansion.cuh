// SPDX-License-Identifier: BSD-3-Clause
// tcr: expansion<T, K>, a K-word summation accumulator (K = 2, 3, 4): sums as if carried in K
// times T's precision (triple- and quad-word accumulation in the sense of QD's td/qd), cheaply.
//
// Layout: K levels c[0..K-1]. Level 0 is the plain running sum of the inputs; every two_sum at
// level j hands its exact rounding error down to level j + 1; the last level adds plainly.
//   add(x):    (c0, e) = two_sum(c0, x); (c1, e) = two_sum(c1, e); ...; c[K-1] += e
//              -- K - 1 two_sums and one addition; no renormalisation on the way.
//   merge(o):  o.c[j] is fed in at level j, for every j, with the same cascade below it.
//   result():  the levels distilled (K - 1 passes of VecSum, then a sum: Ogita, Rump & Oishi's
//              SumK on the K words) and rounded to T.
// expansion<T, 2> is neumaier<T> (Sum2); K = 3, 4 push the error term down to gamma^3, gamma^4.
//
// Error bound. Let H be the most additions any level performs on a path from an input to the
// root (one chain of n adds: H = n; each merge level adds at most K), S = sum|x_i|, s the exact
// sum, u the unit roundoff of T, gamma_k = k u / (1 - k u), g = gamma_H (with g < 1). Then
//   |result() - s| <= (u + 3 gamma_{K-1}^2)(|s| + g^K S) + gamma_{2K-2}^K (1 + g) / (1 - g) S + g^K
//   S.
// Proof: at level j every two_sum error e has |e| <= u |c_j|, each level's partial sums are
// bounded by (1 + g) times the sum of the magnitudes of the terms below them, and each term lies
// under at most H additions of its level, so the errors handed to level j + 1 sum in magnitude to
// <= g times the terms of level j: level j's terms sum to <= g^j S. The last level's plain
// additions err by <= g * g^(K-1) S, so V = sum c_j satisfies |V - s| <= g^K S, and sum |c_j| <= (1
// + g) S (1 + g + g^2 + ...). SumK on K words gives |res - V| <= (u + 3 gamma_{K-1}^2)|V| +
// gamma_{2K-2}^K sum|c_j| (Ogita, Rump & Oishi 2005, SumK's bound with n = K).
// In short: u|s| + about (H u)^K S, "K-fold working precision, then rounded".
//
// Special values: level 0 is exactly the plain sum, so once it is not finite result() returns it
// (+inf stays +inf, inf - inf = NaN, NaN propagates, overflow gives inf, never NaN). The empty
// accumulator is -0 (the identity of IEEE addition).
#pragma once

#include <type_traits>
#include "accumulator.cuh"
#include "convert.cuh"
#include "eft.cuh"

namespace tcr {

template <class T, int K>
struct expansion {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "tcr::expansion<T, K>: T must be float or double");
  static_assert(K >= 2 && K <= 4, "tcr::expansion<T, K>: K must be 2, 3 or 4");
  using value_type = T;
  static constexpr int words = K;

  T c[K] = {T(-0.0)}; // c[0]: the plain sum; c[j]: level j's sum of level j-1's errors

  template <class X>
  TCR_HD void add(const X& xin) {
    static_assert(!(std::is_same_v<T, float> && std::is_same_v<X, double>),
                  "tcr::expansion<float, K>::add: a double input would be rounded");
    insert(0, widen<T>(xin));
  }

  TCR_HD void merge(const expansion& o) {
    TCR_UNROLL
    for (int j = 0; j < K; ++j)
      insert(j, o.c[j]);
  }

  TCR_HD T result() const {
    using namespace detail;
    if (!is_finite(c[0]))
      return c[0];
    // p = [c[K-1], ..., c[0]]: smallest level first, so VecSum ends on the largest.
    T p[K];
    TCR_UNROLL
    for (int i = 0; i < K; ++i)
      p[i] = c[K - 1 - i];
    bool all_zero = true;
    TCR_UNROLL
    for (int i = 0; i < K - 1; ++i)
      all_zero = all_zero && p[i] == T(0);
    if (all_zero)
      return c[0]; // keeps -0
    TCR_UNROLL
    for (int pass = 0; pass < K - 1; ++pass) {
      TCR_UNROLL
      for (int i = 1; i < K; ++i) {
        const auto [s, e] = two_sum(p[i], p[i - 1]);
        p[i] = s;
        p[i - 1] = e;
      }
    }
    T tail = p[0];
    TCR_UNROLL
    for (int i = 1; i < K - 1; ++i)
      tail = add_rn(tail, p[i]);
    return add_rn(tail, p[K - 1]);
  }

private:
  // Adds v at level j; the errors cascade to the levels below.
  TCR_HD void insert(int j, T v) {
    using namespace detail;
    TCR_UNROLL
    for (int i = 0; i < K - 1; ++i) {
      if (i >= j) {
        const auto [s, e] = two_sum(c[i], v);
        c[i] = s;
        v = e;
      }
    }
    c[K - 1] = add_rn(c[K - 1], v);
  }
};

} // namespace tcr
