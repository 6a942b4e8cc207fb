// SPDX-License-Identifier: BSD-3-Clause
// Tests for test/support/gen.hpp (used by the accuracy tests and benchmarks of every part):
// reproducible data, condition numbers near the requested ones, checked with MPFR.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>
#include "support/gen.hpp"
#include "support/mpfr_ref.hpp"

namespace {

double mpfr_sum_condition(const std::vector<double>& x) {
  std::vector<double> ax;
  for (double v : x)
    ax.push_back(std::fabs(v));
  return tcr::test::exact_sum(ax).to_double() / std::fabs(tcr::test::exact_sum(x).to_double());
}

double mpfr_dot_condition(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<double> ax, ay;
  for (double v : x)
    ax.push_back(std::fabs(v));
  for (double v : y)
    ay.push_back(std::fabs(v));
  return 2 * tcr::test::exact_dot(ax, ay).to_double() /
         std::fabs(tcr::test::exact_dot(x, y).to_double());
}

template <class T>
std::vector<double> widen(const std::vector<T>& v) {
  return std::vector<double>(v.begin(), v.end());
}

} // namespace

TEST_CASE_TEMPLATE("gen_sum / gen_dot reach the requested condition", T, float, double) {
  for (double cond = 1; cond <= 1e32; cond *= 1e4) {
    for (std::size_t n : {16u, 100u, 1000u, 20000u}) {
      const std::uint64_t seed = 0x9e70000 + n + std::uint64_t(std::log10(cond));
      INFO("seed = ", seed, ", cond = ", cond, ", n = ", n);
      const auto x = tcr::test::gen_sum<T>(n, cond, seed);
      REQUIRE(x.size() == n);
      const double cs = mpfr_sum_condition(widen(x));
      // sum_condition agrees with MPFR to a few ulps (it is exact up to its final roundings).
      CHECK(std::fabs(tcr::test::sum_condition(x) / cs - 1) < 1e-12);
      // Within the factor 2 the generator aims for (and at worst 4).
      CHECK(cs >= cond / 4);
      CHECK(cs <= cond * 4);
      const auto [a, b] = tcr::test::gen_dot<T>(n, cond, seed);
      const double cd = mpfr_dot_condition(widen(a), widen(b));
      CHECK(cd >= std::max(cond, 2.0) / 4);
      CHECK(cd <= std::max(cond, 2.0) * 4);
      // Same seed, same data.
      CHECK(tcr::test::gen_sum<T>(n, cond, seed) == x);
    }
  }
}

TEST_CASE("gen: cancelling pairs, same-sign data") {
  const auto x = tcr::test::gen_cancelling_pairs<double>(1000, 7, -20, 40);
  CHECK(x.size() == 1000);
  CHECK(mpfr_sum_condition(x) > 1e6);
  const auto y = tcr::test::gen_same_sign<float>(1000, 8, -30, 30);
  for (float v : y)
    CHECK(v > 0);
  CHECK(mpfr_sum_condition(widen(y)) == 1.0);
}
