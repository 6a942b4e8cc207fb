// SPDX-License-Identifier: BSD-3-Clause
// tcr: chunked accumulators for long reductions (thread level, no parallel code).
//
// A device-wide reduction gives each thread thousands of elements; Sum2 in the working
// precision over such a chain has the bound gamma_m^2 S, vacuous in f32 once m >= 2^12 or so.
// These accumulators keep the working-precision part short and the long part wide:
//
//   chunked_sum<float>   result float. Short f32 Sum2 chains (L <= 8 elements, one 16-byte
//                        vector) whose (s, c) pairs are folded into a Neumaier accumulator in
//                        double. Error of a whole reduction (h: the height of the tree of
//                        folds and merges, h <= 2^16): the chains leave gamma_{L-1}^2 S; comp
//                        sums the chains' c (together <= 2^-21 S) and the fold errors
//                        (<= h 2^-53 S) with an error <= h 2^-53 of that, so
//                          |value() - s| <= u_d |s| + (gamma_{L-1}^2 + 2^-57) S
//                        with gamma_7^2 < 2^-42.3 for L <= 8, so result() (rounded to float)
//                        meets |res - s| <= 2u|s| + 2^-40 S, u = 2^-24.
//   chunked_sum<double>  result double. Every chunk is folded into a cascade of three doubles
//                        (hi, lo, lolo) whose two upper levels are error-free; only lolo rounds,
//                        and what reaches it is <= 2h(h + 3) u^2 S, so its error is O(h^3 u^3) S;
//                        with the Sum2 chain of L <= 4 (gamma_3^2 S) |value() - s| <= u|s| +
//                        2^-100 S for h <= 2^16 (u = 2^-53). A second, scaled cascade (values
//                        times 2^-64) takes over where the plain one would overflow, so finite
//                        data with a finite sum never give Inf or NaN.
//   chunked_dot_double   dot product of doubles: chunked_sum<double> of two_prod pairs, plus
//                        cascades scaled by 2^-1100 (products beyond DBL_MAX) and 2^1200 (chunks
//                        of products below 2^-900), so no overflow and no underflow loss.
//   chunked_ssq_double   sum of squares of doubles for nrm2, Blue's three bands with the
//                        thresholds and scales of ssq<double> (compensated/ssq.cuh), each band a
//                        cascade fed with exact squares (two_prod): no overflow or underflow for
//                        any finite input; nrm2() has relative error <= u + 2^-100.
//
// Special values: once an input is Inf or NaN the result is what plain summation gives (+inf
// stays +inf, inf + -inf is NaN, NaN propagates); an overflow of an intermediate never yields NaN.
// Zeros: the empty sums hold -0, the identity of IEEE addition, and a pair whose low part is 0
// rounds to its high part, so a sum of -0 terms is -0 as in plain summation (exact_band_sums_e5m2
// alone returns +0 for -0 terms: its split x = r + 2t makes r = -1, t = 1/2 of each zero).
// Every rounding step is an `_rn` helper, so contraction cannot merge steps.
#pragma once

#include <cstdint>
#include <cstring>
#include "accumulators.cuh"
#include "double_word.cuh"
#include "eft.cuh"
#include "ssq.cuh"

namespace tcr {

namespace detail {
// Clamp to [0, 1]; NaN -> 0 (as the hardware's .sat modifier).
TCR_HD float saturate(float v) {
#if defined(__CUDA_ARCH__)
  return __saturatef(v);
#else
  return v > 0.0f ? (v < 1.0f ? v : 1.0f) : 0.0f;
#endif
}
} // namespace detail

// sum2_chain(x): the unrounded Sum2 of a short chain, {s, c} with s the recursive sum and c the
// sum of its rounding errors (both in T): |s + c - sum x| <= gamma_{L-1}^2 sum|x| (Ogita, Rump,
// Oishi 2005, Prop. 4.5, without the final rounding), as long as s does not overflow.
template <class T, int L>
TCR_HD eft<T> sum2_chain(const T (&x)[L]) {
  using namespace detail;
  if constexpr (L == 1) {
    return {x[0], T(0)};
  } else {
    auto [s, c] = two_sum(x[0], x[1]);
    TCR_UNROLL
    for (int i = 2; i < L; ++i) {
      const auto [t, e] = two_sum(s, x[i]);
      s = t;
      c = add_rn(c, e);
    }
    return {s, c};
  }
}

// exact_sum_e4m3(x): the exact sum of L <= 64 floats that are each an e4m3 value. Why plain f32
// addition is exact: e4m3 values are multiples of 2^-9 (the smallest subnormal) of magnitude
// <= 448, so every partial sum is k * 2^-9 with |k| <= 64 * 448 * 2^9 < 2^24: a float. NaN
// propagates.
template <int L>
TCR_HD float exact_sum_e4m3(const float (&x)[L]) {
  static_assert(L >= 1 && L <= 64, "exact_sum_e4m3: at most 64 values");
  float s = x[0];
  TCR_UNROLL
  for (int i = 1; i < L; ++i)
    s = detail::add_rn(s, x[i]);
  return s;
}

// exact_band_sums_e5m2(x): {a, b} with a + b the exact sum of L <= 64 floats that are each an
// e5m2 value, a and b computed exactly in f32. e5m2 values are multiples of 2^-16 of magnitude
// <= 57344 < 2^16: a 32-bit span, too wide for one f32 sum. Each x is split exactly as
// x = r + 2t with t = sat(x/2 + 1/2) and r = x - 2t:
//   |x| <= 1: t = (x + 1)/2, a multiple of 2^-17 in [0, 1] (fma exact), r = -1;
//   x > 1:    t = 1, r = x - 2;  x < -1: t = 0, r = x  (x a multiple of 1/4 once |x| >= 1).
// So every r is a multiple of 1/4 below 2^16 and every t a multiple of 2^-17 in [0, 1]: the
// partial sums of r are below 64 * 2^16 * 4 = 2^24 quarters and those of t below 64 * 2^17 =
// 2^23 units of 2^-17, all floats. a = sum r, b = 2 sum t. Inf gives t in {0, 1}, r = +-inf;
// NaN gives t = 0 (saturation sends NaN to 0), r = NaN: the sum a + b is then the IEEE one.
template <int L>
TCR_HD eft<float> exact_band_sums_e5m2(const float (&x)[L]) {
  static_assert(L >= 1 && L <= 64, "exact_band_sums_e5m2: at most 64 values");
  using namespace detail;
  float b = saturate(fma_rn(x[0], 0.5f, 0.5f));
  float a = fma_rn(-2.0f, b, x[0]);
  TCR_UNROLL
  for (int i = 1; i < L; ++i) {
    const float t = saturate(fma_rn(x[i], 0.5f, 0.5f));
    a = add_rn(a, fma_rn(-2.0f, t, x[i]));
    b = add_rn(b, t);
  }
  return {a, mul_rn(2.0f, b)};
}

namespace detail {

template <class T>
TCR_HD bool all_finite(const T* x, int n) {
  bool ok = true;
  for (int i = 0; i < n; ++i)
    ok = ok && is_finite(x[i]);
  return ok;
}

// fl(h + l), and h itself when l is 0 (so that -0 + 0 keeps the sign of h).
template <class T>
TCR_HD T round_pair(T h, T l) {
  return l == T(0) ? h : add_rn(h, l);
}

// A cascade of three doubles: the value is hi + lo + lolo. add2 and merge are error-free in hi
// and lo (two_sum); only lolo's own additions round, and what reaches lolo is at most
// (2 m u)^2 of the magnitudes added (m additions so far), so the error is O(m^3 u^3) S.
struct cascade3 {
  double hi = -0.0;
  double lo = 0.0;
  double lolo = 0.0;

  // Adds s + c (c may be any size relative to s; both finite and hi + s finite).
  TCR_HD void add2(double s, double c) {
    const auto [h, e1] = two_sum(hi, s);
    const auto [l1, e2] = two_sum(lo, e1);
    const auto [l2, e3] = two_sum(l1, c);
    hi = h;
    lo = l2;
    lolo = add_rn(lolo, add_rn(e2, e3));
  }
  TCR_HD void merge(const cascade3& o) {
    const auto [h, e1] = two_sum(hi, o.hi);
    const auto [l1, e2] = two_sum(lo, o.lo);
    const auto [l2, e3] = two_sum(l1, e1);
    hi = h;
    lo = l2;
    lolo = add_rn(add_rn(lolo, o.lolo), add_rn(e2, e3));
  }
  // The value as a normalised pair {h, l}: h = fl(value) up to one rounding of l, |l| <= ulp(h).
  TCR_HD eft<double> pair() const {
    if (lo == 0.0 && lolo == 0.0)
      return {hi, 0.0};
    const auto [h, l] = two_sum(hi, lo);
    const double l2 = add_rn(l, lolo);
    return fast_two_sum(h, l2);
  }
  TCR_HD bool is_zero() const { return hi == 0.0 && lo == 0.0 && lolo == 0.0; }
  // Every component times 2^k (exact unless a component leaves the normal range; the loss is
  // then below 2^-1074 per component).
  TCR_HD cascade3 scaled(double two_k) const {
    cascade3 r;
    r.hi = mul_rn(hi, two_k);
    r.lo = mul_rn(lo, two_k);
    r.lolo = mul_rn(lolo, two_k);
    return r;
  }
};

inline constexpr double two_m64 = 5.421010862427522e-20;  // 2^-64
inline constexpr double two_p64 = 18446744073709551616.0; // 2^64
inline constexpr double two_m958 = 0x1p-958;              // x * 2^-64 exact above this

} // namespace detail

template <class Result>
struct chunked_sum;

// Result float: see the header comment for the bound. State: Neumaier in double.
template <>
struct chunked_sum<float> {
  using value_type = float;
  double sum = -0.0;
  double comp = 0.0;

  // One term, added error-free (two_sum) to sum.
  TCR_HD void add(double x) {
    using namespace detail;
    const auto [s, e] = two_sum(sum, x);
    sum = s;
    comp = add_rn(comp, e);
  }
  // A pair s + c with |c| <= gamma |s| of a short chain: s error-free, c into comp.
  TCR_HD void add_pair(double s, double c) {
    using namespace detail;
    add(s);
    comp = add_rn(comp, c);
  }

  // A chunk of L <= 8 floats: f32 Sum2 chain, then the fold. If the chain's sum is not finite
  // (an Inf/NaN input, or an overflow near FLT_MAX) the chunk is summed again in double, which
  // cannot overflow and gives IEEE results for Inf/NaN inputs (rare path).
  template <int L>
  TCR_HD void add_chunk(const float (&x)[L]) {
    using namespace detail;
    static_assert(L >= 1 && L <= 8, "chunks of at most 8 floats keep gamma_{L-1}^2 <= 2^-42.3");
    const auto [s, c] = sum2_chain(x);
    if (is_finite(s)) {
      add_pair(static_cast<double>(s), static_cast<double>(c));
    } else {
      add(plain_sum(x));
    }
  }

  // sum x_i * y_i over a chunk of floats: each product is exact in double (24 + 24 bits, and
  // 2^-298 <= |x y| <= 2^256), the chunk is summed by fma in double (error <= (L-1) u_d S_chunk,
  // L <= 16), then added error-free.
  template <int L>
  TCR_HD void add_dot_chunk(const float (&x)[L], const float (&y)[L]) {
    using namespace detail;
    double d = mul_rn(static_cast<double>(x[0]), static_cast<double>(y[0]));
    TCR_UNROLL
    for (int i = 1; i < L; ++i)
      d = fma_rn(static_cast<double>(x[i]), static_cast<double>(y[i]), d);
    add(d);
  }
  // sum x_i^2 over a chunk of floats, as add_dot_chunk(x, x).
  template <int L>
  TCR_HD void add_ssq_chunk(const float (&x)[L]) {
    add_dot_chunk(x, x);
  }
  // sum x_i^2 for values of at most 12 significant bits (bfloat16: 8), squared in float: a
  // normal square is exact, a subnormal one errs by <= 2^-150, which a chunk sum s >= 2^-100
  // makes relative: <= L 2^-150 <= 2^-47 s. Chunks with a smaller nonzero sum (tiny data) or a
  // non-finite one (huge data, Inf, NaN) are redone in double (rare path); all-zero chunks add 0.
  template <int L>
  TCR_HD void add_ssq_chunk_short(const float (&x)[L]) {
    using namespace detail;
    float p[L];
    TCR_UNROLL
    for (int i = 0; i < L; ++i)
      p[i] = mul_rn(x[i], x[i]);
    const auto [s, c] = sum2_chain(p);
    if (is_finite(s) && s >= 0x1p-100f) {
      add_pair(static_cast<double>(s), static_cast<double>(c));
    } else {
      bool any = false;
      for (int i = 0; i < L; ++i)
        any = any || x[i] != 0.0f;
      if (any)
        add_ssq_chunk(x);
    }
  }
  // sum x_i * y_i where every product is exact in float (e.g. both from {half, e4m3, e5m2}:
  // at most 22 significant bits, 2^-48 <= |x y| <= 2^32). Precondition, not checked.
  template <int L>
  TCR_HD void add_exact_products_chunk(const float (&x)[L], const float (&y)[L]) {
    using namespace detail;
    float p[L];
    TCR_UNROLL
    for (int i = 0; i < L; ++i)
      p[i] = mul_rn(x[i], y[i]);
    add_chunk(p);
  }

  TCR_HD void merge(const chunked_sum& o) {
    using namespace detail;
    const auto [s, e] = two_sum(sum, o.sum);
    sum = s;
    comp = add_rn(add_rn(comp, o.comp), e);
  }
  // The sum rounded to double (|value - s| <= u_d |s| + the bound's S term).
  TCR_HD double value() const {
    using namespace detail;
    return is_finite(sum) ? round_pair(sum, comp) : sum;
  }
  // The unevaluated pair {hi, lo}, normalised (for double-word results).
  TCR_HD eft<double> pair() const {
    using namespace detail;
    if (!is_finite(sum) || comp == 0.0)
      return {sum, 0.0};
    return two_sum(sum, comp);
  }
  TCR_HD float result() const { return static_cast<float>(value()); }

private:
  template <int L>
  TCR_HD static double plain_sum(const float (&x)[L]) {
    using namespace detail;
    double d = static_cast<double>(x[0]);
    TCR_UNROLL
    for (int i = 1; i < L; ++i)
      d = add_rn(d, static_cast<double>(x[i]));
    return d;
  }
};

// Result double: a three-level cascade, plus a scaled one for sums near DBL_MAX.
template <>
struct chunked_sum<double> {
  using value_type = double;
  detail::cascade3 plain; // values as they are
  detail::cascade3 big;   // values times 2^-64 (only where plain would overflow)

  // A chunk of L <= 4 doubles: Sum2 chain (exact for L = 2), then the cascade. Rare paths:
  // Inf/NaN inputs (plain summation into hi), and overflow (the chunk's large elements go to
  // the scaled cascade).
  template <int L>
  TCR_HD void add_chunk(const double (&x)[L]) {
    using namespace detail;
    static_assert(L >= 1 && L <= 4, "chunks of at most 4 doubles");
    const auto [s, c] = sum2_chain(x);
    if (is_finite(s) && is_finite(add_rn(plain.hi, s))) {
      plain.add2(s, c);
    } else {
      add_rare(x, L);
    }
  }
  TCR_HD void add(double x) {
    const double one[1] = {x};
    add_chunk(one);
  }

  TCR_HD void merge(const chunked_sum& o) {
    using namespace detail;
    big.merge(o.big);
    if (!is_finite(plain.hi) || !is_finite(o.plain.hi)) {
      plain.hi = add_rn(plain.hi, o.plain.hi); // Inf/NaN: as plain summation
      return;
    }
    if (is_finite(add_rn(plain.hi, o.plain.hi))) {
      plain.merge(o.plain);
    } else {
      spill();
      big.merge(o.plain.scaled(two_m64));
    }
  }

  // The normalised pair {h, l} with h + l the sum (h = fl(sum) up to a rounding of l).
  TCR_HD eft<double> pair() const {
    using namespace detail;
    if (!is_finite(plain.hi))
      return {plain.hi, 0.0};
    if (big.is_zero())
      return plain.pair();
    cascade3 t = big;
    t.merge(plain.scaled(two_m64)); // plain < 2^1024 * 2^-64: no overflow
    const auto [h, l] = t.pair();
    const double hs = mul_rn(h, two_p64); // may overflow: then the sum itself does
    if (!is_finite(hs))
      return {hs, 0.0};
    return {hs, mul_rn(l, two_p64)};
  }
  TCR_HD double value() const {
    using namespace detail;
    const auto [h, l] = pair();
    return is_finite(h) ? round_pair(h, l) : h;
  }
  TCR_HD double result() const { return value(); }

  // Rare paths, public for chunked_dot_double.
  TCR_HD void add_rare(const double* x, int n) {
    using namespace detail;
    if (!all_finite(x, n)) {
      double d = plain.hi;
      for (int i = 0; i < n; ++i)
        d = add_rn(d, x[i]);
      plain.hi = d; // Inf or NaN from here on
      return;
    }
    for (int i = 0; i < n; ++i)
      add_one_finite(x[i], 0.0);
  }
  // x + e, both finite, |e| <= ulp(x) (or e = 0): large x go to the scaled cascade.
  TCR_HD void add_one_finite(double x, double e) {
    using namespace detail;
    if (abs(x) < two_m958) {
      if (!is_finite(add_rn(plain.hi, x)))
        spill();
      plain.add2(x, e); // e <= ulp(x): adds below 2^-958 never overflow a spilled plain
    } else {
      big.add2(mul_rn(x, two_m64), mul_rn(e, two_m64)); // e scaled may lose < 2^-1074
    }
  }
  // Moves plain into big (plain is then zero).
  TCR_HD void spill() {
    big.merge(plain.scaled(detail::two_m64));
    plain = detail::cascade3{};
  }
  TCR_HD bool is_zero() const { return plain.is_zero() && big.is_zero(); }
  // The cascade every ordinary input goes to, and whether nothing is anywhere else.
  TCR_HD detail::cascade3& common() { return plain; }
  TCR_HD const detail::cascade3& common() const { return plain; }
  TCR_HD bool only_common() const { return big.is_zero(); }
};

namespace detail {
TCR_HD int biased_exponent(double x) {
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return static_cast<int>((bits >> 52) & 0x7ff);
}
} // namespace detail

// Dot product of doubles, result double: chunked_sum<double> for the products, plus two scaled
// cascades so that no finite data give a spurious Inf, NaN or underflow loss:
//   huge  products with |x y| > DBL_MAX, as (x 2^-550)(y 2^-550): units of 2^1100. Both factors
//         are >= 1 then (each is <= DBL_MAX), so the scaled factors are normal and two_prod exact.
//   tiny  chunks whose products all lie below 2^-900, as (x 2^600)(y 2^600): units of 2^-1200.
//         Scaled factors are >= 2^-474, products >= 2^-948: two_prod's error term is exact.
// Every other product is exact by two_prod (|x y| >= 2^-900 > 2^-969), except products below
// 2^-969 in a chunk with a product above 2^-900, whose error terms (< 2^-1075 each) are then
// negligible against S >= 2^-900. Bound: |res - s| <= u|s| + 2^-100 S (+ the representation
// limit 2^-1075 when s is subnormal).
struct chunked_dot_double {
  chunked_sum<double> main;
  detail::cascade3 huge; // units of 2^1100
  detail::cascade3 tiny; // units of 2^-1200

  template <int L>
  TCR_HD void add_dot_chunk(const double (&x)[L], const double (&y)[L]) {
    using namespace detail;
    static_assert(L >= 1 && L <= 4, "chunks of at most 4 doubles");
    double p[L], e[L];
    int max_exp = 0;
    TCR_UNROLL
    for (int i = 0; i < L; ++i) {
      const auto [pi, ei] = two_prod(x[i], y[i]);
      p[i] = pi;
      e[i] = ei;
      const int be = biased_exponent(pi);
      max_exp = be > max_exp ? be : max_exp;
    }
    auto [s, c] = sum2_chain(p);
    TCR_UNROLL
    for (int i = 0; i < L; ++i)
      c = add_rn(c, e[i]);
    if (max_exp >= 1023 - 900 && is_finite(s) && is_finite(c) &&
        is_finite(add_rn(main.plain.hi, s))) {
      main.plain.add2(s, c);
    } else {
      for (int i = 0; i < L; ++i)
        add_product_rare(x[i], y[i], max_exp < 1023 - 900);
    }
  }

  TCR_HD void merge(const chunked_dot_double& o) {
    main.merge(o.main);
    huge.merge(o.huge);
    tiny.merge(o.tiny);
  }
  TCR_HD detail::cascade3& common() { return main.plain; }
  TCR_HD const detail::cascade3& common() const { return main.plain; }
  TCR_HD bool only_common() const { return main.big.is_zero() && huge.is_zero() && tiny.is_zero(); }

  TCR_HD eft<double> pair() const {
    using namespace detail;
    if (!is_finite(main.plain.hi))
      return {main.plain.hi, 0.0};
    if (!huge.is_zero()) {
      // S >= 2^1024 here: everything below 2^26 (2^-1074 units) is negligible; tiny is ignored.
      cascade3 t = huge;
      t.merge(main.plain.scaled(0x1p-550).scaled(0x1p-550));
      t.merge(main.big.scaled(0x1p-518).scaled(0x1p-518)); // 2^64 units -> 2^1100 units
      const auto [h, l] = t.pair();
      const double hs = mul_rn(mul_rn(h, 0x1p550), 0x1p550);
      if (!is_finite(hs))
        return {hs, 0.0};
      return {hs, mul_rn(mul_rn(l, 0x1p550), 0x1p550)};
    }
    if (!tiny.is_zero()) {
      if (main.is_zero()) {
        const auto [h, l] = tiny.pair();
        const double v = mul_rn(mul_rn(add_rn(h, l), 0x1p-600), 0x1p-600); // one rounding
        return {v, 0.0}; // (a result below 2^-1022 rounds to the subnormal grid)
      }
      chunked_sum<double> m = main;
      m.plain.merge(tiny.scaled(0x1p-600).scaled(0x1p-600)); // lost parts < 2^-1074
      return m.pair();
    }
    return main.pair();
  }
  TCR_HD double value() const {
    using namespace detail;
    const auto [h, l] = pair();
    return is_finite(h) ? round_pair(h, l) : h;
  }
  TCR_HD double result() const { return value(); }

private:
  TCR_HD void add_product_rare(double x, double y, bool all_tiny) {
    using namespace detail;
    if (!is_finite(x) || !is_finite(y)) {
      main.plain.hi = add_rn(main.plain.hi, mul_rn(x, y)); // Inf or NaN, as plain summation
      return;
    }
    if (x == 0.0 || y == 0.0)
      return;
    if (all_tiny) {
      const auto [p, e] = two_prod(mul_rn(x, 0x1p600), mul_rn(y, 0x1p600));
      tiny.add2(p, e);
      return;
    }
    const auto [p, e] = two_prod(x, y);
    if (is_finite(p)) {
      main.add_one_finite(p, e);
      return;
    }
    const auto [ps, es] = two_prod(mul_rn(x, 0x1p-550), mul_rn(y, 0x1p-550));
    huge.add2(ps, es);
  }
};

// Sum of squares of doubles with Blue's bands, for nrm2: the thresholds and scales of
// ssq<double> (detail::ssq_traits<double>, whose static_asserts check the proof), each band a
// cascade of exact squares (two_prod):
//   mid    2^ts <= |x| < 2^(tb + 1) (and x = 0): x^2 in [2^-970, 2^976), exact by two_prod (its
//          error term is a multiple of 2^-1074), and n < 2^46 of them cannot overflow;
//   big    |x| >= 2^(tb + 1): (x s_big)^2, units of s_big^-2 = 2^1076;
//   small  |x| < 2^ts: (x s_sml)^2, units of s_sml^-2 = 2^-1074; both exact (see ssq_traits).
// No overflow or underflow for any finite input. nrm2(): relative error <= u + 2^-100 (the
// cascades' O(h^3 u^3), the parts lost when a lower band is scaled into a higher one, at most
// 3 * 2^-1075 against a band of at least 2^-970, i.e. 2^-103.4 of the sum of squares, and
// detail::sqrt_pair's u + 5u^2).
struct chunked_ssq_double {
  using traits = detail::ssq_traits<double>;
  static constexpr double s_big = detail::exp2i<double>(traits::sb);
  static constexpr double s_sml = detail::exp2i<double>(traits::ss);
  static constexpr double t_big = detail::exp2i<double>(traits::tb + 1);
  static constexpr double t_sml = detail::exp2i<double>(traits::ts);

  detail::cascade3 mid;   // x^2 for t_sml <= |x| < t_big (and x = 0)
  detail::cascade3 big;   // (x s_big)^2 for |x| >= t_big
  detail::cascade3 small; // (x s_sml)^2 for |x| < t_sml
  double special = 0.0;   // Inf/NaN inputs: +inf, or NaN

  template <int L>
  TCR_HD void add_chunk(const double (&x)[L]) {
    using namespace detail;
    bool in_mid = true;
    TCR_UNROLL
    for (int i = 0; i < L; ++i)
      in_mid = in_mid && mid_band(x[i]);
    if (in_mid) {
      double p[L], e[L];
      TCR_UNROLL
      for (int i = 0; i < L; ++i) {
        const auto [pi, ei] = two_prod(x[i], x[i]);
        p[i] = pi;
        e[i] = ei;
      }
      auto [s, c] = sum2_chain(p);
      TCR_UNROLL
      for (int i = 0; i < L; ++i)
        c = add_rn(c, e[i]);
      mid.add2(s, c);
    } else {
      for (int i = 0; i < L; ++i)
        add_rare(x[i]);
    }
  }
  TCR_HD void merge(const chunked_ssq_double& o) {
    using namespace detail;
    mid.merge(o.mid);
    big.merge(o.big);
    small.merge(o.small);
    special = add_rn(special, o.special);
  }
  TCR_HD detail::cascade3& common() { return mid; }
  TCR_HD const detail::cascade3& common() const { return mid; }
  TCR_HD bool only_common() const { return big.is_zero() && small.is_zero() && special == 0.0; }
  // sqrt(sum x^2) rounded to double; relative error <= u + 2^-100.
  TCR_HD double nrm2() const {
    if (special != 0.0)
      return special; // +inf, or NaN
    const auto [v, scale] = folded();
    return detail::mul_rn(detail::sqrt_pair(v.value, v.error), scale);
  }
  // The same as an unevaluated pair (for dd results): the double-word square root (relative
  // error 25/8 u^2) of the folded pair, scaled back; relative error <= 2^-100 while the norm is
  // a normal double.
  TCR_HD dd nrm2_pair() const {
    using namespace detail;
    if (special != 0.0)
      return dd(special);
    const auto [v, scale] = folded();
    if (v.value <= 0.0)
      return dd(0.0);
    const dd r = tcr::sqrt(dd(v.value, v.error));
    const double h = mul_rn(r.hi, scale);
    return is_finite(h) ? dd(h, mul_rn(r.lo, scale)) : dd(h);
  }

private:
  struct folded_pair {
    eft<double> value; // the sum of squares in units of scale^-2
    double scale;      // the norm is sqrt(value) * scale
  };
  // The bands folded into the highest nonzero one.
  TCR_HD folded_pair folded() const {
    if (!big.is_zero()) {
      detail::cascade3 t = big;
      t.merge(mid.scaled(s_big).scaled(s_big));
      return {t.pair(), 1.0 / s_big};
    }
    if (!mid.is_zero()) {
      detail::cascade3 t = mid;
      t.merge(small.scaled(1.0 / s_sml).scaled(1.0 / s_sml));
      return {t.pair(), 1.0};
    }
    return {small.pair(), 1.0 / s_sml};
  }
  // t_sml <= |x| < t_big, or x == 0, decided on the exponent bits (integer pipe).
  TCR_HD static bool mid_band(double x) {
    std::uint64_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    const std::uint64_t biased = (bits >> 52) & 0x7ff;
    return biased - (1023 + traits::ts) <= std::uint64_t(traits::tb - traits::ts) ||
           (bits << 1) == 0;
  }
  TCR_HD void add_rare(double x) {
    using namespace detail;
    const double a = abs(x);
    if (!is_finite(x)) {
      special = add_rn(special, mul_rn(x, x)); // +inf, or NaN
    } else if (a >= t_big) {
      const auto [p, e] = two_prod(mul_rn(x, s_big), mul_rn(x, s_big));
      big.add2(p, e);
    } else if (a < t_sml) {
      const auto [p, e] = two_prod(mul_rn(x, s_sml), mul_rn(x, s_sml));
      small.add2(p, e);
    } else {
      const auto [p, e] = two_prod(x, x);
      mid.add2(p, e);
    }
  }
};

} // namespace tcr
