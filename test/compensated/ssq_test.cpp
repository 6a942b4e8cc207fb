// SPDX-License-Identifier: BSD-3-Clause
// Tests for compensated/ssq.cuh on the host: the norm against MPFR, with the bound proved in
// the header, over the whole exponent range (largest normals, subnormals, band crossings),
// merge orders and special values.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>
#include <tcr/compensated/ssq.cuh>
#include "support/mpfr_ref.hpp"

namespace {

using tcr::test::mp;

// The exact norm of xs as an MPFR number with relative error <= 2^-299 (squares summed exactly).
mp exact_norm(const std::vector<double>& xs) {
  const mp ss = tcr::test::exact_dot(xs, xs);
  mp r(300);
  mpfr_sqrt(r.get(), ss.get(), MPFR_RNDN);
  return r;
}

// An upper bound, as a double, of |res - ||x||| (the reference's own error included).
double norm_error_up(double res, const mp& ref) {
  mp d(1200);
  mpfr_sub_d(d.get(), ref.get(), res, MPFR_RNDU);
  mpfr_abs(d.get(), d.get(), MPFR_RNDU);
  mp slack(64);
  mpfr_mul_2si(slack.get(), ref.get(), -298, MPFR_RNDU);
  mpfr_abs(slack.get(), slack.get(), MPFR_RNDU);
  mpfr_add(d.get(), d.get(), slack.get(), MPFR_RNDU);
  return mpfr_get_d(d.get(), MPFR_RNDU);
}

// The bound of ssq.cuh for tree height h (h counts result()'s fold), as a relative error,
// evaluated in double and inflated to cover the rounding of its own evaluation.
template <class T>
double ssq_rel_bound(double h) {
  const double u = std::ldexp(1.0, -std::numeric_limits<T>::digits);
  auto gamma = [u](double k) { return k * u / (1 - k * u); };
  const double eta = gamma(2 * h) * (h + 1) * u * (1 + gamma(h)) + std::ldexp(1.0, -70);
  const double e2 = eta / (2 - eta);
  const double rel = u + 8 * u * u + e2 * (1 + u + 8 * u * u);
  return rel * (1 + std::ldexp(1.0, -40));
}

template <class T>
double smallest_subnormal() {
  return double(std::numeric_limits<T>::denorm_min());
}

// |res - ||x||| <= rel ||x|| + q.
template <class T>
void check_norm(const std::vector<double>& xs, T res, double h) {
  const mp ref = exact_norm(xs);
  const double norm = ref.to_double();
  INFO("n = ", xs.size(), ", h = ", h, ", res = ", double(res), ", norm = ", norm);
  REQUIRE(std::isfinite(norm)); // callers test overflow separately
  REQUIRE(std::isfinite(double(res)));
  const double err = norm_error_up(double(res), ref);
  const double norm_up = std::nextafter(norm, std::numeric_limits<double>::infinity());
  const double allowed = ssq_rel_bound<T>(h) * norm_up + smallest_subnormal<T>();
  CHECK(err <= allowed);
}

template <class T, class X>
T norm_chain(const std::vector<X>& xs) {
  tcr::ssq<T> acc;
  for (const X& x : xs)
    acc.add(x);
  return acc.result();
}

// A finite value of T with a uniform random exponent in [emin, emax] (emin may reach into the
// subnormals: those are drawn with a random significand below the smallest normal).
template <class T>
T random_value(std::mt19937_64& rng, int emin, int emax) {
  std::uniform_int_distribution<int> ex(emin, emax);
  std::uniform_real_distribution<T> mant(1, 2);
  std::bernoulli_distribution neg(0.5);
  const int e = ex(rng);
  T v = std::ldexp(mant(rng), e); // rounds to the subnormal grid below the normals
  if (v > std::numeric_limits<T>::max())
    v = std::numeric_limits<T>::max();
  return neg(rng) ? -v : v;
}

template <class T>
std::vector<double> to_double(const std::vector<T>& xs) {
  return std::vector<double>(xs.begin(), xs.end());
}

template <class T>
void check_random_ranges(std::uint64_t seed) {
  INFO("seed = ", seed);
  std::mt19937_64 rng(seed);
  constexpr int emax = std::numeric_limits<T>::max_exponent - 1;
  constexpr int emin_sub = std::numeric_limits<T>::min_exponent - std::numeric_limits<T>::digits;
  const int ranges[][2] = {
      {-10, 10},                                        // medium only
      {emin_sub, emax},                                 // everything, including subnormals
      {emin_sub, std::numeric_limits<T>::min_exponent}, // subnormals and small normals
      {tcr::detail::ssq_traits<T>::ts - 3, tcr::detail::ssq_traits<T>::ts + 3}, // small/medium
      {tcr::detail::ssq_traits<T>::tb - 3, tcr::detail::ssq_traits<T>::tb + 3}, // medium/big
      {emax - 8, emax},          // near overflow (sum of squares is not)
      {emin_sub, emin_sub + 30}, // deep subnormals only
  };
  for (const auto& range : ranges) {
    for (std::size_t n : {1u, 2u, 3u, 17u, 100u, 1000u}) {
      for (int rep = 0; rep < 4; ++rep) {
        std::vector<T> xs(n);
        for (auto& x : xs)
          x = random_value<T>(rng, range[0], range[1]);
        const auto xd = to_double(xs);
        if (exact_norm(xd).to_double() > double(std::numeric_limits<T>::max()) / 2)
          continue; // overflow is tested on its own
        INFO("range [", range[0], ", ", range[1], "], n = ", n);
        check_norm<T>(xd, norm_chain<T>(xs), double(n) + 1);
        if constexpr (std::is_same_v<T, float>) {
          check_norm<double>(xd, norm_chain<double>(xs), double(n) + 1);
        }
      }
    }
  }
}

} // namespace

TEST_CASE("ssq: norm within its bound over the whole exponent range (float)") {
  check_random_ranges<float>(0x55510001);
}

TEST_CASE("ssq: norm within its bound over the whole exponent range (double)") {
  check_random_ranges<double>(0x55510002);
}

TEST_CASE_TEMPLATE("ssq: extreme single values and repeated values", T, float, double) {
  using lim = std::numeric_limits<T>;
  const T values[] = {lim::max(),
                      lim::min(),
                      lim::denorm_min(),
                      T(3) * lim::denorm_min(),
                      lim::min() - lim::denorm_min(),
                      T(1),
                      T(-1),
                      tcr::ssq<T>::t_sml,
                      std::nextafter(tcr::ssq<T>::t_sml, T(0)),
                      tcr::ssq<T>::t_big,
                      std::nextafter(tcr::ssq<T>::t_big, lim::max())};
  for (T v : values) {
    INFO("v = ", double(v));
    // One value: its absolute value exactly.
    CHECK(norm_chain<T>(std::vector<T>{v}) == std::fabs(v));
    CHECK(norm_chain<T>(std::vector<T>{-v}) == std::fabs(v));
    // Repeated values: sqrt(n) |v|, within the bound (or overflow, only for max).
    for (std::size_t n : {2u, 4u, 9u, 1000u}) {
      const std::vector<T> xs(n, v);
      const T res = norm_chain<T>(xs);
      if (v == lim::max()) {
        CHECK(res == lim::infinity()); // sqrt(n) max overflows: inf, never NaN
      } else {
        check_norm<T>(to_double(xs), res, double(n) + 1);
      }
    }
  }
}

TEST_CASE_TEMPLATE("ssq: no spurious overflow or underflow", T, float, double) {
  using lim = std::numeric_limits<T>;
  // Just below overflow: two values of max / sqrt(2) (rounded down) and max / 2.
  {
    const T a = lim::max() / T(2);
    const std::vector<T> xs{a, a, a}; // norm = sqrt(3)/2 max < max
    const T res = norm_chain<T>(xs);
    check_norm<T>(to_double(xs), res, 4);
  }
  // Values whose squares all underflow but whose norm is normal.
  {
    std::vector<T> xs(1 << 12, std::ldexp(T(1), lim::min_exponent - 8));
    check_norm<T>(to_double(xs), norm_chain<T>(xs), double(xs.size()) + 1);
  }
  // Values whose squares all overflow but whose norm does not.
  {
    std::vector<T> xs(64, std::ldexp(T(1), lim::max_exponent - 8));
    check_norm<T>(to_double(xs), norm_chain<T>(xs), double(xs.size()) + 1);
  }
  // A huge value with many tiny ones, and a tiny with many medium ones: every band at once.
  {
    std::vector<T> xs{lim::max() / T(4)};
    for (int i = 0; i < 100; ++i)
      xs.push_back(T(1.5));
    for (int i = 0; i < 100; ++i)
      xs.push_back(lim::denorm_min() * T(7));
    check_norm<T>(to_double(xs), norm_chain<T>(xs), double(xs.size()) + 1);
    std::reverse(xs.begin(), xs.end());
    check_norm<T>(to_double(xs), norm_chain<T>(xs), double(xs.size()) + 1);
  }
  // Medium values just above t_sml together with many subnormals that matter.
  {
    std::vector<T> xs{tcr::ssq<T>::t_sml};
    for (int i = 0; i < 1000; ++i)
      xs.push_back(std::ldexp(T(1.25), tcr::detail::ssq_traits<T>::ts - 1));
    check_norm<T>(to_double(xs), norm_chain<T>(xs), double(xs.size()) + 1);
  }
  // The medium sum below the fold threshold with small values that are not negligible.
  {
    std::vector<T> xs;
    for (int i = 0; i < 50; ++i)
      xs.push_back(std::ldexp(T(1.75), tcr::detail::ssq_traits<T>::ts + 1));
    for (int i = 0; i < 50; ++i)
      xs.push_back(std::ldexp(T(1.5), tcr::detail::ssq_traits<T>::ts - 1));
    check_norm<T>(to_double(xs), norm_chain<T>(xs), double(xs.size()) + 1);
  }
}

TEST_CASE_TEMPLATE("ssq: special values follow IEEE", T, float, double) {
  using lim = std::numeric_limits<T>;
  const T inf = lim::infinity(), nan = lim::quiet_NaN();
  CHECK(tcr::ssq<T>{}.result() == T(0));
  CHECK(norm_chain<T>(std::vector<T>{T(0), T(-0.0)}) == T(0));
  CHECK(norm_chain<T>(std::vector<T>{T(1), inf, T(2)}) == inf);
  CHECK(norm_chain<T>(std::vector<T>{T(1), -inf, T(2)}) == inf);
  CHECK(norm_chain<T>(std::vector<T>{inf, -inf}) == inf);
  CHECK(std::isnan(norm_chain<T>(std::vector<T>{T(1), nan, T(2)})));
  CHECK(std::isnan(norm_chain<T>(std::vector<T>{inf, nan})));
  CHECK(std::isnan(norm_chain<T>(std::vector<T>{nan, -inf, lim::max()})));
  CHECK(norm_chain<T>(std::vector<T>{lim::max(), lim::max()}) == inf);
  CHECK(norm_chain<T>(std::vector<T>{lim::denorm_min(), T(0)}) == lim::denorm_min());
  // Special values through merge.
  tcr::ssq<T> a, b;
  a.add(T(3));
  b.add(inf);
  a.merge(b);
  CHECK(a.result() == inf);
  tcr::ssq<T> c;
  c.add(nan);
  a.merge(c);
  CHECK(std::isnan(a.result()));
}

TEST_CASE_TEMPLATE("ssq: merging in any order stays within the bound", T, float, double) {
  const std::uint64_t seed = 0x55510003 + sizeof(T);
  INFO("seed = ", seed);
  std::mt19937_64 rng(seed);
  constexpr int emax = std::numeric_limits<T>::max_exponent - 3;
  constexpr int emin_sub = std::numeric_limits<T>::min_exponent - std::numeric_limits<T>::digits;
  for (int rep = 0; rep < 20; ++rep) {
    const std::size_t chunks = 1 + rng() % 64, chunk = 1 + rng() % 40;
    // Wide-range data, but within a factor 2^(emax - 12) of each other only for some reps.
    const int lo = rep % 2 ? emin_sub : -20, hi = rep % 2 ? emax - 12 : 20;
    std::vector<T> xs(chunks * chunk);
    for (auto& x : xs)
      x = random_value<T>(rng, lo, hi);
    std::vector<tcr::ssq<T>> parts(chunks);
    for (std::size_t i = 0; i < xs.size(); ++i)
      parts[i / chunk].add(xs[i]);
    // Merge random pairs until one is left; track the height of each tree.
    std::vector<double> height(chunks, double(chunk));
    while (parts.size() > 1) {
      const std::size_t i = rng() % parts.size();
      std::size_t j = rng() % (parts.size() - 1);
      if (j >= i)
        ++j;
      parts[i].merge(parts[j]);
      height[i] = std::max(height[i], height[j]) + 1;
      parts.erase(parts.begin() + std::ptrdiff_t(j));
      height.erase(height.begin() + std::ptrdiff_t(j));
    }
    INFO("rep = ", rep, ", chunks = ", chunks, ", chunk = ", chunk);
    check_norm<T>(to_double(xs), parts[0].result(), height[0] + 1);
  }
}

TEST_CASE("ssq: low-precision inputs accumulate in float") {
  const std::uint64_t seed = 0x55510004;
  INFO("seed = ", seed);
  std::mt19937_64 rng(seed);
  std::vector<__half> h;
  std::vector<__nv_bfloat16> b;
  std::vector<__nv_fp8_e4m3> e4;
  std::vector<__nv_fp8_e5m2> e5;
  std::vector<double> hd, bd, e4d, e5d;
  for (int i = 0; i < 5000; ++i) {
    const float v = random_value<float>(rng, -20, 12);
    h.push_back(__half(v));
    hd.push_back(double(float(h.back())));
    b.push_back(__nv_bfloat16(random_value<float>(rng, -130, 120)));
    bd.push_back(double(float(b.back())));
    e4.push_back(__nv_fp8_e4m3(v));
    e4d.push_back(double(float(e4.back())));
    e5.push_back(__nv_fp8_e5m2(v));
    e5d.push_back(double(float(e5.back())));
  }
  check_norm<float>(hd, norm_chain<float>(h), 5001);
  check_norm<float>(bd, norm_chain<float>(b), 5001);
  check_norm<float>(e4d, norm_chain<float>(e4), 5001);
  check_norm<float>(e5d, norm_chain<float>(e5), 5001);
}

TEST_CASE("ssq: the bound is tight enough that a plain float norm fails it") {
  // sqrt(sum x^2) in float, recursively: relative error about n u / 2 for equal values.
  std::vector<float> xs(1 << 14, 0.1f);
  float plain = 0;
  for (float x : xs)
    plain = tcr::detail::add_rn(plain, tcr::detail::mul_rn(x, x));
  plain = std::sqrt(plain);
  const mp ref = exact_norm(to_double(xs));
  CHECK(norm_error_up(plain, ref) >
        2 * ssq_rel_bound<float>(double(xs.size()) + 1) * ref.to_double());
  check_norm<float>(to_double(xs), norm_chain<float>(xs), double(xs.size()) + 1);
}
