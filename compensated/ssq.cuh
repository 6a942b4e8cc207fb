// SPDX-License-Identifier: BSD-3-Clause
// tcr: ssq<T>, a scaled and compensated sum of squares for the Euclidean norm (nrm2).
//
// Blue's one-pass scheme (1978) with thresholds in the spirit of Anderson's (2017, reference
// LAPACK 3.10 dnrm2): every |x| falls in one of three bands, and each band keeps its own sum of
// squares, scaled by a power of two so that no square can overflow or lose bits to underflow:
//   big    |x| >  t_big          sum of (x * s_big)^2
//   medium t_sml <= |x| <= t_big  sum of x^2                    (the common path)
//   small  |x| <  t_sml          sum of (x * s_sml)^2
// The thresholds (exponents in ssq_traits below) are chosen so that, in every band, the scaled
// square y^2 is computed by two_prod *exactly*: y^2 and its rounding error are both multiples
// of the smallest subnormal. Anderson's t_sml is raised for that (LAPACK's would lose the low
// bits of the squares' error terms in [2^-511, 2^-485) for double), and for float t_big is
// lowered to 2^39 so that the medium sum cannot overflow before 2^48 additions.
//
// Each band is a Dot2-style pair (s, c): s the running sum, c the sum of the exact rounding
// errors of the squares (two_prod) and of the additions (two_sum). result() folds the bands
// into one pair at a common scale (the neglected parts are below 2^-70 relative, see below),
// and takes a compensated square root (one Newton step on the pair).
//
// Error bound (proved in the comments of result() and sqrt_pair()). Let ||x|| be the exact norm,
// u the unit roundoff of T, gamma_k = k u / (1 - k u), and h the height of the tree of add and
// merge calls (h = n for one chain of n adds; +1 for result's fold). Then with
//   eta = gamma_{2h} * (h + 1) * u * (1 + gamma_h) + 2^-70
// (relative error of the folded pair of sums of squares),
//   |result() - ||x||| <= ((1 + u + 8u^2) * (1 + eta / (2 - eta)) - 1) * ||x|| + q,
// where q is the smallest subnormal of T (reached only when ||x|| is below the smallest normal).
// For h u << 1 that is u + h^2 u^2 + O(u^2): the result is faithful, as if the sum of squares
// were carried in twice the precision. Valid for any finite inputs while n < 2^48; no
// intermediate overflows unless ||x|| itself is within (1 + u) of overflowing.
//
// Special values: an Inf input gives +inf, a NaN input NaN (NaN wins over Inf), +-0 and
// subnormals are ordinary inputs. Cost on the medium path: |x|, a compare pair, two_prod,
// two_sum and two additions.
#pragma once

#include <type_traits>
#include "accumulator.cuh"
#include "convert.cuh"
#include "eft.cuh"

namespace tcr {
namespace detail {

// 2^k, exactly, for |k| small enough that the result is a normal T.
template <class T>
TCR_HD constexpr T exp2i(int k) {
  T r = T(1);
  for (; k > 0; --k)
    r *= T(2);
  for (; k < 0; ++k)
    r *= T(0.5);
  return r;
}

// Exponents of the ssq thresholds and scale factors. With E: max < 2^E, Q: the smallest
// subnormal is 2^Q, p: significand bits (double E = 1024, Q = -1074, p = 53; float 128, -149, 24):
//   t_sml = 2^ts, ts = ceil((Q + 2p - 2) / 2): |x| >= t_sml has ulp >= 2^(ts - p + 1), so x^2
//           and its error are multiples of 2^(2ts - 2p + 2) >= 2^Q: two_prod(x, x) is exact.
//   t_big = 2^tb, tb = floor((E - 49) / 2): n < 2^48 medium squares (<= 2^(2 tb)) sum below 2^E.
//   s_big = 2^sb, sb = -ceil((E + p - 1) / 2) (LAPACK): scaled big values y >= 2^(tb + sb) >= t_sml
//           so y^2 is exact too, and the big sum overflows only if ||x|| >= 2^(E/2 - sb) > 2^E.
//   s_sml = 2^ss, ss = ceil(-Q / 2) (LAPACK): y = x s_sml is a multiple of 2^(Q + ss), y^2 of
//           2^(2Q + 2ss) >= 2^Q: exact; y < 2^(ts + ss) keeps n < 2^48 small squares finite.
template <class T>
struct ssq_traits;
template <>
struct ssq_traits<double> {
  static constexpr int ts = -485, tb = 487, sb = -538, ss = 537;
  static constexpr int E = 1024, Q = -1074, p = 53;
};
template <>
struct ssq_traits<float> {
  static constexpr int ts = -51, tb = 39, sb = -76, ss = 75;
  static constexpr int E = 128, Q = -149, p = 24;
};

template <class Tr>
constexpr bool ssq_traits_ok() {
  constexpr int num_ts = Tr::Q + 2 * Tr::p - 2;              // ts >= ceil(num_ts / 2)
  return 2 * Tr::ts >= num_ts && 2 * Tr::ts - 2 <= num_ts && // smallest such ts
         2 * Tr::tb + 49 <= Tr::E &&                         // medium sum finite, n < 2^48
         Tr::tb + Tr::sb >= Tr::ts &&                        // scaled big squares exact
         2 * -Tr::sb >= Tr::E + Tr::p - 1 &&                 // big sum overflows only genuinely
         2 * Tr::ss >= -Tr::Q &&                             // scaled small squares exact
         2 * (Tr::ts + Tr::ss) + 49 <= Tr::E;                // small sum finite, n < 2^48
}
static_assert(ssq_traits_ok<ssq_traits<double>>(), "ssq thresholds (double) violate their proof");
static_assert(ssq_traits_ok<ssq_traits<float>>(), "ssq thresholds (float) violate their proof");

// A sum of nonnegative terms as an unevaluated pair: exact value s + (exact c), c computed.
template <class T>
struct ssq_band {
  T s = T(0);
  T c = T(0);

  // Adds y^2 (both two_prod and two_sum exact here: see ssq_traits).
  TCR_HD void add_square(T y) {
    const auto [p, ep] = two_prod(y, y);
    const auto [t, et] = two_sum(s, p);
    s = t;
    c = add_rn(c, add_rn(ep, et));
  }
  TCR_HD void merge(const ssq_band& o) {
    const auto [t, et] = two_sum(s, o.s);
    s = t;
    c = add_rn(add_rn(c, o.c), et);
  }
  // The band times 2^(k1 + k2), in two exact steps (each scale representable).
  TCR_HD ssq_band scaled(T f1, T f2) const {
    return {mul_rn(mul_rn(s, f1), f2), mul_rn(mul_rn(c, f1), f2)};
  }
};

// sqrt(s + c) for a pair with s >= 0 and |c| <= s / 2, as a T.
// Proof sketch of |res - sqrt(V)| <= (u + 8u^2) sqrt(V), V = s + c, when r >= t_sml (so that
// s - r^2 is exact; Markstein): renormalise (s, c) with fast_two_sum, so |c| <= u s. With
// r = RN(sqrt(s)), |s - r^2| <= (2u + u^2) s, so D = V - r^2 has |D| <= (3u + u^2) s. Exactly,
// sqrt(V) - r = D / (r + sqrt(V)); the computed correction RN(RN(D) / 2r) differs from
// D / (2r) by <= 2.01u |D| / 2r and D / 2r from D / (r + sqrt V) by <= D^2 / (2 r (r + sqrt V)^2),
// together <= 5u^2 sqrt(V) (1 + O(u)); the final rounding adds u. When r < t_sml, s is tiny
// and the rounding of s - r^2 onto the subnormal grid adds at most q / (4r) (see result()).
template <class T>
TCR_HD T sqrt_pair(T s, T c) {
  if (!(s > T(0)))
    return sqrt_rn(s); // 0 (or a NaN already caught by the caller)
  const auto [sh, sl] = fast_two_sum(s, c);
  const T r = sqrt_rn(sh);
  const T d = fma_rn(-r, r, sh); // sh - r^2, exact for r >= t_sml
  const T corr = div_rn(add_rn(d, sl), add_rn(r, r));
  return add_rn(r, corr);
}

} // namespace detail

// ssq<T>: scaled compensated sum of squares of the inputs; result() is the Euclidean norm.
// T: the accumulation type, float or double. Inputs: any type tcr::widen<T> converts exactly
// (fp8, half, bfloat16, float; double only when T is double).
template <class T>
struct ssq {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "tcr::ssq<T>: T must be float or double");
  using value_type = T;
  using traits = detail::ssq_traits<T>;

  detail::ssq_band<T> big; // scaled by s_big^2; also holds Inf / NaN inputs (in big.s)
  detail::ssq_band<T> med; // unscaled
  detail::ssq_band<T> sml; // scaled by s_sml^2

  static constexpr T t_sml = detail::exp2i<T>(traits::ts);
  static constexpr T t_big = detail::exp2i<T>(traits::tb);
  static constexpr T s_big = detail::exp2i<T>(traits::sb);
  static constexpr T s_sml = detail::exp2i<T>(traits::ss);

  template <class X>
  TCR_HD void add(const X& xin) {
    static_assert(!(std::is_same_v<T, float> && std::is_same_v<X, double>),
                  "tcr::ssq<float>::add: a double input would be rounded; use ssq<double>");
    const T ax = detail::abs(widen<T>(xin));
    if (ax >= t_sml && ax <= t_big) {
      med.add_square(ax);
    } else {
      add_rare(ax);
    }
  }

  TCR_HD void merge(const ssq& o) {
    big.merge(o.big);
    med.merge(o.med);
    sml.merge(o.sml);
  }

  // The norm sqrt(sum x_i^2); bound in the header comment.
  TCR_HD T result() const {
    using namespace detail;
    if (!is_finite(big.s))
      return big.s; // +inf (Inf input or genuine overflow) or NaN
    if (big.s > T(0)) {
      // Everything at the big scale. The medium band times s_big^2 may underflow: <= 4 roundings
      // of q / 2 against big >= (t_big s_big)^2, relative <= 2^(Q + 1 - 2(tb + sb)) (double
      // 2^-971, float 2^-74). The small band is dropped: below n t_sml^2 / t_big^2 relative
      // (double n 2^-1944, float n 2^-180).
      ssq_band<T> acc = big;
      acc.merge(med.scaled(s_big, s_big));
      constexpr T unscale = T(1) / s_big;
      return mul_rn(sqrt_pair(acc.s, acc.c), unscale);
    }
    constexpr T thr = exp2i<T>(traits::E - 2 * traits::ss); // med * s_sml^2 overflows from here
    if (med.s >= thr) {
      // Small band down to the medium scale: <= 2q absolute against med >= thr, relative
      // <= 2^(Q + 1 - E + 2ss) (double 2^-1023, float 2^-126).
      constexpr T down = T(1) / s_sml;
      ssq_band<T> acc = med;
      acc.merge(sml.scaled(down, down));
      return sqrt_pair(acc.s, acc.c);
    }
    // Medium band up to the small scale: exact (no overflow below thr, no rounding upward).
    // The final scaling rounds only if the norm is subnormal (q / 2), and there r may be below
    // t_sml, where the inexact s - r^2 in sqrt_pair adds <= q / (4 r) * s_sml^-1 <= q / 4.
    constexpr T unscale = T(1) / s_sml;
    ssq_band<T> acc = sml;
    acc.merge(med.scaled(s_sml, s_sml));
    return mul_rn(sqrt_pair(acc.s, acc.c), unscale);
  }

private:
  TCR_HD void add_rare(T ax) {
    using namespace detail;
    if (!(ax <= t_big)) {
      if (is_finite(ax)) {
        big.add_square(mul_rn(ax, s_big));
      } else {
        big.s = add_rn(big.s, ax); // Inf or NaN: +inf, or NaN, from here on
      }
    } else if (ax > T(0)) {
      sml.add_square(mul_rn(ax, s_sml));
    }
  }
};

} // namespace tcr
