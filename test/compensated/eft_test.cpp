// SPDX-License-Identifier: BSD-3-Clause
// Tests for compensated/eft.cuh on the host, against MPFR.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <tcr/compensated/eft.cuh>
#include "support/mpfr_ref.hpp"

namespace {

template <class T>
T random_wide(std::mt19937_64& rng, int min_exp, int max_exp) {
  std::uniform_real_distribution<T> mant(1, 2);
  std::uniform_int_distribution<int> ex(min_exp, max_exp);
  std::bernoulli_distribution neg(0.5);
  const T v = std::ldexp(mant(rng), ex(rng));
  return neg(rng) ? -v : v;
}

template <class T>
void check_eft_exact(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  INFO("seed = ", seed);
  // Exponents within +-30 keep every float product and its error term above the subnormal
  // range, two_prod's precondition.
  for (int i = 0; i < 20000; ++i) {
    const T a = random_wide<T>(rng, -30, 30);
    const T b = random_wide<T>(rng, -30, 30);
    {
      const auto [s, e] = tcr::two_sum(a, b);
      tcr::test::mp lhs = tcr::test::exact_sum({double(s), double(e)});
      tcr::test::mp rhs = tcr::test::exact_sum({double(a), double(b)});
      REQUIRE(mpfr_equal_p(lhs.get(), rhs.get()));
      REQUIRE(s == a + b);
    }
    {
      const T big = std::fabs(a) >= std::fabs(b) ? a : b;
      const T small = std::fabs(a) >= std::fabs(b) ? b : a;
      const auto [s, e] = tcr::fast_two_sum(big, small);
      tcr::test::mp lhs = tcr::test::exact_sum({double(s), double(e)});
      tcr::test::mp rhs = tcr::test::exact_sum({double(a), double(b)});
      REQUIRE(mpfr_equal_p(lhs.get(), rhs.get()));
    }
    {
      const auto [p, e] = tcr::two_prod(a, b);
      tcr::test::mp lhs = tcr::test::exact_sum({double(p), double(e)});
      tcr::test::mp rhs = tcr::test::exact_dot({double(a)}, {double(b)});
      REQUIRE(mpfr_equal_p(lhs.get(), rhs.get()));
    }
    {
      const auto [hi, lo] = tcr::split(a);
      REQUIRE(hi + lo == a);
      // Each half fits in half the significand: hi*hi is exact in T.
      const auto [p, e] = tcr::two_prod(hi, hi);
      REQUIRE(e == T(0));
    }
  }
}

} // namespace

TEST_CASE("two_sum, fast_two_sum, two_prod and split are error-free (float)") {
  check_eft_exact<float>(0x5eed0001);
}

TEST_CASE("two_sum, fast_two_sum, two_prod and split are error-free (double)") {
  check_eft_exact<double>(0x5eed0002);
}
