// SPDX-License-Identifier: BSD-3-Clause
// tcr tests: the exact reference for rounding to half, bfloat16, float and double (narrow.cuh and
// the accumulators' results), written from the definition of RN with MPFR's exact arithmetic: no
// bit tricks in common with compensated/narrow.cuh.
#pragma once

#include <mpfr.h>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include "support/mpfr_ref.hpp"

namespace tcr::test {

// p significant bits, smallest and largest normal exponents.
struct format_desc {
  int p, emin, emax;
};
template <class T>
constexpr format_desc format_of() {
  if constexpr (std::is_same_v<T, __half>)
    return {11, -14, 15};
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return {8, -126, 127};
  else if constexpr (std::is_same_v<T, float>)
    return {24, -126, 127};
  else
    return {53, -1022, 1023};
}

// The value of a result as a double (exact for all four types).
template <class T>
double as_double(T v) {
  if constexpr (std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>)
    return double(float(v));
  else
    return double(v);
}

// RN_T(x) of an exact MPFR value, as a double (+-inf beyond the range, signed zeros):
// a = |x| in [2^E, 2^(E+1)), last place 2^q with q = max(E, emin) - (p - 1); k = a / 2^q split
// into floor and fraction, the fraction compared with 1/2 (ties to an even k).
template <class T>
double reference_round(const mp& x) {
  constexpr format_desc f = format_of<T>();
  if (mpfr_nan_p(x.get()))
    return std::numeric_limits<double>::quiet_NaN();
  const bool neg = mpfr_signbit(x.get()) != 0;
  if (mpfr_inf_p(x.get()))
    return neg ? -HUGE_VAL : HUGE_VAL;
  if (mpfr_zero_p(x.get()))
    return neg ? -0.0 : 0.0;
  const mpfr_prec_t prec = mpfr_get_prec(x.get()) + 64;
  mp a(prec), k(prec), fl(prec), fr(prec);
  mpfr_abs(a.get(), x.get(), MPFR_RNDN);
  const long E = long(mpfr_get_exp(a.get())) - 1; // MPFR: a = 0.1xxx * 2^exp
  const long q = (E > f.emin ? E : f.emin) - (f.p - 1);
  mpfr_div_2si(k.get(), a.get(), q, MPFR_RNDN); // exact
  mpfr_floor(fl.get(), k.get());
  mpfr_sub(fr.get(), k.get(), fl.get(), MPFR_RNDN); // exact, in [0, 1)
  const int c = mpfr_cmp_d(fr.get(), 0.5);
  const bool odd = mpfr_fits_ulong_p(fl.get(), MPFR_RNDN) && (mpfr_get_ui(fl.get(), MPFR_RNDN) & 1);
  if (c > 0 || (c == 0 && odd))
    mpfr_add_ui(fl.get(), fl.get(), 1, MPFR_RNDN);
  mpfr_mul_2si(fl.get(), fl.get(), q, MPFR_RNDN); // exact
  // Overflow: the rounded magnitude reaches 2^(emax + 1).
  if (mpfr_cmp_si_2exp(fl.get(), 1, f.emax + 1) >= 0)
    return neg ? -HUGE_VAL : HUGE_VAL;
  const double r = mpfr_get_d(fl.get(), MPFR_RNDN); // exact: p <= 53 bits, in double's range
  return neg ? -r : r;
}

// Same value and same sign bit (NaN: both NaN).
inline bool same_double(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

} // namespace tcr::test
