// SPDX-License-Identifier: BSD-3-Clause
// Tests for compensated/accumulators.cuh on the host: Sum2 / Dot2 bounds against MPFR on
// ill-conditioned data (condition 1e0 .. 1e32), merge trees in random order, special values.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>
#include <tcr/compensated/accumulators.cuh>
#include "support/gen.hpp"
#include "support/merge_tree.hpp"
#include "support/mpfr_ref.hpp"

namespace {

using tcr::test::mp;

template <class T>
double unit_roundoff() {
  return std::ldexp(1.0, -std::numeric_limits<T>::digits);
}
double gamma_k(double k, double u) {
  return k * u / (1 - k * u);
}

// Bounds are evaluated in double and inflated by 2^-40 relative: more than the rounding of
// their own evaluation (a handful of operations, each <= 2^-53).
double inflate(double b) {
  return b * (1 + std::ldexp(1.0, -40));
}

struct exact_data {
  mp s;     // the exact sum (or dot)
  double S; // sum|x_i| (or sum|x_i y_i|), rounded up
};

exact_data exact_of_sum(const std::vector<double>& x) {
  std::vector<double> ax;
  for (double v : x)
    ax.push_back(std::fabs(v));
  const mp S = tcr::test::exact_sum(ax);
  return {tcr::test::exact_sum(x), mpfr_get_d(S.get(), MPFR_RNDU)};
}

exact_data exact_of_dot(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<double> ax, ay;
  for (double v : x)
    ax.push_back(std::fabs(v));
  for (double v : y)
    ay.push_back(std::fabs(v));
  const mp S = tcr::test::exact_dot(ax, ay);
  return {tcr::test::exact_dot(x, y), mpfr_get_d(S.get(), MPFR_RNDU)};
}

// |res - s| <= u|s| + g2 S, checked with the exact error (rounded up).
void check_bound(double res, const exact_data& ex, double u, double g2) {
  const double s_abs = std::fabs(mpfr_get_d(ex.s.get(), MPFR_RNDA));
  const double err = tcr::test::abs_error(res, ex.s);
  const double allowed = inflate(u * s_abs + g2 * ex.S);
  INFO("res = ", res, ", s = ", ex.s.to_double(), ", S = ", ex.S, ", err = ", err,
       ", allowed = ", allowed);
  CHECK(err <= allowed);
}

// The pair's exact value: |hi + lo - s| <= g2 S (the tree bound without its final rounding).
template <class T>
void check_pair(const tcr::double_word<T>& p, const exact_data& ex, double g2) {
  CHECK(p.hi == tcr::detail::add_rn(p.hi, p.lo)); // normalised
  mp v(mp::exact_sum_bits), d(mp::exact_dot_bits + 64);
  mpfr_set_d(v.get(), double(p.hi), MPFR_RNDN);
  mpfr_add_d(v.get(), v.get(), double(p.lo), MPFR_RNDN); // exact
  mpfr_sub(d.get(), v.get(), ex.s.get(), MPFR_RNDN);     // exact
  mpfr_abs(d.get(), d.get(), MPFR_RNDN);
  const double err = mpfr_get_d(d.get(), MPFR_RNDU);
  INFO("pair = (", double(p.hi), ", ", double(p.lo), "), err = ", err,
       ", allowed = ", inflate(g2 * ex.S));
  CHECK(err <= inflate(g2 * ex.S));
}

template <class T>
std::vector<double> to_double(const std::vector<T>& xs) {
  return std::vector<double>(xs.begin(), xs.end());
}

// Sum2 on one chain: u|s| + gamma_{n-1}^2 S.
template <class T>
void check_sum2_chain(std::uint64_t seed) {
  const double u = unit_roundoff<T>();
  for (double cond = 1; cond <= 1e32; cond *= 100) {
    for (std::size_t n : {2u, 3u, 10u, 100u, 1000u, 10000u}) {
      const std::uint64_t s = seed + std::uint64_t(std::log10(cond)) * 1000 + n;
      INFO("seed = ", s, ", cond = ", cond, ", n = ", n);
      const std::vector<T> x = tcr::test::gen_sum<T>(n, cond, s);
      const auto xd = to_double(x);
      tcr::neumaier<T> acc;
      for (T v : x)
        acc.add(v);
      const double g = gamma_k(double(n - 1), u);
      const exact_data ex = exact_of_sum(xd);
      check_bound(double(acc.result()), ex, u, g * g);
      check_pair(acc.result_pair(), ex,
                 (1 + u) * gamma_k(double(n), u) * gamma_k(2.0 * double(n), u));
    }
  }
}

// Dot2 on one chain: u|s| + gamma_n^2 S.
template <class T>
void check_dot2_chain(std::uint64_t seed) {
  const double u = unit_roundoff<T>();
  for (double cond = 1; cond <= 1e32; cond *= 100) {
    for (std::size_t n : {2u, 3u, 10u, 100u, 1000u, 10000u}) {
      const std::uint64_t s = seed + std::uint64_t(std::log10(cond)) * 1000 + n;
      INFO("seed = ", s, ", cond = ", cond, ", n = ", n);
      const auto [x, y] = tcr::test::gen_dot<T>(n, cond, s);
      tcr::dot2<T> acc;
      for (std::size_t i = 0; i < n; ++i)
        acc.add(x[i], y[i]);
      const double g = gamma_k(double(n), u);
      const exact_data ex = exact_of_dot(to_double(x), to_double(y));
      check_bound(double(acc.result()), ex, u, g * g);
      const double h = double(n);
      check_pair(acc.result_pair(), ex,
                 (1 + u) * gamma_k(2 * h, u) * (u + (1 + u) * gamma_k(h, u)));
    }
  }
}

// The tree bounds of accumulators.cuh for height h.
double neumaier_tree_g2(double h, double u) {
  return (1 + u) * gamma_k(h, u) * gamma_k(2 * h, u);
}
double dot2_tree_g2(double h, double u) {
  return (1 + u) * gamma_k(2 * h, u) * (u + (1 + u) * gamma_k(h, u));
}

// Chunks accumulated by chains, then merged in a random order; returns the tree height.
template <class A, class F>
double random_tree(std::size_t n, std::size_t chunk, tcr::test::rng64& rng, F add_one, A& out) {
  const std::size_t chunks = (n + chunk - 1) / chunk;
  std::vector<A> parts(chunks);
  std::vector<double> height(chunks, 0);
  for (std::size_t i = 0; i < n; ++i) {
    add_one(parts[i / chunk], i);
    height[i / chunk] += 1;
  }
  const auto [last, h] = tcr::test::random_merge(std::move(parts), std::move(height), rng, 1);
  out = last;
  return h;
}

template <class T>
void check_merge_trees(std::uint64_t seed) {
  const double u = unit_roundoff<T>();
  tcr::test::rng64 rng(seed);
  for (double cond = 1; cond <= 1e32; cond *= 1e4) {
    for (int rep = 0; rep < 6; ++rep) {
      const std::size_t n = 1 + std::size_t(rng.next() % 3000),
                        chunk = 1 + std::size_t(rng.next() % 64);
      const std::uint64_t s =
          seed * 31 + std::uint64_t(rep) + std::uint64_t(std::log10(cond)) * 100;
      INFO("seed = ", s, ", cond = ", cond, ", n = ", n, ", chunk = ", chunk);
      {
        const std::vector<T> x = tcr::test::gen_sum<T>(n, cond, s);
        tcr::neumaier<T> acc;
        const double h = random_tree<tcr::neumaier<T>>(
            n, chunk, rng, [&](tcr::neumaier<T>& a, std::size_t i) { a.add(x[i]); }, acc);
        check_bound(double(acc.result()), exact_of_sum(to_double(x)), u, neumaier_tree_g2(h, u));
      }
      {
        const auto [x, y] = tcr::test::gen_dot<T>(n, cond, s);
        tcr::dot2<T> acc;
        const double h = random_tree<tcr::dot2<T>>(
            n, chunk, rng, [&](tcr::dot2<T>& a, std::size_t i) { a.add(x[i], y[i]); }, acc);
        check_bound(double(acc.result()), exact_of_dot(to_double(x), to_double(y)), u,
                    dot2_tree_g2(h, u));
      }
    }
  }
}

} // namespace

TEST_CASE("neumaier: Sum2 bound on GenSum data, cond 1e0 .. 1e32 (float)") {
  check_sum2_chain<float>(0xacc10000);
}
TEST_CASE("neumaier: Sum2 bound on GenSum data, cond 1e0 .. 1e32 (double)") {
  check_sum2_chain<double>(0xacc20000);
}
TEST_CASE("dot2: Dot2 bound on GenDot data, cond 1e0 .. 1e32 (float)") {
  check_dot2_chain<float>(0xacc30000);
}
TEST_CASE("dot2: Dot2 bound on GenDot data, cond 1e0 .. 1e32 (double)") {
  check_dot2_chain<double>(0xacc40000);
}
TEST_CASE("neumaier, dot2: merging in any order stays within the tree bound (float)") {
  check_merge_trees<float>(0xacc50000);
}
TEST_CASE("neumaier, dot2: merging in any order stays within the tree bound (double)") {
  check_merge_trees<double>(0xacc60000);
}

TEST_CASE("neumaier: cancelling pairs, same-sign wide-range data, low-precision inputs") {
  const double uf = unit_roundoff<float>(), ud = unit_roundoff<double>();
  const std::uint64_t seed = 0xacc70000;
  INFO("seed = ", seed);
  for (std::size_t n : {1u, 31u, 32u, 33u, 1023u, 1024u, 1025u, 5000u}) {
    INFO("n = ", n);
    const double g = gamma_k(double(n) - 1, uf), gd = gamma_k(double(n) - 1, ud);
    {
      const auto x = tcr::test::gen_cancelling_pairs<double>(n, seed + n, -300, 300);
      tcr::neumaier<double> acc;
      for (double v : x)
        acc.add(v);
      check_bound(acc.result(), exact_of_sum(x), ud, gd * gd);
    }
    {
      const auto x = tcr::test::gen_same_sign<float>(n, seed + n + 1, -100, 100);
      tcr::neumaier<float> acc;
      for (float v : x)
        acc.add(v);
      check_bound(acc.result(), exact_of_sum(to_double(x)), uf, g * g);
    }
    {
      // Half, bfloat16 and fp8 inputs, widened exactly and summed in float.
      const auto xf = tcr::test::gen_sum<float>(n, 1e6, seed + n + 2);
      std::vector<__half> h;
      std::vector<__nv_bfloat16> b;
      std::vector<__nv_fp8_e4m3> e4;
      std::vector<__nv_fp8_e5m2> e5;
      std::vector<double> hd, bd, e4d, e5d;
      for (float v : xf) {
        h.emplace_back(v / 1024), hd.push_back(double(float(h.back())));
        b.emplace_back(v), bd.push_back(double(float(b.back())));
        e4.emplace_back(v / 1024), e4d.push_back(double(float(e4.back())));
        e5.emplace_back(v / 1024), e5d.push_back(double(float(e5.back())));
      }
      tcr::neumaier<float> ah, ab, a4, a5;
      for (std::size_t i = 0; i < n; ++i)
        ah.add(h[i]), ab.add(b[i]), a4.add(e4[i]), a5.add(e5[i]);
      check_bound(ah.result(), exact_of_sum(hd), uf, g * g);
      check_bound(ab.result(), exact_of_sum(bd), uf, g * g);
      check_bound(a4.result(), exact_of_sum(e4d), uf, g * g);
      check_bound(a5.result(), exact_of_sum(e5d), uf, g * g);
      // The same data widened to double.
      tcr::neumaier<double> hd_acc;
      for (const auto& v : h)
        hd_acc.add(v);
      check_bound(hd_acc.result(), exact_of_sum(hd), ud, gd * gd);
    }
  }
}

TEST_CASE("the bounds can fail: plain float summation violates the Sum2 bound") {
  const std::uint64_t seed = 0xacc80000;
  INFO("seed = ", seed);
  const auto x = tcr::test::gen_sum<float>(1000, 1e8, seed);
  float plain = 0;
  for (float v : x)
    plain = tcr::detail::add_rn(plain, v);
  const exact_data ex = exact_of_sum(to_double(x));
  const double u = unit_roundoff<float>(), g = gamma_k(999, u);
  CHECK(tcr::test::abs_error(plain, ex.s) >
        inflate(u * std::fabs(ex.s.to_double()) + g * g * ex.S));
}

TEST_CASE_TEMPLATE("accumulators follow IEEE on special values", A, tcr::kahan<float>,
                   tcr::kahan<double>, tcr::neumaier<float>, tcr::neumaier<double>) {
  using T = typename A::value_type;
  using lim = std::numeric_limits<T>;
  const T inf = lim::infinity(), nan = lim::quiet_NaN(), big = lim::max();
  auto sum = [](std::vector<T> xs) {
    A a;
    for (T v : xs)
      a.add(v);
    return a.result();
  };
  CHECK(sum({T(1), inf, T(2)}) == inf);
  CHECK(sum({inf, T(1), T(-3), T(0.5)}) == inf);
  CHECK(sum({T(1), -inf, T(2)}) == -inf);
  CHECK(std::isnan(sum({inf, T(1), -inf})));
  CHECK(std::isnan(sum({T(1), nan, T(2)})));
  CHECK(std::isnan(sum({nan, inf})));
  // Overflow of a finite sum gives inf, never NaN; plain summation's order decides.
  CHECK(sum({big, big}) == inf);
  CHECK(sum({big, big, T(1)}) == inf);
  CHECK(sum({-big, -big, T(1)}) == -inf);
  CHECK(sum({big, big, -big}) == inf);
  CHECK(sum({big, -big, big}) == big);
  // Zeros and subnormals.
  CHECK(std::signbit(sum({})));
  CHECK(std::signbit(sum({T(-0.0), T(-0.0)})));
  CHECK(!std::signbit(sum({T(-0.0), T(0.0)})));
  CHECK(sum({lim::denorm_min(), lim::denorm_min(), -lim::denorm_min()}) == lim::denorm_min());
  CHECK(sum({lim::min(), -lim::denorm_min()}) == lim::min() - lim::denorm_min());
  // Through merge, in either order.
  A a, b;
  a.add(T(3));
  b.add(inf);
  A ab = a;
  ab.merge(b);
  A ba = b;
  ba.merge(a);
  CHECK(ab.result() == inf);
  CHECK(ba.result() == inf);
  ab.add(T(1)); // the accumulator keeps following plain summation after the merge
  CHECK(ab.result() == inf);
  A c;
  c.add(-inf);
  ab.merge(c);
  CHECK(std::isnan(ab.result()));
}

TEST_CASE_TEMPLATE("dot2 follows IEEE on special values", T, float, double) {
  using lim = std::numeric_limits<T>;
  const T inf = lim::infinity(), nan = lim::quiet_NaN(), big = lim::max();
  auto dot = [](std::vector<T> x, std::vector<T> y) {
    tcr::dot2<T> a;
    for (std::size_t i = 0; i < x.size(); ++i)
      a.add(x[i], y[i]);
    return a.result();
  };
  CHECK(dot({T(1), inf}, {T(2), T(3)}) == inf);
  CHECK(dot({T(1), inf}, {T(2), T(-3)}) == -inf);
  CHECK(std::isnan(dot({inf, T(1)}, {T(0), T(1)}))); // inf * 0
  CHECK(std::isnan(dot({inf, inf}, {T(1), T(-1)})));
  CHECK(std::isnan(dot({nan, T(1)}, {T(1), T(1)})));
  CHECK(dot({big, T(1)}, {T(2), T(1)}) == inf); // overflowing product
  CHECK(dot({big, big}, {T(1), T(1)}) == inf);  // overflowing sum
  CHECK(std::signbit(dot({T(-0.0)}, {T(1)})));
  CHECK(!std::signbit(dot({T(-0.0)}, {T(-1)})));
}
