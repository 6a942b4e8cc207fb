// SPDX-License-Identifier: BSD-3-Clause
// Tests for compensated/narrow.cuh on the host (the same integer code runs on the device):
// round_to of doubles, pairs and 128-bit integers against the exact reference of narrow_ref.hpp,
// exhaustively over the midpoints of half and bfloat16, randomly elsewhere; tcr::int128.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>
#include <tcr/compensated/narrow.cuh>
#include "compensated/narrow_ref.hpp"
#include "support/gen.hpp"

namespace {

using tcr::test::mp;

std::string hex(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%a", v);
  return b;
}
std::string hex(const tcr::int128& v) {
  char b[64];
  std::snprintf(b, sizeof b, "0x%016llx'%016llx", static_cast<unsigned long long>(v.hi),
                static_cast<unsigned long long>(v.lo));
  return b;
}

// hi + lo exactly (|hi| < 2^1024, so 2200 bits cover any lo down to 2^-1074); a pair whose low
// part is zero stands for its high part (-0 + 0 is -0), as everywhere in compensated/.
mp exact_pair(double hi, double lo) {
  mp s(2200);
  mpfr_set_d(s.get(), hi, MPFR_RNDN);
  if (lo != 0)
    mpfr_add_d(s.get(), s.get(), lo, MPFR_RNDN); // exact; a zero sum is +0, as in IEEE
  return s;
}

// round_to<T>(hi, lo) agrees with the reference; counts the checks.
template <class T>
struct pair_checker {
  std::size_t checks = 0, failures = 0;
  void operator()(double hi, double lo) {
    const double got = tcr::test::as_double(tcr::round_to<T>(hi, lo));
    const double want = tcr::test::reference_round<T>(exact_pair(hi, lo));
    ++checks;
    if (!tcr::test::same_double(got, want)) {
      if (++failures <= 10) {
        INFO("hi = ", hex(hi), ", lo = ", hex(lo), ", got ", hex(got), ", want ", hex(want));
        CHECK(tcr::test::same_double(got, want));
      }
    }
  }
};

// Every pair of neighbours a < b of T's nonnegative finite grid (b = 2^(emax+1) past the
// largest), their midpoint m and its neighbouring doubles as hi, each with low parts of both
// signs: zero, half an ulp of hi (a tie of the pair itself), an unnormalised 3/4 ulp, the
// smallest subnormal and 2^-70 hi; and all of it negated.
template <class T>
void check_midpoints() {
  constexpr auto f = tcr::test::format_of<T>();
  pair_checker<T> check;
  tcr::test::rng64 rng(0x4e41000 + f.p);
  INFO("seed = ", 0x4e41000 + f.p);
  const std::uint16_t inf_bits = f.p == 11 ? 0x7c00 : 0x7f80;
  for (std::uint16_t k = 0; k < inf_bits; ++k) {
    T ta, tb;
    const std::uint16_t kb = std::uint16_t(k + 1);
    std::memcpy(&ta, &k, 2);
    std::memcpy(&tb, &kb, 2);
    const double a = tcr::test::as_double(ta);
    const double b = k + 1 == inf_bits ? std::ldexp(1.0, f.emax + 1) : tcr::test::as_double(tb);
    const double m = (a + b) / 2; // exact: p + 1 bits
    const double his[] = {m, std::nextafter(m, 0.0), std::nextafter(m, HUGE_VAL), a,
                          a + (b - a) * rng.uniform()};
    for (double hi : his) {
      const double ulp = std::nextafter(hi, HUGE_VAL) - hi;
      const double los[] = {0.0, ulp / 2, 0.75 * ulp, std::numeric_limits<double>::denorm_min(),
                            std::ldexp(hi, -70)};
      for (double lo : los) {
        check(hi, lo);
        check(hi, -lo);
        check(-hi, lo);
        check(-hi, -lo);
      }
    }
  }
  MESSAGE(check.checks, " pairs checked");
  CHECK(check.failures == 0);
}

// Random doubles over T's range and beyond (exponents emin - p - 4 .. emax + 2) with random low
// parts from 2^-60 ulp to an unnormalised 4 ulps, both signs.
template <class T>
void check_random_pairs(std::uint64_t seed) {
  constexpr auto f = tcr::test::format_of<T>();
  INFO("seed = ", seed);
  tcr::test::rng64 rng(seed);
  pair_checker<T> check;
  for (int i = 0; i < 200000; ++i) {
    const int e = int(rng.integer(f.emin - f.p - 4, f.emax + 2));
    const double hi = std::ldexp(1 + rng.uniform(), e) * (rng.coin() ? 1 : -1);
    const double lo = std::ldexp(rng.symmetric(), e - 52 + int(rng.integer(-60, 2)));
    check(hi, lo);
    check(hi, 0.0);
  }
  CHECK(check.failures == 0);
}

// v as an exact MPFR value.
mp exact_int(const tcr::int128& v) {
  const bool neg = v.is_negative();
  const tcr::int128 a = neg ? -v : v;
  mp s(256);
  mpfr_set_ui(s.get(), 0, MPFR_RNDN);
  mpfr_set_ui(s.get(), a.hi, MPFR_RNDN);
  mpfr_mul_2ui(s.get(), s.get(), 64, MPFR_RNDN);
  mpfr_add_ui(s.get(), s.get(), a.lo, MPFR_RNDN);
  if (neg)
    mpfr_neg(s.get(), s.get(), MPFR_RNDN);
  return s;
}

template <class T>
bool int_rounds_right(const tcr::int128& v) {
  const double got = tcr::test::as_double(tcr::round_to<T>(v));
  const double want = tcr::test::reference_round<T>(exact_int(v));
  INFO("v = ", hex(v), ", got ", hex(got), ", want ", hex(want));
  CHECK(tcr::test::same_double(got, want));
  return tcr::test::same_double(got, want);
}

template <class T>
void check_int_rounding(std::uint64_t seed) {
  constexpr auto f = tcr::test::format_of<T>();
  INFO("seed = ", seed);
  tcr::test::rng64 rng(seed);
  std::size_t bad = 0;
  // Every midpoint pattern: an odd (p + 1)-bit integer times 2^k, and its neighbours +-1, for
  // every k that keeps it below 2^127, both signs.
  for (int k = 0; k + f.p + 1 <= 127; ++k) {
    for (int r = 0; r < 24; ++r) {
      const std::uint64_t odd =
          (std::uint64_t(1) << f.p) | (rng.next() & ((std::uint64_t(1) << f.p) - 1)) | 1;
      const tcr::int128 o = tcr::int128::from_unsigned(odd);
      tcr::int128 m = o;
      for (int i = 0; i < k; ++i)
        m = m + m;
      for (const tcr::int128& v :
           {m, m + tcr::int128::from_signed(1), m - tcr::int128::from_signed(1)}) {
        bad += !int_rounds_right<T>(v);
        bad += !int_rounds_right<T>(-v);
      }
    }
  }
  // Random values of every bit length, both signs, and the extremes.
  for (int i = 0; i < 100000; ++i) {
    const int bits = int(rng.integer(1, 127));
    tcr::int128 v{rng.next(), rng.next()};
    if (bits < 64) {
      v.hi = 0;
      v.lo &= (std::uint64_t(1) << bits) - 1;
    } else {
      v.hi &= (std::uint64_t(1) << (bits - 64)) - 1;
    }
    bad += !int_rounds_right<T>(rng.coin() ? v : -v);
  }
  const tcr::int128 min128{0, std::uint64_t(1) << 63}, max128{~std::uint64_t(0), ~min128.hi};
  bad += !int_rounds_right<T>(min128);
  bad += !int_rounds_right<T>(max128);
  bad += !int_rounds_right<T>(tcr::int128{});
  CHECK(bad == 0);
}

} // namespace

TEST_CASE("round_to: every half midpoint, its neighbours and low parts of both signs") {
  check_midpoints<__half>();
}
TEST_CASE("round_to: every bfloat16 midpoint, its neighbours and low parts of both signs") {
  check_midpoints<__nv_bfloat16>();
}
TEST_CASE_TEMPLATE("round_to: random pairs over the range and beyond", T, __half, __nv_bfloat16,
                   float, double) {
  check_random_pairs<T>(0x4e42000 + tcr::test::format_of<T>().p);
}

TEST_CASE("round_to: special values, range ends, signed zeros") {
  using tcr::round_to;
  const double inf = HUGE_VAL, nan = std::numeric_limits<double>::quiet_NaN();
  auto h = [](__half v) { return double(float(v)); };
  auto b = [](__nv_bfloat16 v) { return double(float(v)); };
  CHECK(h(round_to<__half>(inf)) == inf);
  CHECK(h(round_to<__half>(-inf)) == -inf);
  CHECK(std::isnan(h(round_to<__half>(nan))));
  CHECK(std::isnan(h(round_to<__half>(inf, -inf))));
  CHECK(std::isnan(b(round_to<__nv_bfloat16>(1.0, nan))));
  CHECK(h(round_to<__half>(1.0, inf)) == inf);
  const double dmax = std::numeric_limits<double>::max();
  CHECK(h(round_to<__half>(dmax, dmax)) == inf); // hi + lo overflows double itself
  CHECK(b(round_to<__nv_bfloat16>(-dmax, -dmax)) == -inf);
  // Half's end: 65504 is the largest, 65520 the midpoint to 2^16 (ties to even: inf).
  CHECK(h(round_to<__half>(65519.99)) == 65504);
  CHECK(h(round_to<__half>(65520.0)) == inf);
  CHECK(h(round_to<__half>(65520.0, -0x1p-40)) == 65504);
  CHECK(h(round_to<__half>(-65520.0, 0x1p-1074)) == -65504);
  // bfloat16's end: (2 - 2^-7) 2^127 the largest, (2 - 2^-8) 2^127 the midpoint.
  CHECK(b(round_to<__nv_bfloat16>(0x1.ffp127)) == inf);
  CHECK(b(round_to<__nv_bfloat16>(0x1.ffp127, -0x1p60)) == 0x1.fep127);
  // Subnormals: 2^-24 the smallest half, 2^-25 the tie with 0 (even: 0).
  CHECK(h(round_to<__half>(0x1p-25)) == 0);
  CHECK(h(round_to<__half>(0x1p-25, 0x1p-1074)) == 0x1p-24);
  CHECK(h(round_to<__half>(-0x1p-25, -0x1p-1074)) == -0x1p-24);
  CHECK(h(round_to<__half>(0x3p-25)) == 0x1p-23); // 1.5 units: to the even 2
  CHECK(h(round_to<__half>(0x3p-25, -0x1p-80)) == 0x1p-24);
  CHECK(b(round_to<__nv_bfloat16>(0x1p-134, 0x1p-200)) == 0x1p-133);
  // Signed zeros: the exact value's sign, -0 when every part is -0.
  CHECK(std::signbit(h(round_to<__half>(-0.0))));
  CHECK(std::signbit(h(round_to<__half>(-0.0, 0.0)))); // lo == 0: the pair is hi
  CHECK_FALSE(std::signbit(h(round_to<__half>(0.0, -0.0))));
  CHECK_FALSE(std::signbit(h(round_to<__half>(-0x1p-30, 0x1p-30)))); // an exact zero sum: +0
  CHECK(std::signbit(h(round_to<__half>(-0x1p-26))));
  CHECK(std::signbit(b(round_to<__nv_bfloat16>(-0x1p-1074))));
  CHECK_FALSE(std::signbit(h(round_to<__half>(0x1p-30, -0x1p-31))));
  // A pair on a midpoint: lo breaks the tie both ways (hi alone would round to even).
  CHECK(h(round_to<__half>(1 + 0x1p-11)) == 1);
  CHECK(h(round_to<__half>(1 + 0x1p-11, 0x1p-70)) == 1 + 0x1p-10);
  CHECK(h(round_to<__half>(1 + 0x3p-11, -0x1p-70)) == 1 + 0x1p-10);
  CHECK(h(round_to<__half>(1 + 0x3p-11)) == 1 + 0x1p-9);
}

TEST_CASE_TEMPLATE("round_to: 128-bit integers at midpoints, random and extreme", T, __half,
                   __nv_bfloat16, float, double) {
  check_int_rounding<T>(0x4e43000 + tcr::test::format_of<T>().p);
}

TEST_CASE("round_to: every integer of magnitude up to 2^17 to half") {
  std::size_t bad = 0;
  for (std::int64_t v = -(1 << 17); v <= (1 << 17); ++v) {
    const double got = double(float(tcr::round_to<__half>(tcr::int128::from_signed(v))));
    const double want = tcr::test::reference_round<__half>(mp(double(v), 64));
    bad += !tcr::test::same_double(got, want);
  }
  CHECK(bad == 0);
}

TEST_CASE("int128: carries, negation, wrap modulo 2^128") {
  using tcr::int128;
  const std::uint64_t all = ~std::uint64_t(0);
  CHECK((int128{all, 0} + int128{1, 0}) == int128{0, 1});
  CHECK((int128{all, all} + int128{1, 0}) == int128{});
  CHECK(-int128{1, 0} == int128{all, all});
  CHECK(-int128{0, std::uint64_t(1) << 63} == int128{0, std::uint64_t(1) << 63}); // -2^127
  CHECK((int128::from_signed(-5) + int128::from_unsigned(7)) == int128{2, 0});
  CHECK(int128::from_signed(INT64_MIN).is_negative());
  CHECK((int128::from_signed(INT64_MIN) - int128::from_signed(INT64_MIN)).is_zero());
  tcr::test::rng64 rng(0x4e44000);
  INFO("seed = ", 0x4e44000);
  for (int i = 0; i < 10000; ++i) {
    const int128 a{rng.next(), rng.next()}, b{rng.next(), rng.next()};
    const unsigned __int128 ua = (static_cast<unsigned __int128>(a.hi) << 64) | a.lo,
                            ub = (static_cast<unsigned __int128>(b.hi) << 64) | b.lo;
    const unsigned __int128 s = ua + ub, d = ua - ub;
    CHECK((a + b) == int128{std::uint64_t(s), std::uint64_t(s >> 64)});
    CHECK((a - b) == int128{std::uint64_t(d), std::uint64_t(d >> 64)});
    const double x = std::ldexp(double(rng.next() >> 11), int(rng.integer(-52, 74)));
    const double xi = std::trunc(x) * (rng.coin() ? 1 : -1);
    const unsigned __int128 want = static_cast<unsigned __int128>(static_cast<__int128>(xi));
    CHECK(tcr::detail::int128_of(xi) == int128{std::uint64_t(want), std::uint64_t(want >> 64)});
  }
}
