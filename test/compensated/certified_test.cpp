// SPDX-License-Identifier: BSD-3-Clause
// Tests for compensated/certified.cuh on the host: the upward-rounding helpers against exact
// MPFR values (add_ru and to_float_ru exactly RU, mul_ru never below RU and exactly RU where
// certified.cuh says, fma_ru never below RU), the bound's special values, and the certified
// accumulators (the running bound of certified_float_accumulator, the summed-magnitudes form
// over reductions.cuh's accumulators, the exact ones over compensated/exact.cuh) driven as the
// device kernel drives them (threads adding 16-byte vectors grid-strided, a tree of partial
// merges): the value is the plain accumulator's, bit for bit; the bound covers the exact error
// and is as tight as certified.cuh states, on ill-conditioned sums and dots to condition 1e32,
// subnormals, data near overflow, special values and n = 0. One case prints how far each bound
// lies above the actual error (quoted in the README).
#include <doctest/doctest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>
#include <tcr/compensated/certified.cuh>
#include <tcr/compensated/exact.cuh>
#include <tcr/compensated/reductions.cuh>
#include "compensated/certified_check.hpp"
#include "support/gen.hpp"
#include "support/mpfr_ref.hpp"

namespace {

using tcr::certified;
using tcr::test::mp;
using tcr::test::rng64;
namespace cert = tcr::test::cert;

// ---------------------------------------------------------------------------------------------
// Upward rounding.

// A random T over the whole range: sign, exponent uniform (subnormals included), random bits.
template <class T>
T random_value(rng64& rng) {
  using bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  constexpr bits exp_max = sizeof(T) == 4 ? 0xff : 0x7ff;
  constexpr int frac = sizeof(T) == 4 ? 23 : 52;
  const bits e = static_cast<bits>(rng.integer(0, exp_max - 1)); // no Inf / NaN
  const bits f = static_cast<bits>(rng.next()) & ((bits(1) << frac) - 1);
  const bits s = rng.coin() ? bits(1) << (8 * sizeof(T) - 1) : 0;
  const bits b = s | (e << frac) | f;
  T v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}
// Operands that meet at interesting places: nearby exponents (cancellation and carries), far
// apart, or anywhere.
template <class T>
std::pair<T, T> random_pair(rng64& rng) {
  const T a = random_value<T>(rng);
  T b = random_value<T>(rng);
  if (rng.coin() && a != T(0)) {
    int ea, eb;
    std::frexp(a, &ea);
    const T near = std::ldexp(std::frexp(b, &eb), ea + int(rng.integer(-30, 3)));
    if (std::isfinite(near))
      b = near;
  }
  return {a, b};
}

// r >= exact, and (exactly RU) the next value down is below exact.
template <class T>
bool upper(T r, const mp& exact) {
  return mpfr_cmp_d(exact.get(), static_cast<double>(r)) <= 0;
}
template <class T>
bool tight_upper(T r, const mp& exact) {
  const T down = std::nextafter(r, -std::numeric_limits<T>::infinity());
  return upper(r, exact) && (r == std::numeric_limits<T>::lowest() ||
                             mpfr_cmp_d(exact.get(), static_cast<double>(down)) > 0);
}

template <class T>
void check_rounding_up(std::uint64_t seed) {
  rng64 rng(seed);
  INFO("seed ", seed, ", ", sizeof(T) == 4 ? "float" : "double");
  for (int i = 0; i < 200000; ++i) {
    const auto [a, b] = random_pair<T>(rng);
    INFO("a = ", a, ", b = ", b);
    mp sum(mp::exact_sum_bits);
    mpfr_set_d(sum.get(), double(a), MPFR_RNDN);
    mpfr_add_d(sum.get(), sum.get(), double(b), MPFR_RNDN); // exact
    REQUIRE(tight_upper(tcr::detail::add_ru(a, b), sum));
    mp prod(128);
    mpfr_set_d(prod.get(), double(a), MPFR_RNDN);
    mpfr_mul_d(prod.get(), prod.get(), double(b), MPFR_RNDN); // exact
    const T p = tcr::detail::mul_ru(a, b);
    REQUIRE(upper(p, prod));
    const double trusted = sizeof(T) == 4 ? 0x1p-90 : 0x1p-960;
    if (std::fabs(double(a) * double(b)) >= 2 * trusted || std::isinf(p))
      REQUIRE(tight_upper(p, prod));
    const T c = random_value<T>(rng);
    mp fma(mp::exact_dot_bits);
    mpfr_set(fma.get(), prod.get(), MPFR_RNDN);             // exact
    mpfr_add_d(fma.get(), fma.get(), double(c), MPFR_RNDN); // exact at this precision
    REQUIRE(upper(tcr::detail::fma_ru(a, b, c), fma));
    if constexpr (sizeof(T) == 8) {
      const float f = tcr::detail::to_float_ru(a);
      const mp ea(double(a), 64);
      REQUIRE(tight_upper(f, ea));
    }
  }
  // Overflow: RU goes to +inf upward, to the most negative finite value downward.
  const T big = std::numeric_limits<T>::max();
  CHECK(std::isinf(tcr::detail::add_ru(big, big)));
  CHECK(tcr::detail::add_ru(-big, -big) == std::numeric_limits<T>::lowest());
  CHECK(std::isinf(tcr::detail::mul_ru(big, T(2))));
  CHECK(tcr::detail::mul_ru(-big, T(2)) == std::numeric_limits<T>::lowest());
  CHECK(tcr::detail::mul_ru(std::numeric_limits<T>::denorm_min(), T(0.5)) ==
        std::numeric_limits<T>::denorm_min()); // a positive product never rounds up to 0
  CHECK(tcr::detail::mul_ru(T(0), T(0.5)) == T(0));
  CHECK(std::isnan(tcr::detail::add_ru(std::numeric_limits<T>::quiet_NaN(), T(1))));
}

TEST_CASE("add_ru, mul_ru, to_float_ru: upward rounding, checked against exact values") {
  check_rounding_up<float>(1);
  check_rounding_up<double>(2);
  CHECK(tcr::detail::to_float_ru(0x1p-150) == 0x1p-149f);
  CHECK(tcr::detail::to_float_ru(1e300) == std::numeric_limits<float>::infinity());
  CHECK(tcr::detail::to_float_ru(-1e300) == -FLT_MAX);
  CHECK(tcr::detail::to_float_ru(double(FLT_MAX)) == FLT_MAX);
}

TEST_CASE("certified_bound and exact_pair_bound: special values, zeros, the subnormal floor") {
  using tcr::detail::certified_bound;
  const auto k = tcr::detail::compensated_terms<float>();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(std::isnan(certified_bound(nan, k, 1.0)));
  CHECK(certified_bound(inf, k, 1.0) == inf);
  CHECK(certified_bound(-inf, k, 1.0) == inf);
  CHECK(std::isnan(certified_bound(1.0f, k, std::nan(""))));
  CHECK(certified_bound(0.0f, k, 0.0) == 0x1p-149f); // 2^-150, rounded up to float
  CHECK(certified_bound(1.0f, k, 0.0) == std::nextafter(0x1p-24f, 1.0f)); // 2^-24 + 2^-150, up
  CHECK(certified_bound(1.0f, k, 1e300) == inf); // S beyond float: a valid, useless bound
  const auto kd = tcr::detail::compensated_terms<double>();
  CHECK(certified_bound(0.0, kd, 0.0) == 0x1p-1074);
  CHECK(certified_bound(1.0, kd, 1.0) == std::nextafter(0x1p-53 + 0x1p-99, 1.0));
  CHECK(certified_bound(1.0, kd, std::numeric_limits<double>::infinity()) ==
        std::numeric_limits<double>::infinity());
  using tcr::detail::exact_pair_bound;
  CHECK(exact_pair_bound<float, true>(1.0f, 0.0f) == 0.0f);
  CHECK(exact_pair_bound<float, false>(1.0f, 0.0f) == 0x1p-149f);
  CHECK(exact_pair_bound<double, true>(1.0, 0.0) == 0.0);
  CHECK(exact_pair_bound<double, false>(1.0, 0.0) == 0x1p-1074);
  CHECK(exact_pair_bound<float, true>(1.0f, -0x1p-30f) >= 0x1p-30f);
  CHECK(std::isnan(exact_pair_bound<float, true>(nan, 0.0f)));
  CHECK(exact_pair_bound<float, true>(-inf, 0.0f) == inf);
}

// ---------------------------------------------------------------------------------------------
// The accumulators, driven like the device kernel.

enum class kind { sum, asum, dot, nrm2 };

// Threads take vectors of V elements grid-strided, the rest one element at a time; the
// partials are merged in a balanced tree; finish or empty_result gives the certified result.
template <class Out, kind K, class Acc, class X>
Out reduce_host(const Acc& fresh, const std::vector<X>& x, const std::vector<X>& y,
                int threads = 96) {
  constexpr int V = 16 / sizeof(X) < 4 ? 4 : 16 / sizeof(X);
  using P = typename Acc::partial_type;
  const std::size_t n = x.size();
  if (n == 0)
    return fresh.template empty_result<Out>();
  std::vector<Acc> acc(threads, fresh);
  const std::size_t nvec = n / V;
  for (std::size_t v = 0; v < nvec; ++v) {
    Acc& a = acc[v % threads];
    X xv[V], yv[V];
    for (int j = 0; j < V; ++j) {
      xv[j] = x[v * V + j];
      yv[j] = y.empty() ? X(0) : y[v * V + j];
    }
    if constexpr (K == kind::dot)
      a.add(xv, yv);
    else if constexpr (K == kind::asum)
      a.add_magnitudes(xv);
    else
      a.add(xv);
  }
  for (std::size_t i = nvec * V; i < n; ++i) {
    Acc& a = acc[i % threads];
    const X xv[1] = {x[i]};
    if constexpr (K == kind::dot) {
      const X yv[1] = {y[i]};
      a.add(xv, yv);
    } else if constexpr (K == kind::asum) {
      a.add_magnitudes(xv);
    } else {
      a.add(xv);
    }
  }
  std::vector<P> parts;
  for (const Acc& a : acc)
    parts.push_back(a.partial());
  while (parts.size() > 1) {
    std::vector<P> next;
    for (std::size_t i = 0; i + 1 < parts.size(); i += 2)
      next.push_back(fresh.merge(parts[i], parts[i + 1]));
    if (parts.size() % 2)
      next.push_back(parts.back());
    parts.swap(next);
  }
  return fresh.template finish<Out>(parts[0]);
}

// What DeviceReduce uses: the running bound for float results, the sum of magnitudes for double
// ones; and the sum-of-magnitudes form for float results too (s_ prefix).
template <class T>
using sum_acc = std::conditional_t<std::is_same_v<T, float>, tcr::certified_float_accumulator,
                                   tcr::certified_accumulator<tcr::sum_accumulator<T>, false>>;
template <class T>
using dot_acc = std::conditional_t<std::is_same_v<T, float>, tcr::certified_float_accumulator,
                                   tcr::certified_accumulator<tcr::dot_accumulator<T>, false>>;
template <class T>
using s_sum_acc = tcr::certified_accumulator<tcr::sum_accumulator<T>, false>;
template <class T>
using s_dot_acc = tcr::certified_accumulator<tcr::dot_accumulator<T>, false>;
template <class T>
using nrm2_acc = tcr::certified_accumulator<tcr::nrm2_accumulator<T>, true>;
template <class T>
using exact_acc = tcr::certified_exact<tcr::exact_sum<T>, false, true>;

template <class V>
std::vector<double> doubles(const std::vector<V>& v) {
  return {v.begin(), v.end()};
}

// Sum and Asum of x (float or double) into certified<X>, compensated and exact: covers, tight.
template <class X>
void check_sum(const std::vector<X>& x, int threads = 96) {
  INFO("n ", x.size(), ", threads ", threads);
  const std::vector<double> d = doubles(x);
  for (bool absolute : {false, true}) {
    INFO((absolute ? "Asum" : "Sum"));
    const mp s = tcr::test::exact_sum([&] {
      std::vector<double> a(d);
      if (absolute)
        for (double& v : a)
          v = std::fabs(v);
      return a;
    }());
    const mp S = tcr::test::exact_sum([&] {
      std::vector<double> a(d);
      for (double& v : a)
        v = std::fabs(v);
      return a;
    }());
    const auto run = [&](auto fresh) {
      return absolute ? reduce_host<certified<X>, kind::asum>(fresh, x, {}, threads)
                      : reduce_host<certified<X>, kind::sum>(fresh, x, {}, threads);
    };
    // The plain accumulator's value, bit for bit.
    const X plain = absolute ? reduce_host<X, kind::asum>(tcr::sum_accumulator<X>{}, x, {}, threads)
                             : reduce_host<X, kind::sum>(tcr::sum_accumulator<X>{}, x, {}, threads);
    for (const certified<X>& c : {run(sum_acc<X>{}), run(s_sum_acc<X>{})}) {
      INFO("compensated: value ", c.value, ", bound ", c.error_bound, ", exact ", s.to_double(),
           ", bound / error ", cert::overestimate(c.value, c.error_bound, s));
      CHECK(std::memcmp(&c.value, &plain, sizeof plain) == 0);
      CHECK(cert::covers(c.value, c.error_bound, s));
      if (std::isfinite(c.value)) // (an exact result beyond X's range: value and bound +inf)
        CHECK(cert::tight_compensated<X>(c.error_bound, s, S));
    }
    // The exact accumulator takes magnitudes as plain inputs (the device clears sign bits).
    std::vector<X> a(x);
    if (absolute)
      for (X& v : a)
        v = std::fabs(v);
    const certified<X> e = reduce_host<certified<X>, kind::sum>(exact_acc<X>{}, a, {}, threads);
    INFO("exact: value ", e.value, ", bound ", e.error_bound);
    CHECK(cert::covers(e.value, e.error_bound, s));
    if (std::isfinite(e.value))
      CHECK(cert::tight_exact<X>(e.value, e.error_bound, s));
    CHECK((e.error_bound == 0) == mpfr_zero_p(cert::exact_error(e.value, s).get()));
  }
}

template <class X>
void check_dot(const std::vector<X>& x, const std::vector<X>& y) {
  INFO("Dot, n ", x.size());
  const mp s = tcr::test::exact_dot(doubles(x), doubles(y));
  std::vector<double> ax = doubles(x), ay = doubles(y);
  for (double& v : ax)
    v = std::fabs(v);
  for (double& v : ay)
    v = std::fabs(v);
  const mp S = tcr::test::exact_dot(ax, ay);
  const X plain = reduce_host<X, kind::dot>(tcr::dot_accumulator<X>{}, x, y);
  for (const certified<X>& c : {reduce_host<certified<X>, kind::dot>(dot_acc<X>{}, x, y),
                                reduce_host<certified<X>, kind::dot>(s_dot_acc<X>{}, x, y)}) {
    INFO("value ", c.value, ", bound ", c.error_bound, ", exact ", s.to_double(),
         ", bound / error ", cert::overestimate(c.value, c.error_bound, s));
    CHECK(std::memcmp(&c.value, &plain, sizeof plain) == 0);
    CHECK(cert::covers(c.value, c.error_bound, s));
    CHECK(cert::tight_compensated<X>(c.error_bound, s, S));
  }
}

template <class X>
void check_nrm2(const std::vector<X>& x) {
  INFO("Nrm2, n ", x.size());
  const mp ssq = tcr::test::exact_dot(doubles(x), doubles(x));
  const certified<X> c = reduce_host<certified<X>, kind::nrm2>(nrm2_acc<X>{}, x, {});
  INFO("value ", c.value, ", bound ", c.error_bound);
  CHECK(cert::covers_norm(c.value, c.error_bound, ssq));
  CHECK(c.error_bound <= std::ldexp(std::fabs(c.value), sizeof(X) == 4 ? -23 : -52) +
                             (sizeof(X) == 4 ? 0x1p-148 : 0x1p-1072));
}

TEST_CASE("certified accumulators: ill-conditioned sums and dots to condition 1e32") {
  for (double cond : {1e0, 1e4, 1e8, 1e16, 1e24, 1e32}) {
    for (std::size_t n : {7, 100, 5000, 100000}) {
      const std::uint64_t seed = n + static_cast<std::uint64_t>(std::log10(cond));
      INFO("cond ", cond, ", seed ", seed);
      check_sum(tcr::test::gen_sum<float>(n, cond, seed), int(n % 97) + 1);
      check_sum(tcr::test::gen_sum<double>(n, cond, seed + 1));
      const auto [x, y] = tcr::test::gen_dot<float>(n, cond, seed + 2);
      check_dot(x, y);
      const auto [xd, yd] = tcr::test::gen_dot<double>(n, cond, seed + 3);
      check_dot(xd, yd);
    }
  }
}

// Whether s is a midpoint of a format of `bits` significant bits (exact at bits + 1, not at
// bits), above min in magnitude (where the format is normal).
bool is_midpoint(const mp& s, int bits, double min) {
  mp wide(bits + 1), narrow(bits);
  return mpfr_set(wide.get(), s.get(), MPFR_RNDN) == 0 &&
         mpfr_set(narrow.get(), s.get(), MPFR_RNDN) != 0 && std::fabs(s.to_double()) > min;
}

// The exact modes' certify-first pass (certify_first_accumulator, decides_float): the bound
// covers the exact error and is within certified.cuh's tightness, u |value| (1 + 2^-50) +
// 2 N^2 u^2 S (1 + 2^-50); where decides_float decides, its float is the exact result rounded to
// nearest even. Returns whether it decided.
template <kind K>
bool check_certify_first(const std::vector<float>& x, const std::vector<float>& y, int threads) {
  INFO("certify-first, kind ", int(K), ", n ", x.size(), ", threads ", threads);
  std::vector<double> dx = doubles(x), dy = doubles(y);
  if (K == kind::asum)
    for (double& v : dx)
      v = std::fabs(v);
  const mp s = K == kind::dot ? tcr::test::exact_dot(dx, dy) : tcr::test::exact_sum(dx);
  std::vector<double> ax = doubles(x), ay = doubles(y);
  for (double& v : ax)
    v = std::fabs(v);
  for (double& v : ay)
    v = std::fabs(v);
  const mp S = K == kind::dot ? tcr::test::exact_dot(ax, ay) : tcr::test::exact_sum(ax);
  const certified<double> c =
      reduce_host<certified<double>, K>(tcr::certify_first_accumulator{}, x, y, threads);
  INFO("value ", c.value, ", bound ", c.error_bound, ", exact ", s.to_double());
  if (std::isfinite(c.value)) { // (Inf and NaN inputs: a NaN value and bound)
    CHECK(cert::covers(c.value, c.error_bound, s));
    const double N = static_cast<double>(x.size());
    const double claim =
        (0x1p-53 * std::fabs(c.value) + 2 * N * N * 0x1p-106 * S.to_double()) * (1 + 0x1p-40);
    CHECK(c.error_bound <= claim);
  }
  float f = 0.0f;
  const bool decided = tcr::decides_float(c, f);
  if (decided) {
    const float want = s.to_float();
    CHECK(std::memcmp(&f, &want, sizeof f) == 0);
  }
  // An exact tie (a float midpoint in the normal range) is never decided, and counts as decided
  // for the callers' statistics (the rounding is the exact pass's task).
  const bool tie = is_midpoint(s, 24, 0x1p-125);
  if (tie)
    CHECK(!decided);
  return decided || tie;
}

TEST_CASE("certify-first: covers, tight, decides the rounding where it may, never a tie") {
  int decided = 0, cases = 0;
  for (double cond : {1e0, 1e4, 1e8, 1e16, 1e24, 1e32}) {
    for (std::size_t n : {7, 100, 5000, 65536}) {
      const std::uint64_t seed = 5 * n + static_cast<std::uint64_t>(std::log10(cond));
      INFO("cond ", cond, ", seed ", seed);
      const int threads = int(n % 255) + 1;
      const std::vector<float> x = tcr::test::gen_sum<float>(n, cond, seed);
      const bool sum = check_certify_first<kind::sum>(x, {}, threads);
      check_certify_first<kind::asum>(x, {}, threads);
      const auto [dx, dy] = tcr::test::gen_dot<float>(n, cond, seed + 2);
      const bool dot = check_certify_first<kind::dot>(dx, dy, threads);
      if (cond <= 1e8) { // undecided with probability at most about 2^-29 + 2^-49 cond
        CHECK(sum);
        CHECK(dot);
      }
      decided += sum + dot;
      cases += 2;
    }
  }
  MESSAGE("certify-first decided ", decided, " of ", cases, " GenSum / GenDot cases");
  // Wide ranges, subnormal inputs, products over float's whole range.
  rng64 rng(17);
  for (int rep = 0; rep < 20; ++rep) {
    const std::size_t n = static_cast<std::size_t>(rng.integer(1, 20000));
    std::vector<float> x(n), y(n);
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = static_cast<float>(std::ldexp(rng.uniform() + 1, int(rng.integer(-149, 127))));
      y[i] = static_cast<float>(std::ldexp(rng.uniform() + 1, int(rng.integer(-149, 127))));
      if (rng.coin())
        x[i] = -x[i];
    }
    check_certify_first<kind::sum>(x, {}, 64);
    check_certify_first<kind::dot>(x, y, 64);
  }
  // Exact ties (1 + 2^-24, 1 + 3 * 2^-24) and zero sums are never decided; just off a tie (by
  // 2^-60) neither, since the value's own rounding to double enters the bound.
  for (int k = 0; k < 3; ++k) {
    std::vector<float> x(1001, 0.0f);
    for (std::size_t i = 0; i + 1 < x.size(); i += 2) {
      x[i] = static_cast<float>(std::ldexp(1 + rng.uniform(), int(rng.integer(-40, 40))));
      x[i + 1] = -x[i];
    }
    x[1000] = 1.0f;
    x[0] = k == 1 ? 3 * 0x1p-24f : 0x1p-24f; // the pair at 0, 1 replaced
    x[1] = k == 2 ? 0x1p-60f : 0.0f;
    INFO("tie ", k);
    const bool counted = check_certify_first<kind::sum>(x, {}, 33); // decided, or a tie
    certified<double> c = reduce_host<certified<double>, kind::sum>(
        tcr::certify_first_accumulator{}, x, std::vector<float>{}, 33);
    float f = 0.0f;
    CHECK(!tcr::decides_float(c, f));
    CHECK(counted == (k < 2)); // k = 2 is not a tie, but within the bound of one
  }
  CHECK(!check_certify_first<kind::sum>(std::vector<float>{1.0f, -1.0f}, {}, 2));
  CHECK(!check_certify_first<kind::sum>(std::vector<float>{-0.0f, -0.0f}, {}, 2));
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(!check_certify_first<kind::sum>(std::vector<float>{1.0f, inf}, {}, 2));
}

// A certified_double_word c of the exact value s: where finite, hi + lo lies within the bound of
// s, |lo| is at most half an ulp of hi and the bound at most `claim`; where decides_double
// decides, its double is s rounded to nearest even (mpfr_get_d); an exact tie (a double midpoint
// in the normal range) is never decided. Returns whether it decided or s is a tie.
bool check_double_word(const tcr::certified_double_word& c, const mp& s, double claim) {
  INFO("hi ", c.hi, ", lo ", c.lo, ", bound ", c.error_bound, ", exact ", s.to_double());
  const bool finite = std::isfinite(c.hi) && std::isfinite(c.lo) && std::isfinite(c.error_bound);
  if (finite) {
    mp d(mp::exact_dot_bits + 64); // s - hi - lo, exactly
    mpfr_sub_d(d.get(), s.get(), c.hi, MPFR_RNDN);
    mpfr_sub_d(d.get(), d.get(), c.lo, MPFR_RNDN);
    mpfr_abs(d.get(), d.get(), MPFR_RNDN);
    CHECK(mpfr_cmp_d(d.get(), c.error_bound) <= 0);
    CHECK(std::fabs(c.lo) <= 0.5 * (std::nextafter(std::fabs(c.hi), INFINITY) - std::fabs(c.hi)));
    CHECK(c.error_bound <= claim);
  }
  double r = 0.0;
  const bool decided = tcr::decides_double(c, r);
  if (decided) {
    CHECK(finite);
    const double want = s.to_double();
    CHECK(std::memcmp(&r, &want, sizeof r) == 0);
  }
  const bool tie = is_midpoint(s, 53, 0x1p-1021);
  if (tie)
    CHECK(!decided);
  return decided || tie;
}

// The certify-first pass for double results (Sum, Asum of doubles: certified_double_word,
// decides_double): hi + lo is within the bound of the exact sum, the bound is within
// 2 N^2 u^2 S (1 + 2^-40) plus the upward roundings of tiny terms, and where decides_double
// decides, its double is the exact sum rounded to nearest even (mpfr_get_d); an exact tie (a
// double midpoint in the normal range) is never decided. Returns whether it decided.
// Also float inputs into a double result (Sum, Asum) and Nrm2's sum of squares
// (certify_first_squares), whose RN_double the exact modes' norm takes the root of.
template <kind K, class X>
bool check_certify_first_f64(const std::vector<X>& x, int threads) {
  INFO("certify-first f64, kind ", int(K), ", n ", x.size(), ", threads ", threads);
  const std::vector<double> dx = doubles(x);
  std::vector<double> ax = dx;
  for (double& v : ax)
    v = std::fabs(v);
  const mp s = K == kind::nrm2 ? tcr::test::exact_dot(dx, dx)
                               : tcr::test::exact_sum(K == kind::asum ? ax : dx);
  const mp S = K == kind::nrm2 ? s : tcr::test::exact_sum(ax);
  using Acc = std::conditional_t<K == kind::nrm2, tcr::certify_first_squares,
                                 tcr::certify_first_accumulator>;
  const tcr::certified_double_word c =
      reduce_host<tcr::certified_double_word, K>(Acc{}, x, std::vector<X>{}, threads);
  const double N = static_cast<double>(x.size());
  return check_double_word(
      c, s, 2 * N * N * 0x1p-106 * S.to_double() * (1 + 0x1p-40) + 4 * N * 0x1p-1074);
}

TEST_CASE("certify-first, double results: covers, tight, decides where it may, never a tie") {
  int decided = 0, cases = 0;
  for (double cond : {1e0, 1e4, 1e8, 1e16, 1e24, 1e32}) {
    for (std::size_t n : {7, 100, 5000, 65536}) {
      const std::uint64_t seed = 7 * n + static_cast<std::uint64_t>(std::log10(cond));
      INFO("cond ", cond, ", seed ", seed);
      const int threads = int(n % 255) + 1;
      const std::vector<double> x = tcr::test::gen_sum<double>(n, cond, seed);
      const bool sum = check_certify_first_f64<kind::sum>(x, threads);
      CHECK(check_certify_first_f64<kind::asum>(x, threads)); // condition 1
      if (cond <= 1e4) // undecided with probability about u N^1.5 cond at most
        CHECK(sum);
      decided += sum;
      ++cases;
    }
  }
  MESSAGE("certify-first (double results) decided ", decided, " of ", cases, " GenSum cases");
  // The whole exponent range (subnormals, values near overflow: sums that overflow on the way
  // are not finite, hence undecided).
  rng64 rng(23);
  for (int rep = 0; rep < 40; ++rep) {
    const std::size_t n = static_cast<std::size_t>(rng.integer(1, 5000));
    const int lo = rep % 4 == 0 ? -1074 : rep % 4 == 1 ? 900 : -1074;
    const int hi = rep % 4 == 0 ? -1000 : rep % 4 == 1 ? 1023 : 1023;
    std::vector<double> x(n);
    for (std::size_t i = 0; i < n; ++i) {
      const double v = std::ldexp(rng.uniform() + 1, int(rng.integer(lo, hi)) - 1);
      x[i] = std::isfinite(v) ? v : std::numeric_limits<double>::max();
      if (rng.coin())
        x[i] = -x[i];
    }
    check_certify_first_f64<kind::sum>(x, 64);
    check_certify_first_f64<kind::asum>(x, 64);
  }
  // Subnormal-only data: every addition exact, the bound 0, always decided unless zero.
  {
    std::vector<double> x(3001);
    for (std::size_t i = 0; i < x.size(); ++i)
      x[i] = (rng.coin() ? 1 : -1) * std::ldexp(double(rng.integer(1, 1 << 20)), -1074);
    CHECK(check_certify_first_f64<kind::sum>(x, 64));
  }
  // Near overflow with a finite exact sum: the running sum overflows, nothing is decided.
  {
    const double m = std::numeric_limits<double>::max();
    const std::vector<double> x = {m, m, -m, 0.5, -m, 1.0};
    double r = 0.0;
    CHECK(!tcr::decides_double(reduce_host<tcr::certified_double_word, kind::sum>(
                                   tcr::certify_first_accumulator{}, x, std::vector<double>{}, 1),
                               r));
    CHECK(!check_certify_first_f64<kind::sum>(std::vector<double>{m, m}, 2)); // overflows
  }
  // Exact ties (1 + 2^-53, 1 + 3 * 2^-53) are never decided; just off a tie (by 2^-100) it may
  // be, correctly (no rounding of the value widens a double result's bound); zero sums, Inf and
  // NaN are not.
  for (int k = 0; k < 3; ++k) {
    std::vector<double> x(1001, 0.0);
    for (std::size_t i = 0; i + 1 < x.size(); i += 2) {
      x[i] = std::ldexp(1 + rng.uniform(), int(rng.integer(-40, 40)));
      x[i + 1] = -x[i];
    }
    x[1000] = 1.0;
    x[0] = k == 1 ? 3 * 0x1p-53 : 0x1p-53;
    x[1] = k == 2 ? 0x1p-100 : 0.0;
    INFO("tie ", k);
    const bool counted = check_certify_first_f64<kind::sum>(x, 33); // decided rightly, or a tie
    double r = 0.0;
    const bool decided =
        tcr::decides_double(reduce_host<tcr::certified_double_word, kind::sum>(
                                tcr::certify_first_accumulator{}, x, std::vector<double>{}, 33),
                            r);
    if (k < 2) {
      CHECK(!decided);
      CHECK(counted);
    }
  }
  // A tie in the subnormal range cannot happen (spacing 2^-1074, sums exact); the smallest
  // values decide: 2^-1074 + 2^-1074.
  CHECK(check_certify_first_f64<kind::sum>(std::vector<double>{0x1p-1074, 0x1p-1074}, 2));
  CHECK(!check_certify_first_f64<kind::sum>(std::vector<double>{1.0, -1.0}, 2));
  CHECK(!check_certify_first_f64<kind::sum>(std::vector<double>{-0.0, -0.0}, 2));
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(!check_certify_first_f64<kind::sum>(std::vector<double>{1.0, inf}, 2));
  CHECK(!check_certify_first_f64<kind::sum>(std::vector<double>{1.0, std::nan("")}, 2));
}

// The certify-first pass of Dot with a double operand (certify_first_accumulator::add_product:
// TwoProd pairs; tiny products whose lo may round count 2^-1074 each): hi + lo within the bound
// of the exact dot product (MPFR), the bound within 4 N^2 u^2 S (1 + 2^-40) plus the tiny
// products' terms, and a decided double is the exact dot rounded to nearest even. Returns
// whether it decided.
template <class Y>
bool check_certify_first_dot64(const std::vector<double>& x, const std::vector<Y>& y, int threads) {
  INFO("certify-first f64 Dot, n ", x.size(), ", threads ", threads);
  const std::vector<double> dy = doubles(y);
  const mp s = tcr::test::exact_dot(x, dy);
  std::vector<double> ax(x), ay(dy);
  for (double& v : ax)
    v = std::fabs(v);
  for (double& v : ay)
    v = std::fabs(v);
  const mp S = tcr::test::exact_dot(ax, ay);
  tcr::certify_first_accumulator fresh{};
  // reduce_host takes one element type: a float operand goes in as its (exact) doubles, so the
  // double path (add_product) runs either way.
  const tcr::certified_double_word c =
      reduce_host<tcr::certified_double_word, kind::dot>(fresh, x, dy, threads);
  const double N = static_cast<double>(x.size());
  return check_double_word(
      c, s, 4 * N * N * 0x1p-106 * S.to_double() * (1 + 0x1p-40) + 8 * N * 0x1p-1074);
}

TEST_CASE("certify-first, Dot with a double operand: covers, tight, decides rightly") {
  int decided = 0, cases = 0;
  for (double cond : {1e0, 1e4, 1e8, 1e16, 1e32}) {
    for (std::size_t n : {7, 100, 5000, 65536}) {
      const std::uint64_t seed = 13 * n + static_cast<std::uint64_t>(std::log10(cond));
      INFO("cond ", cond, ", seed ", seed);
      const auto xy = tcr::test::gen_dot<double>(n, cond, seed);
      const bool dot = check_certify_first_dot64(xy.first, xy.second, int(n % 255) + 1);
      if (cond <= 1e4)
        CHECK(dot);
      decided += dot;
      ++cases;
    }
  }
  MESSAGE("certify-first (f64 Dot) decided ", decided, " of ", cases, " GenDot cases");
  // The whole range: products from 2^-2148 (lo rounds; counted in the bound) to beyond
  // DBL_MAX (not finite: undecided); a float operand widened.
  rng64 rng(31);
  for (int rep = 0; rep < 40; ++rep) {
    const std::size_t n = static_cast<std::size_t>(rng.integer(1, 3000));
    const int lo = rep % 4 == 0 ? -1074 : rep % 4 == 1 ? 400 : -1074;
    const int hi = rep % 4 == 0 ? -400 : rep % 4 == 1 ? 600 : 1023;
    std::vector<double> x(n), y(n);
    std::vector<float> f(n);
    for (std::size_t i = 0; i < n; ++i) {
      const double a = std::ldexp(rng.uniform() + 1, int(rng.integer(lo, hi)) - 1);
      const double b = std::ldexp(rng.uniform() + 1, int(rng.integer(lo, hi)) - 1);
      x[i] = (rng.coin() ? 1 : -1) * (std::isfinite(a) ? a : std::numeric_limits<double>::max());
      y[i] = std::isfinite(b) ? b : std::numeric_limits<double>::max();
      f[i] = static_cast<float>(std::ldexp(rng.uniform() + 1, int(rng.integer(-149, 127))));
    }
    check_certify_first_dot64(x, y, 64);
    check_certify_first_dot64(x, f, 33);
    check_certify_first_dot64(x, x, 17); // Nrm2's sum of squares (certify_first_squares' path)
  }
  // Products below the subnormals: x y = 2^-1100 rounds to 0 (hi = 0, lo = 0), which the
  // bound must cover (2^-1074 per such product); 2^-600 * 2^-500 * 3 products and one of 1.
  {
    const std::vector<double> x = {0x1p-600, 0x1p-600, 0x1p-600, 1.0};
    const std::vector<double> y = {0x1p-500, 0x1p-500, 0x1p-500, 1.0};
    CHECK(check_certify_first_dot64(x, y, 2)); // 1 + 3 * 2^-1100 rounds to 1: decided
    const std::vector<double> z = {0x1p-600, 0x1p-600};
    const std::vector<double> w = {0x1p-500, -0x1p-501};
    CHECK(!check_certify_first_dot64(z, w, 1)); // 2^-1101: not decided (rounds to 0)
  }
  // Products near DBL_MAX: RN(x y) finite below the threshold, exact TwoProd; beyond it, Inf.
  const double m = std::numeric_limits<double>::max();
  CHECK(check_certify_first_dot64(std::vector<double>{m, 1.0}, std::vector<double>{0.5, 1.0}, 2));
  CHECK(!check_certify_first_dot64(std::vector<double>{m, -m}, std::vector<double>{m, m}, 2));
  // Ties are never decided: 1 + 2^-53 (as 1 * 1 + 2^-27 * 2^-26).
  CHECK(check_certify_first_dot64(std::vector<double>{1.0, 0x1p-27},
                                  std::vector<double>{1.0, 0x1p-26}, 2));
}

// Float inputs into a double result, and Nrm2 (certify_first_squares: RN_double of the sum of
// squares, decided or not), over GenSum / GenDot data and float's whole range.
TEST_CASE("certify-first, double results of float inputs and Nrm2's sum of squares") {
  for (double cond : {1e0, 1e8, 1e16, 1e32}) {
    for (std::size_t n : {7, 100, 5000, 65536}) {
      const std::uint64_t seed = 11 * n + static_cast<std::uint64_t>(std::log10(cond));
      INFO("cond ", cond, ", seed ", seed);
      const int threads = int(n % 255) + 1;
      const std::vector<float> x = tcr::test::gen_sum<float>(n, cond, seed);
      const bool sum = check_certify_first_f64<kind::sum>(x, threads);
      if (cond <= 1e0)
        CHECK(sum);
      CHECK(check_certify_first_f64<kind::asum>(x, threads));
      CHECK(check_certify_first_f64<kind::nrm2>(x, threads)); // condition 1
    }
  }
  rng64 rng(29);
  for (int rep = 0; rep < 20; ++rep) {
    const std::size_t n = static_cast<std::size_t>(rng.integer(1, 20000));
    std::vector<float> x(n);
    for (std::size_t i = 0; i < n; ++i)
      x[i] = (rng.coin() ? 1 : -1) *
             static_cast<float>(std::ldexp(rng.uniform() + 1, int(rng.integer(-149, 127))));
    check_certify_first_f64<kind::sum>(x, 64);
    check_certify_first_f64<kind::nrm2>(x, 64);
  }
  // Squares of subnormals (down to 2^-298) and of values near FLT_MAX (up to 2^256): exact.
  CHECK(check_certify_first_f64<kind::nrm2>(std::vector<float>{0x1p-149f, 0x1p-149f}, 2));
  CHECK(check_certify_first_f64<kind::nrm2>(std::vector<float>{FLT_MAX, FLT_MAX, 1.0f}, 2));
  CHECK(!check_certify_first_f64<kind::nrm2>(std::vector<float>{0.0f, -0.0f}, 2)); // zero
}

TEST_CASE("certified accumulators: subnormals, near overflow, norms") {
  INFO("seed 7");
  rng64 rng(7);
  std::vector<float> sub(20000);
  for (auto& v : sub)
    v = float(std::ldexp(double(rng.integer(1, (1 << 23) - 1)), -149) * (rng.coin() ? 1 : -1));
  check_sum(sub);
  check_dot(sub, sub); // every product below the float subnormals, exact in double
  check_nrm2(sub);
  std::vector<double> dsub(20000);
  for (auto& v : dsub)
    v = std::ldexp(double(rng.integer(1, std::int64_t(1) << 52)), -1074) * (rng.coin() ? 1 : -1);
  check_sum(dsub);
  check_nrm2(dsub);
  // Near overflow: +FLT_MAX and -(FLT_MAX - k ulp) pairs, the positive ones first (the float
  // chunks overflow and are redone in double), the exact sum finite.
  std::vector<float> big(10001);
  for (std::size_t i = 0; i + 1 < big.size(); i += 2) {
    big[i] = FLT_MAX;
    big[i + 1] = -float(double(FLT_MAX) - std::ldexp(double(rng.integer(0, 100)), 104));
  }
  std::sort(big.begin(), big.end() - 1, [](float a, float b) { return a > b; });
  big.back() = 1.5f;
  check_sum(big);
  std::vector<double> dbig(10000);
  for (auto& v : dbig)
    v = std::ldexp(1 + rng.uniform(), 1000 - int(rng.integer(0, 40))) * (rng.coin() ? 1 : -1);
  check_sum(dbig);
  check_nrm2(dbig);
  std::vector<float> wide(30000);
  for (auto& v : wide)
    v = float(std::ldexp(1 + rng.uniform(), int(rng.integer(-140, 100))) * (rng.coin() ? 1 : -1));
  check_nrm2(wide);
  check_sum(wide, 1);
}

// How far the bounds lie above the actual error: the running bound (what DeviceReduce returns
// for float results) and the sum-of-magnitudes form (the README quotes this output).
template <class Acc, kind K>
void print_overestimates(const char* what) {
  for (double cond : {1e0, 1e4, 1e8, 1e16, 1e32}) {
    double lo = INFINITY, hi = 0;
    for (std::uint64_t seed = 0; seed < 8; ++seed) {
      INFO(std::string(what), ", cond ", cond, ", seed ", seed);
      std::vector<float> x, y;
      mp s;
      certified<float> c;
      if constexpr (K == kind::dot) {
        std::tie(x, y) = tcr::test::gen_dot<float>(100000, cond, seed);
        s = tcr::test::exact_dot(doubles(x), doubles(y));
        c = reduce_host<certified<float>, kind::dot>(Acc{}, x, y, 256);
      } else {
        x = tcr::test::gen_sum<float>(100000, cond, seed);
        s = tcr::test::exact_sum(doubles(x));
        c = reduce_host<certified<float>, kind::sum>(Acc{}, x, {}, 256);
      }
      REQUIRE(cert::covers(c.value, c.error_bound, s));
      const double r = cert::overestimate(c.value, c.error_bound, s);
      if (std::isfinite(r)) {
        lo = std::min(lo, r);
        hi = std::max(hi, r);
      }
    }
    MESSAGE(std::string(what), ", f32, n = 10^5, condition ", cond, ": bound / |value - s| from ",
            lo, " to ", hi);
  }
}

TEST_CASE("certified accumulators: bound / actual error on GenSum and GenDot data (printed)") {
  print_overestimates<sum_acc<float>, kind::sum>("Sum, running bound");
  print_overestimates<s_sum_acc<float>, kind::sum>("Sum, sum-of-magnitudes bound");
  print_overestimates<dot_acc<float>, kind::dot>("Dot, running bound");
  print_overestimates<s_dot_acc<float>, kind::dot>("Dot, sum-of-magnitudes bound");
}

TEST_CASE("certified accumulators: special values, n = 0, beyond the proven range") {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> x(100, 1.0f);
  x[40] = inf;
  auto c = reduce_host<certified<float>, kind::sum>(sum_acc<float>{}, x, {});
  CHECK(c.value == inf);
  CHECK(c.error_bound == inf);
  auto e = reduce_host<certified<float>, kind::sum>(exact_acc<float>{}, x, {});
  CHECK(e.value == inf);
  CHECK(e.error_bound == inf);
  x[41] = -inf;
  c = reduce_host<certified<float>, kind::sum>(sum_acc<float>{}, x, {});
  CHECK(std::isnan(c.value));
  CHECK(std::isnan(c.error_bound));
  x[41] = nan;
  c = reduce_host<certified<float>, kind::dot>(dot_acc<float>{}, x, x);
  CHECK(std::isnan(c.value));
  CHECK(std::isnan(c.error_bound));
  c = reduce_host<certified<float>, kind::nrm2>(nrm2_acc<float>{}, x, {});
  CHECK(std::isnan(c.value));
  CHECK(std::isnan(c.error_bound));
  const std::vector<float> none;
  for (const auto& r : {reduce_host<certified<float>, kind::sum>(sum_acc<float>{}, none, {}),
                        reduce_host<certified<float>, kind::dot>(dot_acc<float>{}, none, none),
                        reduce_host<certified<float>, kind::nrm2>(nrm2_acc<float>{}, none, {}),
                        reduce_host<certified<float>, kind::sum>(exact_acc<float>{}, none, {})}) {
    CHECK(r.value == 0.0f);
    CHECK(!std::signbit(r.value));
    CHECK(r.error_bound == 0.0f);
  }
  const auto rd =
      reduce_host<certified<double>, kind::sum>(sum_acc<double>{}, std::vector<double>{}, {});
  CHECK(rd.value == 0.0);
  CHECK(rd.error_bound == 0.0);
  // A result beyond float's range: +inf, bound +inf.
  const std::vector<float> over(64, FLT_MAX);
  c = reduce_host<certified<float>, kind::sum>(sum_acc<float>{}, over, {});
  CHECK(std::isinf(c.value));
  CHECK(std::isinf(c.error_bound));
  // unproven (more elements than the contracts cover): +inf, and NaN stays NaN.
  sum_acc<float> beyond{};
  beyond.unproven = true;
  const std::vector<float> ones(10, 1.0f);
  c = reduce_host<certified<float>, kind::sum>(beyond, ones, {});
  CHECK(c.value == 10.0f);
  CHECK(c.error_bound == inf);
  exact_acc<float> beyond_exact{};
  beyond_exact.unproven = true;
  CHECK(reduce_host<certified<float>, kind::sum>(beyond_exact, ones, {}).error_bound == inf);
  // The exact modes' zero bound: an exact value.
  const std::vector<float> halves = {0.5f, 0.25f, -0.125f};
  e = reduce_host<certified<float>, kind::sum>(exact_acc<float>{}, halves, {});
  CHECK(e.value == 0.625f);
  CHECK(e.error_bound == 0.0f);
}

} // namespace
