// SPDX-License-Identifier: BSD-3-Clause
// tcr tests: exact references through MPFR.
//
// exact_sum / exact_dot hold the exact value (enough bits for any sum of up to 2^40 doubles or
// products of doubles), so |res - s| and the bounds are evaluated without rounding error
// except where noted.
#pragma once

#include <mpfr.h>
#include <cmath>
#include <cstddef>
#include <vector>

namespace tcr::test {

// An MPFR number with RAII. 2300 bits hold any sum of doubles exactly (exponents span
// 2^-1074 .. 2^1024, plus 40 bits of carries); 4400 bits any sum of their products.
class mp {
public:
  static constexpr mpfr_prec_t exact_sum_bits = 2300;
  static constexpr mpfr_prec_t exact_dot_bits = 4400;
  explicit mp(mpfr_prec_t prec = exact_sum_bits) {
    mpfr_init2(v_, prec);
    mpfr_set_zero(v_, 1);
  }
  mp(double x, mpfr_prec_t prec) : mp(prec) { mpfr_set_d(v_, x, MPFR_RNDN); }
  mp(const mp& o) : mp(mpfr_get_prec(o.v_)) { mpfr_set(v_, o.v_, MPFR_RNDN); }
  mp& operator=(const mp& o) {
    mpfr_set_prec(v_, mpfr_get_prec(o.v_));
    mpfr_set(v_, o.v_, MPFR_RNDN);
    return *this;
  }
  ~mp() { mpfr_clear(v_); }
  mpfr_ptr get() { return v_; }
  mpfr_srcptr get() const { return v_; }
  double to_double() const { return mpfr_get_d(v_, MPFR_RNDN); }
  float to_float() const { return mpfr_get_flt(v_, MPFR_RNDN); }

private:
  mpfr_t v_;
};

// The exact sum of xs (mpfr_sum at a precision that makes it exact).
inline mp exact_sum(const std::vector<double>& xs, mpfr_prec_t prec = mp::exact_sum_bits) {
  std::vector<mp> terms;
  terms.reserve(xs.size());
  std::vector<mpfr_ptr> ptrs;
  ptrs.reserve(xs.size());
  for (double x : xs)
    terms.emplace_back(x, 64);
  for (auto& t : terms)
    ptrs.push_back(t.get());
  mp s(prec);
  mpfr_sum(s.get(), ptrs.data(), ptrs.size(), MPFR_RNDN);
  return s;
}

// The exact value of sum x_i * y_i (each product is exact at 106 bits).
inline mp exact_dot(const std::vector<double>& x, const std::vector<double>& y,
                    mpfr_prec_t prec = mp::exact_dot_bits) {
  std::vector<mp> terms;
  terms.reserve(x.size());
  std::vector<mpfr_ptr> ptrs;
  ptrs.reserve(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    terms.emplace_back(106);
    mpfr_set_d(terms.back().get(), x[i], MPFR_RNDN);
    mpfr_mul_d(terms.back().get(), terms.back().get(), y[i], MPFR_RNDN); // exact at 106 bits
  }
  for (auto& t : terms)
    ptrs.push_back(t.get());
  mp s(prec);
  mpfr_sum(s.get(), ptrs.data(), ptrs.size(), MPFR_RNDN);
  return s;
}

// |res - exact|, rounded upward to a double (so a bound check res_err <= bound is never
// passed by rounding the error down).
inline double abs_error(double res, const mp& exact) {
  mp d(mp::exact_dot_bits + 64);
  mpfr_sub_d(d.get(), exact.get(), res, MPFR_RNDN); // exact at this precision
  mpfr_abs(d.get(), d.get(), MPFR_RNDN);
  return mpfr_get_d(d.get(), MPFR_RNDU);
}

} // namespace tcr::test
