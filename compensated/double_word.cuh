// SPDX-License-Identifier: BSD-3-Clause
// tcr: double-word arithmetic. A double_word<T> is the unevaluated sum hi + lo of two T with
// hi = RN(hi + lo) (normalised), so it carries about twice T's precision with T's exponent range:
//   df32 = double_word<float>   float pair, Mukunoki & Imamura's double-float (2 x 24 bits)
//   dd   = double_word<double>  double pair, as in Bailey's QD (2 x 53 bits)
//
// The algorithms are those analysed by Joldes, Muller & Popescu (ACM TOMS 44(2), 2017; JMP),
// with their proven relative error bounds (u = unit roundoff of T: 2^-24 float, 2^-53 double):
//   add(x, y)          AccurateDWPlusDW (JMP Alg. 6)     3u^2 + 13u^3       (JMP Thm 3.1)
//   add_sloppy(x, y)   SloppyDWPlusDW   (JMP Alg. 5)     same signs only: (3 + u) u^2 / (1 - u)
//                      (opposite signs: relative error up to 1 -- JMP's example; never use it
//                      there)
//   add(x, b)          DWPlusFP         (JMP Alg. 4)     2u^2               (JMP Thm 2.2)
//   mul(x, y)          DWTimesDW3       (JMP Alg. 12)    4u^2 (Muller & Rideau, TOMS 48(1) 2022,
//                                                        Thm 2.8; JMP Thm 5.4 gave 5u^2)
//   mul(x, b)          DWTimesFP3       (JMP Alg. 9)     2u^2               (JMP Thm 4.3)
//   div(x, y)          DWDivDW2         (JMP Alg. 17, DWTimesFP1 at its line 2)
//                                                        15u^2 + 56u^3      (JMP Thm 7.1)
//   div(x, b)          DWDivFP3         (JMP Alg. 15)    3u^2               (JMP Thm 6.2)
//   sqrt(x)            SQRTDWtoDW (Lefevre, Louvet, Muller, Picot & Rideau, TOMS 2023)
//                                                        25/8 u^2
//   fma(x, y, z)       add(mul(x, y), z): |res - (xy + z)| <= 4u^2 |xy| + (3u^2 + 13u^3)
//                      (|xy + z| + 4u^2 |xy|) (the two bounds composed; not one rounding)
// Bounds hold while no intermediate result overflows and no error term falls below the
// subnormals (roughly: results and operands above 2^(e_min + 2p)); Inf / NaN operands give a
// non-finite hi. same-sign add_sloppy derivation: s_h + s_l = x_h + y_h exactly; v = RN(x_l + y_l)
// errs by <= u^2 (x_h + y_h); |s_l + v| <= u (2 + u)(x_h + y_h), so w errs by <= u^2 (2 + u)(...);
// Fast2Sum is exact; and |x + y| >= (1 - u)(x_h + y_h).
//
// Comparisons of normalised pairs are lexicographic on (hi, lo): RN is monotone, so hi < hi'
// implies x <= y, and x == y would force hi == hi'.
// Rounding is pinned (tcr::detail::*_rn), so contraction cannot change any result.
#pragma once

#include <type_traits>
#include "config.cuh"
#include "eft.cuh"

namespace tcr {

template <class T>
struct double_word {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "tcr::double_word<T>: T must be float or double");
  using value_type = T;
  T hi = T(0);
  T lo = T(0);

  double_word() = default;
  TCR_HD constexpr double_word(T h, T l) : hi(h), lo(l) {}
  // Exact: b + 0.
  TCR_HD constexpr explicit double_word(T b) : hi(b), lo(T(0)) {}

  // The pair normalised from any two values (exact: two_sum).
  TCR_HD static double_word from_sum(T a, T b) {
    const auto [s, e] = two_sum(a, b);
    return {s, e};
  }
  // The exact product a * b (two_prod; exact unless it underflows or overflows).
  TCR_HD static double_word from_product(T a, T b) {
    const auto [p, e] = two_prod(a, b);
    return {p, e};
  }

  // RN(hi + lo): the nearest T (normalised pairs: hi itself).
  TCR_HD T to_value() const { return detail::add_rn(hi, lo); }
};

using df32 = double_word<float>;
using dd = double_word<double>;

// df32 from a double: hi = RN_float(d), lo = RN_float(d - hi) (d - hi is exact in double).
// Exact whenever d has at most 48 significant bits (49 when they fit hi and a lo of opposite
// sign), its last bit is >= 2^-149 and |d| < FLT_MAX: every float, every product of two floats
// above 2^-100, every sum of two floats of nearby exponents. Otherwise |d - (hi + lo)| <=
// 2^-48 |d| + 2^-150 (lo rounds once). |d| beyond float's range: hi = +-inf, lo = 0.
TCR_HD df32 to_df32(double d) {
  const float h = static_cast<float>(d);
  if (!detail::is_finite(h))
    return {h, 0.0f};
  const float l = static_cast<float>(detail::sub_rn(d, static_cast<double>(h)));
  return {h, l};
}
// The double nearest to a df32 (one rounding of the exact hi + lo, done in double).
TCR_HD double to_double(const df32& x) {
  return detail::add_rn(static_cast<double>(x.hi), static_cast<double>(x.lo));
}
TCR_HD double to_double(const dd& x) {
  return x.hi;
}

// Negation and absolute value (exact).
template <class T>
TCR_HD double_word<T> operator-(const double_word<T>& x) {
  return {-x.hi, -x.lo};
}
template <class T>
TCR_HD double_word<T> abs(const double_word<T>& x) {
  return x.hi < T(0) ? -x : x;
}

// DWPlusFP (JMP Alg. 4): x + b, relative error <= 2u^2.
template <class T>
TCR_HD double_word<T> add(const double_word<T>& x, T b) {
  using namespace detail;
  const auto [sh, sl] = two_sum(x.hi, b);
  const T v = add_rn(x.lo, sl);
  const auto [zh, zl] = fast_two_sum(sh, v);
  return {zh, zl};
}

// AccurateDWPlusDW (JMP Alg. 6): x + y, relative error <= 3u^2 + 13u^3 for any signs.
template <class T>
TCR_HD double_word<T> add(const double_word<T>& x, const double_word<T>& y) {
  using namespace detail;
  const auto [sh, sl] = two_sum(x.hi, y.hi);
  const auto [th, tl] = two_sum(x.lo, y.lo);
  const T c = add_rn(sl, th);
  const auto [vh, vl] = fast_two_sum(sh, c);
  const T w = add_rn(tl, vl);
  const auto [zh, zl] = fast_two_sum(vh, w);
  return {zh, zl};
}

// SloppyDWPlusDW (JMP Alg. 5): x + y in 11 flops instead of 20. Bounded ((3 + u) u^2 / (1 - u))
// only when x and y have the same sign; with opposite signs the result can be entirely wrong.
template <class T>
TCR_HD double_word<T> add_sloppy(const double_word<T>& x, const double_word<T>& y) {
  using namespace detail;
  const auto [sh, sl] = two_sum(x.hi, y.hi);
  const T v = add_rn(x.lo, y.lo);
  const T w = add_rn(sl, v);
  const auto [zh, zl] = fast_two_sum(sh, w);
  return {zh, zl};
}

template <class T>
TCR_HD double_word<T> sub(const double_word<T>& x, const double_word<T>& y) {
  return add(x, -y);
}
template <class T>
TCR_HD double_word<T> sub(const double_word<T>& x, T b) {
  return add(x, -b);
}

// DWTimesFP3 (JMP Alg. 9): x * b, relative error <= 2u^2.
template <class T>
TCR_HD double_word<T> mul(const double_word<T>& x, T b) {
  using namespace detail;
  const auto [ch, cl1] = two_prod(x.hi, b);
  const T cl3 = fma_rn(x.lo, b, cl1);
  const auto [zh, zl] = fast_two_sum(ch, cl3);
  return {zh, zl};
}

// DWTimesDW3 (JMP Alg. 12): x * y, relative error <= 4u^2.
template <class T>
TCR_HD double_word<T> mul(const double_word<T>& x, const double_word<T>& y) {
  using namespace detail;
  const auto [ch, cl1] = two_prod(x.hi, y.hi);
  const T tl0 = mul_rn(x.lo, y.lo);
  const T tl1 = fma_rn(x.hi, y.lo, tl0);
  const T cl2 = fma_rn(x.lo, y.hi, tl1);
  const T cl3 = add_rn(cl1, cl2);
  const auto [zh, zl] = fast_two_sum(ch, cl3);
  return {zh, zl};
}

// x * y + z as mul then add (bound in the header comment).
template <class T>
TCR_HD double_word<T> fma(const double_word<T>& x, const double_word<T>& y,
                          const double_word<T>& z) {
  return add(mul(x, y), z);
}

namespace detail {
// DWTimesFP1 (JMP Alg. 7): x * b, relative error <= 1.5u^2 + 4u^3; used inside DWDivDW2.
template <class T>
TCR_HD double_word<T> mul_fp1(const double_word<T>& x, T b) {
  const auto [ch, cl1] = two_prod(x.hi, b);
  const T cl2 = mul_rn(x.lo, b);
  const auto [th, tl1] = fast_two_sum(ch, cl2);
  const T tl2 = add_rn(tl1, cl1);
  const auto [zh, zl] = fast_two_sum(th, tl2);
  return {zh, zl};
}
} // namespace detail

// DWDivFP3 (JMP Alg. 15): x / b, relative error <= 3u^2.
template <class T>
TCR_HD double_word<T> div(const double_word<T>& x, T b) {
  using namespace detail;
  const T th = div_rn(x.hi, b);
  const auto [ph, pl] = two_prod(th, b);
  const T dh = sub_rn(x.hi, ph);
  const T dt = sub_rn(dh, pl);
  const T d = add_rn(dt, x.lo);
  const T tl = div_rn(d, b);
  const auto [zh, zl] = fast_two_sum(th, tl);
  return {zh, zl};
}

// DWDivDW2 (JMP Alg. 17): x / y, relative error <= 15u^2 + 56u^3.
template <class T>
TCR_HD double_word<T> div(const double_word<T>& x, const double_word<T>& y) {
  using namespace detail;
  const T th = div_rn(x.hi, y.hi);
  const double_word<T> r = mul_fp1(y, th);
  const T ph = sub_rn(x.hi, r.hi);
  const T dl = sub_rn(x.lo, r.lo);
  const T d = add_rn(ph, dl);
  const T tl = div_rn(d, y.hi);
  const auto [zh, zl] = fast_two_sum(th, tl);
  return {zh, zl};
}

// SQRTDWtoDW: sqrt(x) for x >= 0, relative error <= 25/8 u^2; sqrt(0) = 0, x < 0 gives NaN.
template <class T>
TCR_HD double_word<T> sqrt(const double_word<T>& x) {
  using namespace detail;
  if (!(x.hi > T(0)))
    return double_word<T>(sqrt_rn(x.hi));
  const T sh = sqrt_rn(x.hi);
  const T r1 = fma_rn(-sh, sh, x.hi); // exact (x.hi - sh^2 is representable)
  const T r2 = add_rn(x.lo, r1);
  const T sl = div_rn(r2, add_rn(sh, sh));
  const auto [zh, zl] = fast_two_sum(sh, sl);
  return {zh, zl};
}

// Operators: the accurate algorithms.
template <class T>
TCR_HD double_word<T> operator+(const double_word<T>& x, const double_word<T>& y) {
  return add(x, y);
}
template <class T>
TCR_HD double_word<T> operator-(const double_word<T>& x, const double_word<T>& y) {
  return sub(x, y);
}
template <class T>
TCR_HD double_word<T> operator*(const double_word<T>& x, const double_word<T>& y) {
  return mul(x, y);
}
template <class T>
TCR_HD double_word<T> operator/(const double_word<T>& x, const double_word<T>& y) {
  return div(x, y);
}

// Comparisons of normalised pairs (NaN compares unordered, as for T).
template <class T>
TCR_HD bool operator==(const double_word<T>& x, const double_word<T>& y) {
  return x.hi == y.hi && x.lo == y.lo;
}
template <class T>
TCR_HD bool operator!=(const double_word<T>& x, const double_word<T>& y) {
  return !(x == y);
}
template <class T>
TCR_HD bool operator<(const double_word<T>& x, const double_word<T>& y) {
  return x.hi < y.hi || (x.hi == y.hi && x.lo < y.lo);
}
template <class T>
TCR_HD bool operator>(const double_word<T>& x, const double_word<T>& y) {
  return y < x;
}
template <class T>
TCR_HD bool operator<=(const double_word<T>& x, const double_word<T>& y) {
  return x.hi < y.hi || (x.hi == y.hi && x.lo <= y.lo);
}
template <class T>
TCR_HD bool operator>=(const double_word<T>& x, const double_word<T>& y) {
  return y <= x;
}

} // namespace tcr
