// SPDX-License-Identifier: BSD-3-Clause
// tcr tests of certified results (compensated/certified.cuh), shared by the host cases and the
// device-wide GPU cases: whether a bound covers the exact error, and whether it is as tight as
// compensated/certified.cuh says, both decided exactly with MPFR.
#pragma once

#include <mpfr.h>
#include <cmath>
#include "support/mpfr_ref.hpp"

namespace tcr::test::cert {

// The constants of certified.cuh's tightness claims: bound <= (1 + 2^-15)(u|s| + kS S) + floor
// on the compensated path, bound <= (1 + 2^-21)|value - s| + floor in the exact modes.
inline constexpr double compensated_factor = 1 + 0x1p-15;
inline constexpr double exact_factor = 1 + 0x1p-21;
template <class T>
constexpr double tight_floor() {
  return sizeof(T) == 4 ? 0x1p-148 : 0x1p-1072;
}
template <class T>
constexpr double unit() {
  return sizeof(T) == 4 ? 0x1p-24 : 0x1p-53;
}
template <class T>
constexpr double magnitude_coef() {
  return sizeof(T) == 4 ? 0x1p-42 : 0x1p-99;
}

// |value - s| exactly (value a double; s exact).
inline mp exact_error(double value, const mp& s) {
  mp err(mp::exact_dot_bits + 128);
  mpfr_sub_d(err.get(), s.get(), value, MPFR_RNDN); // exact at this precision
  mpfr_abs(err.get(), err.get(), MPFR_RNDN);
  return err;
}

// True when |value - s| <= bound (a NaN bound covers nothing).
inline bool covers(double value, double bound, const mp& s) {
  if (std::isnan(bound) || std::isnan(value))
    return false;
  if (std::isinf(bound))
    return true;
  return mpfr_cmp_d(exact_error(value, s).get(), bound) <= 0;
}

// True when |value - sqrt(ssq)| <= bound: the root enclosed in [RD, RU] at 1000 bits, and the
// larger distance from value to either end compared (differences exact at 4400 bits).
inline bool covers_norm(double value, double bound, const mp& ssq) {
  if (std::isnan(bound) || std::isnan(value))
    return false;
  if (std::isinf(bound))
    return true;
  mp lo(1000), hi(1000);
  mpfr_sqrt(lo.get(), ssq.get(), MPFR_RNDD);
  mpfr_sqrt(hi.get(), ssq.get(), MPFR_RNDU);
  return mpfr_cmp_d(exact_error(value, lo).get(), bound) <= 0 &&
         mpfr_cmp_d(exact_error(value, hi).get(), bound) <= 0;
}

// True when bound <= factor (rel |s| + coef S) + floor, the right side rounded upward.
inline bool within(double bound, const mp& s, const mp& S, double rel, double coef, double factor,
                   double floor) {
  mp a(mp::exact_dot_bits + 128), b(mp::exact_dot_bits + 128);
  mpfr_abs(a.get(), s.get(), MPFR_RNDU);
  mpfr_mul_d(a.get(), a.get(), rel, MPFR_RNDU);
  mpfr_mul_d(b.get(), S.get(), coef, MPFR_RNDU);
  mpfr_add(a.get(), a.get(), b.get(), MPFR_RNDU);
  mpfr_mul_d(a.get(), a.get(), factor, MPFR_RNDU);
  mpfr_add_d(a.get(), a.get(), floor, MPFR_RNDU);
  return mpfr_cmp_d(a.get(), bound) >= 0;
}

// The compensated path's tightness claim for a T result.
template <class T>
bool tight_compensated(double bound, const mp& s, const mp& S) {
  return within(bound, s, S, unit<T>(), magnitude_coef<T>(), compensated_factor, tight_floor<T>());
}
// The exact modes' claim: bound <= (1 + 2^-21)|value - s| + floor.
template <class T>
bool tight_exact(double value, double bound, const mp& s) {
  const mp zero(0.0, 64);
  return within(bound, exact_error(value, s), zero, 1.0, 0.0, exact_factor, tight_floor<T>());
}

// bound / |value - s| (for messages only; inf where the value is exact).
inline double overestimate(double value, double bound, const mp& s) {
  const double e = mpfr_get_d(exact_error(value, s).get(), MPFR_RNDN);
  return e > 0 ? bound / e : INFINITY;
}

} // namespace tcr::test::cert
