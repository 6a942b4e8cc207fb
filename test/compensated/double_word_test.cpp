// SPDX-License-Identifier: BSD-3-Clause
// Tests for compensated/double_word.cuh on the host: every operation of df32 and dd against
// MPFR, asserting the published bounds, on random and adversarial operands.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>
#include <tcr/compensated/double_word.cuh>
#include "support/gen.hpp"
#include "support/mpfr_ref.hpp"

namespace {

using tcr::double_word;
using tcr::test::mp;

constexpr mpfr_prec_t ref_bits = 400; // inexact references (div, sqrt): relative error 2^-399

template <class T>
double u_of() {
  return std::ldexp(1.0, -std::numeric_limits<T>::digits);
}

template <class T>
mp exact(const double_word<T>& x) {
  mp r(mp::exact_sum_bits); // exact: any two doubles fit
  mp lo(double(x.lo), 64);
  mpfr_set_d(r.get(), double(x.hi), MPFR_RNDN);
  mpfr_add(r.get(), r.get(), lo.get(), MPFR_RNDN);
  return r;
}

// |res - ref| / |ref|, rounded up, plus the reference's own relative error.
template <class T>
double rel_error(const double_word<T>& res, const mp& ref) {
  mp d(2 * ref_bits);
  mp r = exact(res);
  mpfr_sub(d.get(), r.get(), ref.get(), MPFR_RNDU);
  mpfr_abs(d.get(), d.get(), MPFR_RNDU);
  if (mpfr_zero_p(ref.get()))
    return mpfr_zero_p(d.get()) ? 0.0 : HUGE_VAL;
  mpfr_div(d.get(), d.get(), ref.get(), MPFR_RNDU);
  mpfr_abs(d.get(), d.get(), MPFR_RNDU);
  return mpfr_get_d(d.get(), MPFR_RNDU) + std::ldexp(1.0, -(ref_bits - 2));
}

template <class T>
bool normalised(const double_word<T>& x) {
  return x.hi == tcr::detail::add_rn(x.hi, x.lo);
}

// A normalised pair with hi's exponent in [emin, emax], random sign, and a lo that fills the
// rest of the double precision (|lo| <= ulp(hi) / 2).
template <class T>
double_word<T> random_dw(tcr::test::rng64& rng, int emin, int emax) {
  const T hi =
      T(std::ldexp(1 + rng.uniform(), int(rng.integer(emin, emax)))) * (rng.coin() ? 1 : -1);
  const T lo = T(double(hi) * std::ldexp(rng.symmetric(), -std::numeric_limits<T>::digits));
  return double_word<T>::from_sum(hi, lo);
}

// Adversarial variants of y given x: y = -x (1 + d) for small d (cancellation), y near x,
// hi a power of two with lo negative (binade boundary), lo = 0.
template <class T>
double_word<T> adversarial(tcr::test::rng64& rng, const double_word<T>& x, int kind) {
  const int p = std::numeric_limits<T>::digits;
  switch (kind) {
  case 0: {
    const double_word<T> d =
        tcr::mul(x, T(std::ldexp(rng.symmetric(), -int(rng.integer(1, 2 * p)))));
    return -tcr::add(x, d);
  }
  case 1: {
    const double_word<T> d =
        tcr::mul(x, T(std::ldexp(rng.symmetric(), -int(rng.integer(1, 2 * p)))));
    return tcr::add(x, d);
  }
  case 2: {
    const T h = T(std::ldexp(1.0, int(rng.integer(-10, 10))));
    return double_word<T>::from_sum(h, -T(std::ldexp(rng.uniform(), -p - 1)) * h);
  }
  default:
    return double_word<T>(x.hi);
  }
}

template <class T>
void check_ops(std::uint64_t seed) {
  INFO("seed = ", seed);
  tcr::test::rng64 rng(seed);
  const double u = u_of<T>(), u2 = u * u, u3 = u2 * u;
  // Exponents within +-20 (float) / +-200 (double) keep every error term far above the
  // subnormals, the bounds' precondition.
  const int er = std::is_same_v<T, float> ? 20 : 200;
  const double b_add = 3 * u2 + 13 * u3, b_add_fp = 2 * u2, b_mul = 4 * u2, b_mul_fp = 2 * u2;
  const double b_div = 15 * u2 + 56 * u3, b_div_fp = 3 * u2, b_sqrt = 25.0 / 8 * u2;
  const double b_sloppy = (3 + u) * u2 / (1 - u);
  double worst[8] = {};
  for (int i = 0; i < 40000; ++i) {
    const double_word<T> x = random_dw<T>(rng, -er, er);
    const double_word<T> y =
        i % 2 ? random_dw<T>(rng, -er, er) : adversarial(rng, x, int(rng.integer(0, 3)));
    const T b = T(std::ldexp(1 + rng.uniform(), int(rng.integer(-er, er)))) * (rng.coin() ? 1 : -1);
    INFO("i = ", i, ", x = (", double(x.hi), ", ", double(x.lo), "), y = (", double(y.hi), ", ",
         double(y.lo), "), b = ", double(b));
    const mp ex = exact(x), ey = exact(y), eb(double(b), 64);
    mp r(2 * ref_bits);
    auto check = [&](const double_word<T>& res, const mp& ref, double bound, int slot) {
      const double e = rel_error(res, ref);
      worst[slot] = std::max(worst[slot], e / u2);
      CHECK(e <= bound);
      CHECK(normalised(res));
    };
    mpfr_add(r.get(), ex.get(), ey.get(), MPFR_RNDN);
    check(tcr::add(x, y), r, b_add, 0);
    check(x + y, r, b_add, 0);
    if ((x.hi > 0) == (y.hi > 0))
      check(tcr::add_sloppy(x, y), r, b_sloppy, 1);
    mpfr_sub(r.get(), ex.get(), ey.get(), MPFR_RNDN);
    check(x - y, r, b_add, 0);
    mpfr_add(r.get(), ex.get(), eb.get(), MPFR_RNDN);
    check(tcr::add(x, b), r, b_add_fp, 2);
    mpfr_mul(r.get(), ex.get(), ey.get(), MPFR_RNDN);
    check(x * y, r, b_mul, 3);
    mpfr_mul(r.get(), ex.get(), eb.get(), MPFR_RNDN);
    check(tcr::mul(x, b), r, b_mul_fp, 4);
    mpfr_div(r.get(), ex.get(), ey.get(), MPFR_RNDN);
    check(x / y, r, b_div, 5);
    mpfr_div(r.get(), ex.get(), eb.get(), MPFR_RNDN);
    check(tcr::div(x, b), r, b_div_fp, 6);
    mpfr_abs(r.get(), ex.get(), MPFR_RNDN);
    mpfr_sqrt(r.get(), r.get(), MPFR_RNDN);
    check(tcr::sqrt(tcr::abs(x)), r, b_sqrt, 7);
    {
      // fma: |res - (xy + z)| <= 4u^2 |xy| + b_add (|xy + z| + 4u^2 |xy|), z = y / 2^k.
      const double_word<T> z = tcr::mul(y, T(std::ldexp(1.0, -int(rng.integer(0, 4)))));
      mp xy(2 * ref_bits), s(2 * ref_bits), d(2 * ref_bits);
      mpfr_mul(xy.get(), ex.get(), ey.get(), MPFR_RNDN);
      mpfr_add(s.get(), xy.get(), exact(z).get(), MPFR_RNDN);
      const double_word<T> res = tcr::fma(x, y, z);
      mpfr_sub(d.get(), exact(res).get(), s.get(), MPFR_RNDU);
      mpfr_abs(d.get(), d.get(), MPFR_RNDU);
      const double axy = std::fabs(mpfr_get_d(xy.get(), MPFR_RNDA));
      const double as = std::fabs(mpfr_get_d(s.get(), MPFR_RNDA));
      const double allowed =
          (b_mul * axy + b_add * (as + b_mul * axy)) * (1 + std::ldexp(1.0, -40));
      CHECK(mpfr_get_d(d.get(), MPFR_RNDU) <= allowed);
    }
  }
  MESSAGE("worst relative errors / u^2: add ", worst[0], ", sloppy (same sign) ", worst[1],
          ", add fp ", worst[2], ", mul ", worst[3], ", mul fp ", worst[4], ", div ", worst[5],
          ", div fp ", worst[6], ", sqrt ", worst[7]);
}

template <class T>
void check_compare(std::uint64_t seed) {
  INFO("seed = ", seed);
  tcr::test::rng64 rng(seed);
  for (int i = 0; i < 20000; ++i) {
    const double_word<T> x = random_dw<T>(rng, -3, 3);
    double_word<T> y;
    switch (i % 4) {
    case 0:
      y = random_dw<T>(rng, -3, 3);
      break;
    case 1:
      y = x;
      break;
    case 2:
      y = double_word<T>::from_sum(x.hi, T(x.lo + x.hi * std::ldexp(1.0, -40)));
      break;
    default:
      y = double_word<T>::from_sum(x.hi, -x.lo);
      break;
    }
    const int c = mpfr_cmp(exact(x).get(), exact(y).get());
    INFO("x = (", double(x.hi), ", ", double(x.lo), "), y = (", double(y.hi), ", ", double(y.lo),
         ")");
    CHECK((x < y) == (c < 0));
    CHECK((x <= y) == (c <= 0));
    CHECK((x > y) == (c > 0));
    CHECK((x >= y) == (c >= 0));
    CHECK((x == y) == (c == 0));
    CHECK((x != y) == (c != 0));
  }
}

} // namespace

TEST_CASE("df32: every operation within its proven bound (MPFR)") {
  check_ops<float>(0xd0f30001);
}
TEST_CASE("dd: every operation within its proven bound (MPFR)") {
  check_ops<double>(0xd0d00001);
}
TEST_CASE("df32: comparisons agree with the exact order") {
  check_compare<float>(0xd0f30002);
}
TEST_CASE("dd: comparisons agree with the exact order") {
  check_compare<double>(0xd0d00002);
}

TEST_CASE("df32: conversion from double") {
  const std::uint64_t seed = 0xd0f30003;
  INFO("seed = ", seed);
  tcr::test::rng64 rng(seed);
  for (int i = 0; i < 20000; ++i) {
    // Exact for products of two floats (48 bits) and sums of floats within 24 binades.
    const float a = float(rng.symmetric()) * std::ldexp(1.0f, int(rng.integer(-60, 60)));
    const float b = float(rng.symmetric()) * std::ldexp(1.0f, int(rng.integer(-60, 60)));
    const double p = double(a) * double(b);
    const tcr::df32 dp = tcr::to_df32(p);
    if (std::fabs(p) >= std::ldexp(1.0, -100)) { // last bit >= 2^-148: lo representable
      CHECK(double(dp.hi) + double(dp.lo) == p);
    }
    CHECK(normalised(dp));
    const float c = a * std::ldexp(float(rng.uniform()), -int(rng.integer(0, 22)));
    const double s = double(a) + double(c); // exact, at most 49 significant bits
    const tcr::df32 ds = tcr::to_df32(s);
    CHECK(double(ds.hi) + double(ds.lo) == s);
    // Any double within range: |d - (hi + lo)| <= 2^-48 |d|.
    const double d = std::ldexp(rng.symmetric(), int(rng.integer(-90, 90)));
    const tcr::df32 dx = tcr::to_df32(d);
    mp diff(200);
    mpfr_set_d(diff.get(), d, MPFR_RNDN);
    mpfr_sub_d(diff.get(), diff.get(), double(dx.hi), MPFR_RNDN);
    mpfr_sub_d(diff.get(), diff.get(), double(dx.lo), MPFR_RNDN);
    CHECK(std::fabs(mpfr_get_d(diff.get(), MPFR_RNDA)) <= std::ldexp(std::fabs(d), -48));
    // And back: to_double is the correctly rounded hi + lo.
    mp sum(200);
    mpfr_set_d(sum.get(), double(dx.hi), MPFR_RNDN);
    mpfr_add_d(sum.get(), sum.get(), double(dx.lo), MPFR_RNDN);
    CHECK(tcr::to_double(dx) == mpfr_get_d(sum.get(), MPFR_RNDN));
  }
  CHECK(std::isinf(tcr::to_df32(1e300).hi));
  CHECK(tcr::to_df32(1e300).lo == 0.0f);
  CHECK(tcr::to_df32(-0.0).hi == 0.0f);
  CHECK(std::signbit(tcr::to_df32(-0.0).hi));
}

TEST_CASE("add_sloppy is wrong for opposite signs (why it is named so)") {
  // x_h + y_h cancels and x_l + y_l rounds: relative error about u, far above 3u^2.
  const tcr::df32 x(1.0f, std::ldexp(1.0f, -26));
  const tcr::df32 y(-1.0f, -std::ldexp(1.0f + std::ldexp(1.0f, -20), -52));
  mp r(ref_bits);
  mpfr_add(r.get(), exact(x).get(), exact(y).get(), MPFR_RNDN);
  const double u2 = std::ldexp(1.0, -48);
  CHECK(rel_error(tcr::add_sloppy(x, y), r) > 100 * u2);
  CHECK(rel_error(tcr::add(x, y), r) <= 3 * u2);
}

TEST_CASE("double_word special cases") {
  CHECK(tcr::sqrt(tcr::dd(0.0)).hi == 0.0);
  CHECK(std::isnan(tcr::sqrt(tcr::dd(-1.0)).hi));
  CHECK(tcr::df32(2.0f) == tcr::df32(2.0f, 0.0f));
  CHECK(tcr::df32(2.0f, -0.0f) == tcr::df32(2.0f, 0.0f));
  CHECK(tcr::dd(1.0).to_value() == 1.0);
  CHECK(tcr::dd::from_product(3.0, 1.0 / 3).hi == 3.0 * (1.0 / 3));
}
