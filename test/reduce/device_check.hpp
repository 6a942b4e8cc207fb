// SPDX-License-Identifier: BSD-3-Clause
// tcr tests for reduce/device.cuh: exact bound checks shared by the host and GPU cases.
#pragma once

#include <mpfr.h>
#include <cmath>
#include <cstdint>
#include <vector>
#include "support/mpfr_ref.hpp"

namespace tcr::test {

// The exact sum, sum of magnitudes, dot and sum |x_i y_i| of data given as doubles.
inline mp exact_abs_sum(const std::vector<double>& x) {
  std::vector<double> a(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    a[i] = std::fabs(x[i]);
  return exact_sum(a);
}
inline mp exact_abs_dot(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<double> a(x.size()), b(y.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    a[i] = std::fabs(x[i]);
  for (std::size_t i = 0; i < y.size(); ++i)
    b[i] = std::fabs(y[i]);
  return exact_dot(a, b);
}

// An exact fixed-point (Kulisch) accumulator for doubles: fast exact references for the large
// sizes, where one MPFR number per element would take gigabytes. Limbs of 32 bits kept in
// int64 with lazy carries (normalised every 2^29 additions).
class kulisch {
public:
  void add(double x) {
    if (x == 0)
      return;
    int e;
    const double m = std::frexp(x, &e);                               // x = m 2^e, 1/2 <= |m| < 1
    std::int64_t mant = static_cast<std::int64_t>(std::ldexp(m, 53)); // exact, |mant| < 2^53
    int p = e - 53 + 1074;                                            // x = mant 2^(p - 1074)
    if (p < 0) { // subnormal: the dropped bits are zero
      mant /= (std::int64_t(1) << -p);
      p = 0;
    }
    const std::int64_t sign = mant < 0 ? -1 : 1;
    const unsigned __int128 v = static_cast<unsigned __int128>(mant < 0 ? -mant : mant) << (p % 32);
    const int q = p / 32;
    limb_[q] += sign * static_cast<std::int64_t>(v & 0xffffffffu);
    limb_[q + 1] += sign * static_cast<std::int64_t>((v >> 32) & 0xffffffffu);
    limb_[q + 2] += sign * static_cast<std::int64_t>(v >> 64);
    if (++adds_ == (1u << 29))
      normalise();
  }
  mp value() {
    normalise();
    mp s(mp::exact_sum_bits + 64);
    mp t(64);
    for (int i = 0; i < limbs; ++i) {
      if (limb_[i] == 0)
        continue;
      mpfr_set_si_2exp(t.get(), static_cast<long>(limb_[i]), 32 * i - 1074, MPFR_RNDN); // exact
      mpfr_add(s.get(), s.get(), t.get(), MPFR_RNDN); // exact at this precision
    }
    return s;
  }

private:
  static constexpr int limbs = 72; // bits 0 .. 2303 above 2^-1074
  void normalise() {
    for (int i = 0; i + 1 < limbs; ++i) {
      const std::int64_t carry = limb_[i] >> 32; // arithmetic shift: floor
      limb_[i] -= carry * (std::int64_t(1) << 32);
      limb_[i + 1] += carry;
    }
    adds_ = 0;
  }
  std::int64_t limb_[limbs] = {};
  unsigned adds_ = 0;
};

// Exact sum / sum of |x| / dot (products must be exact in double: inputs of at most 26 bits).
inline mp fast_exact_sum(const std::vector<double>& x, bool absolute = false) {
  kulisch k;
  for (double v : x)
    k.add(absolute ? std::fabs(v) : v);
  return k.value();
}
inline mp fast_exact_dot(const std::vector<double>& x, const std::vector<double>& y,
                         bool absolute = false) {
  kulisch k;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double p = x[i] * y[i];
    k.add(absolute ? std::fabs(p) : p);
  }
  return k.value();
}

// True when |hi + lo - s| <= rel |s| + abs_coef S, the bound evaluated exactly (rounded down)
// and the error exactly. rel and abs_coef are powers of two times small integers.
// floor: an absolute term for the result format's own limit (half the subnormal spacing: a
// result below the normal range cannot be closer than that).
inline bool pair_within_bound(double hi, double lo, const mp& s, const mp& S, double rel,
                              double abs_coef, double floor = 0.0) {
  if (!std::isfinite(hi) || !std::isfinite(lo))
    return false;
  mp err(mp::exact_dot_bits + 128);
  mpfr_sub_d(err.get(), s.get(), hi, MPFR_RNDN);   // exact at this precision
  mpfr_sub_d(err.get(), err.get(), lo, MPFR_RNDN); // exact
  mpfr_abs(err.get(), err.get(), MPFR_RNDN);
  mp t1(mp::exact_dot_bits + 128), t2(mp::exact_dot_bits + 128), bound(mp::exact_dot_bits + 128);
  mpfr_abs(t1.get(), s.get(), MPFR_RNDN);
  mpfr_mul_d(t1.get(), t1.get(), rel, MPFR_RNDD);
  mpfr_mul_d(t2.get(), S.get(), abs_coef, MPFR_RNDD);
  mpfr_add(bound.get(), t1.get(), t2.get(), MPFR_RNDD);
  mpfr_add_d(bound.get(), bound.get(), floor, MPFR_RNDD);
  return mpfr_cmp(err.get(), bound.get()) <= 0;
}

// The same for one value res.
inline bool within_bound(double res, const mp& s, const mp& S, double rel, double abs_coef,
                         double floor = 0.0) {
  return pair_within_bound(res, 0.0, s, S, rel, abs_coef, floor); // subtracting 0 is exact
}

// The error divided by |s| + S (for messages only).
inline double scaled_error(double res, const mp& s, const mp& S) {
  const double e = abs_error(res, s);
  const double d = std::fabs(s.to_double()) + S.to_double();
  return d > 0 ? e / d : e;
}

// True when |res - sqrt(ssq)| <= rel * sqrt(ssq); sqrt taken at 400 bits (relative error
// 2^-400, accounted for by shrinking rel by 2^-390 relative).
inline bool nrm2_within(double res, const mp& ssq, double rel, double floor = 0.0) {
  if (!std::isfinite(res))
    return false;
  mp r(400);
  mpfr_sqrt(r.get(), ssq.get(), MPFR_RNDN);
  mp err(600);
  mpfr_sub_d(err.get(), r.get(), res, MPFR_RNDN);
  mpfr_abs(err.get(), err.get(), MPFR_RNDU);
  mp bound(600);
  mpfr_mul_d(bound.get(), r.get(), rel * (1 - 0x1p-390), MPFR_RNDD);
  mpfr_add_d(bound.get(), bound.get(), floor, MPFR_RNDD);
  return mpfr_cmp(err.get(), bound.get()) <= 0;
}

inline double nrm2_rel_error(double res, const mp& ssq) {
  mp r(400);
  mpfr_sqrt(r.get(), ssq.get(), MPFR_RNDN);
  mp err(600);
  mpfr_sub_d(err.get(), r.get(), res, MPFR_RNDN);
  mpfr_div(err.get(), err.get(), r.get(), MPFR_RNDN);
  return std::fabs(mpfr_get_d(err.get(), MPFR_RNDN));
}

} // namespace tcr::test
