// SPDX-License-Identifier: BSD-3-Clause
// GPU tests for tcr::DeviceReduce's exact modes, Dot and Nrm2 (compensated/exact_binned.cuh,
// binned_exact_dot): Dot of float-range operands is the exact dot product rounded once to nearest
// even (float and double results, ill-conditioned to 1e32, products over the whole range of
// float products, products beyond float's range whose sum is not), Nrm2 a faithful rounding of
// the exact norm (one of the two neighbours of sqrt(sum x^2)); the same bits for every grid,
// offset and split; special values.
#include <doctest/doctest.h>

#include <algorithm>
#include <cfloat>
#include <cstring>
#include <tcr/compensated/exact.cuh>
#include "reduce/device_test_util.hpp"
#include "reduce/exact_check.hpp"

namespace {

using namespace tcr::test;
using tcr::DeviceReduce;
using tcr::ReduceOptions;
using tcr::test::exact::bits_of;
using tcr::test::exact::is_round_to_nearest;
using tcr::test::exact::reproducible;
using tcr::test::exact::rounded;
using tcr::test::exact::run_dot;
using tcr::test::exact::run_dot_both_ways;
using tcr::test::exact::run_two_phase;
using tcr::test::exact::to_doubles;

template <class Out, class X, class Y>
void check_dot(const typed_data<X>& x, const typed_data<Y>& y, std::size_t ox, std::size_t oy) {
  INFO("Dot<", type_name<X>(), ", ", type_name<Y>(), " -> ", type_name<Out>(), "> n = ", x.t.size(),
       ", offsets ", ox, " ", oy);
  const Out res = run_dot<Out>(x.t, &y.t, ox, oy);
  const mp s = fast_exact_dot(x.d, y.d); // products of float-range values are exact doubles
  INFO("result ", to_double(res), ", exact ", s.to_double());
  CHECK(is_round_to_nearest(res, s));
}

// res is RD or RU of the exact norm (computed at 400 bits from the exact sum of squares: an
// error of 2^-400 relative cannot move it across a representable value unless the norm is one,
// in which case RD = RU = the norm).
template <class Out, class X>
void check_nrm2(const typed_data<X>& x, std::size_t ox) {
  INFO("Nrm2<", type_name<X>(), " -> ", type_name<Out>(), "> n = ", x.t.size(), ", offset ", ox);
  const Out res = run_dot<Out>(x.t, static_cast<const std::vector<X>*>(nullptr), ox, 0);
  const mp ssq = fast_exact_dot(x.d, x.d);
  mp r(400);
  mpfr_sqrt(r.get(), ssq.get(), MPFR_RNDN);
  double down, up;
  if constexpr (std::is_same_v<Out, float>) {
    down = mpfr_get_flt(r.get(), MPFR_RNDD);
    up = mpfr_get_flt(r.get(), MPFR_RNDU);
  } else {
    down = mpfr_get_d(r.get(), MPFR_RNDD);
    up = mpfr_get_d(r.get(), MPFR_RNDU);
  }
  INFO("result ", to_double(res), ", neighbours ", down, " ", up);
  CHECK((to_double(res) == down || to_double(res) == up));
}

// Random values of T with exponents in [emin, emax].
template <class T>
typed_data<T> spread(std::size_t n, std::uint64_t seed, int emin, int emax) {
  return typed_random<T>(n, seed, emin, emax);
}

std::vector<std::int64_t> dot_sizes() {
  return {1, 2, 3, 17, 255, 256, 257, 2049, 4097, 8191, 8193, 100000, 1000003};
}

// Dot into float with the certify-first pass (reduce/device.cuh's certify_first_of: one block up
// to 16 KB, a cooperative grid beyond) and with the exact pass alone: the same bits, correctly
// rounded where finite.
template <class X, class Y, class Out = float>
void check_certify_first(const typed_data<X>& x, const typed_data<Y>& y, std::size_t ox,
                         std::size_t oy, bool finite = true) {
  INFO("Dot<", type_name<X>(), ", ", type_name<Y>(), " -> ", type_name<Out>(), "> n = ", x.t.size(),
       ", offsets ", ox, " ", oy);
  const Out first = run_dot_both_ways<Out>(x.t, &y.t, ox, oy);
  if (finite)
    CHECK(is_round_to_nearest(first, fast_exact_dot(x.d, y.d)));
}

// Nrm2 into Out with the certify-first pass (the sum of squares certified, its RN_double decided:
// reduce/device.cuh's decide_norm) and with the exact pass alone: the same bits, and faithful.
template <class Out, class X>
void check_certify_first_nrm2(const typed_data<X>& x, std::size_t ox, bool finite = true) {
  INFO("Nrm2<", type_name<X>(), " -> ", type_name<Out>(), "> n = ", x.t.size(), ", offset ", ox);
  run_dot_both_ways<Out>(x.t, static_cast<const std::vector<X>*>(nullptr), ox, 0);
  if (finite)
    check_nrm2<Out>(x, ox);
}

TEST_SUITE("gpu") {

  // Nrm2 (float and double results) and Dot into double certify first: one block (up to 32 KB for
  // Nrm2's blocks of 128 threads), grids of 1, 7 and every resident block; wide ranges (squares
  // beyond float's range and below its subnormals), condition 1e32 for the Dot, zero vectors
  // (never decided: the exact pass gives +0), Inf and NaN.
  TEST_CASE("exact Nrm2 and double results: certify first or fall back, the same bits") {
    for (int grid : {0, 1, 7}) {
      tcr::detail::device::grid_limit_for_tests = grid;
      for (std::int64_t n : {1, 2, 17, 1000, 4096, 4097, 8191, 8192, 8193, 100003, 1 << 20}) {
        if (grid != 0 && n < 8193)
          continue; // one block: no grid to limit
        INFO("grid limit ", grid, ", n ", n);
        const std::size_t m = static_cast<std::size_t>(n);
        check_certify_first_nrm2<float>(spread<float>(m, 231 + n, -149, 127), m % 4);
        check_certify_first_nrm2<double>(spread<float>(m, 232 + n, -60, 60), 1);
        check_certify_first_nrm2<float>(spread<__half>(m, 233 + n, -24, 15), m % 8);
        check_certify_first_nrm2<double>(spread<__nv_bfloat16>(m, 234 + n, -133, 127), 2);
        check_certify_first_nrm2<float>(spread<__nv_fp8_e4m3>(m, 235 + n, -9, 7), m % 16);
        check_certify_first_nrm2<float>(typed_data<float>(std::vector<double>(m, 0.0)), 0);
        std::vector<double> s(m, 0.75);
        s[m / 2] = -std::numeric_limits<double>::infinity();
        check_certify_first_nrm2<float>(typed_data<float>(s), 1, false);
        s[0] = std::numeric_limits<double>::quiet_NaN();
        check_certify_first_nrm2<double>(typed_data<float>(s), 0, false);
        check_certify_first<float, float, double>(spread<float>(m, 236 + n, -60, 60),
                                                  spread<float>(m, 237 + n, -60, 60), m % 4, 1);
        if (n >= 100) {
          const auto [x, y] = gen_dot<float>(m, 1e32, 238 + n);
          check_certify_first<float, float, double>(typed_data<float>(to_doubles(x)),
                                                    typed_data<float>(to_doubles(y)), 0, 0);
        }
      }
    }
    tcr::detail::device::grid_limit_for_tests = 0;
  }

  // Well-conditioned and ill-conditioned products, an exact tie (rounds to even), a zero dot,
  // Inf and NaN, at sizes of one block (up to 16 KB of the wider operand) and just beyond.
  TEST_CASE("exact Dot: one-block inputs certify first or fall back, the same bits") {
    rng64 rng(201);
    for (std::int64_t n : {1, 2, 17, 1000, 2048, 2049, 4095, 4096, 4097}) {
      INFO("n ", n);
      const std::size_t m = static_cast<std::size_t>(n);
      check_certify_first(spread<float>(m, 202 + n, -60, 60), spread<float>(m, 203 + n, -60, 60),
                          m % 4, 0);
      check_certify_first(spread<__half>(m, 204 + n, -24, 15), spread<__half>(m, 205 + n, -24, 15),
                          0, 1);
      check_certify_first(spread<float>(m, 206 + n, -3, 3), spread<__half>(m, 207 + n, -3, 3), 1,
                          m % 8);
      if (n >= 100) {
        const auto [x, y] = gen_dot<float>(m, 1e32, 208 + n);
        check_certify_first(typed_data<float>(to_doubles(x)), typed_data<float>(to_doubles(y)), 0,
                            0);
      }
      // 1 * 1 + 2^-12 * 2^-12 = 1 + 2^-24, a tie (-> 1), among products that cancel pairwise.
      std::vector<double> x(m, 0.0), y(m, 0.0);
      for (std::size_t i = 0; i + 1 < m; i += 2) {
        x[i] = std::ldexp(1 + rng.uniform(), int(rng.integer(-30, 30)));
        y[i] = std::ldexp(1.0, int(rng.integer(-30, 30)));
        x[i + 1] = -x[i];
        y[i + 1] = y[i];
      }
      const typed_data<float> zx(x), zy(y);
      check_certify_first(zx, zy, 0, 0); // +0
      if (m >= 3) {
        x[m - 1] = 1.0; // the last element is unpaired (odd m) or replaces a partner: re-pair
        y[m - 1] = 1.0;
        if (m % 2 == 0)
          x[m - 2] = y[m - 2] = 0.0;
        x[0] = y[0] = 0x1p-12;
        x[1] = y[1] = 0.0;
        check_certify_first(typed_data<float>(x), typed_data<float>(y), 1, 2);
      }
      std::vector<double> s(m, 0.5);
      s[m / 2] = std::numeric_limits<double>::infinity();
      check_certify_first(typed_data<float>(s), typed_data<float>(s), 0, 0, false);
      s[0] = std::numeric_limits<double>::quiet_NaN();
      check_certify_first(typed_data<float>(s), typed_data<float>(s), 0, 0, false);
    }
  }

  // The grid's certify-first pass (cooperative) for grids of 1, 7 and every resident block.
  TEST_CASE("exact Dot: grid inputs certify first or fall back, the same bits") {
    for (int grid : {0, 1, 7}) {
      tcr::detail::device::grid_limit_for_tests = grid;
      for (std::int64_t n : {4097, 100003, 1 << 20}) {
        INFO("grid limit ", grid, ", n ", n);
        const std::size_t m = static_cast<std::size_t>(n);
        check_certify_first(spread<float>(m, 211 + n, -60, 60), spread<float>(m, 212 + n, -60, 60),
                            m % 4, 1);
        check_certify_first(spread<__half>(m, 213 + n, -24, 15),
                            spread<__half>(m, 214 + n, -24, 15), 0, 3);
        const auto [x, y] = gen_dot<float>(m, 1e32, 215 + n);
        check_certify_first(typed_data<float>(to_doubles(x)), typed_data<float>(to_doubles(y)), 0,
                            0);
      }
    }
    tcr::detail::device::grid_limit_for_tests = 0;
  }

  TEST_CASE("exact Dot: float-range operands, sizes, offsets, the whole range of products") {
    for (std::int64_t n : dot_sizes()) {
      INFO("n ", n);
      const std::size_t m = static_cast<std::size_t>(n);
      // float x float over products 2^-280 .. 2^250 (wide), and near 1 (narrow).
      check_dot<float>(spread<float>(m, 1 + n, -140, 125), spread<float>(m, 2 + n, -140, 125), 0,
                       1);
      check_dot<double>(spread<float>(m, 3 + n, -3, 3), spread<float>(m, 4 + n, -3, 3), 1, 0);
      check_dot<float>(spread<__half>(m, 5 + n, -24, 15), spread<__half>(m, 6 + n, -24, 15), 0, 0);
      check_dot<float>(spread<__nv_bfloat16>(m, 7 + n, -130, 120),
                       spread<__nv_bfloat16>(m, 8 + n, -130, 120), 3, 2);
      check_dot<float>(spread<__nv_fp8_e4m3>(m, 9 + n, -9, 8),
                       spread<__nv_fp8_e4m3>(m, 10 + n, -9, 8), 5, 11);
      check_dot<float>(spread<float>(m, 11 + n, -20, 20), spread<__half>(m, 12 + n, -24, 15), 1, 3);
    }
  }

  TEST_CASE("exact Dot: ill-conditioned to 1e32, sums beyond float's range, special values") {
    for (double cond : {1e8, 1e16, 1e32}) {
      for (std::int64_t n : {100, 50000, 1000000}) {
        INFO("cond ", cond, ", n ", n);
        const auto [x, y] = gen_dot<float>(n, cond, n);
        check_dot<float>(typed_data<float>(to_doubles(x)), typed_data<float>(to_doubles(y)), 0, 0);
        check_dot<double>(typed_data<float>(to_doubles(x)), typed_data<float>(to_doubles(y)), 2, 1);
      }
    }
    // Products near 2^250 that cancel to a float result, and that sum beyond float (a double result
    // holds it, a float result is inf).
    rng64 rng(7);
    std::vector<double> x(200001), y(200001);
    for (std::size_t i = 0; i + 1 < x.size(); i += 2) {
      x[i] = std::ldexp(1 + rng.uniform(), 125);
      y[i] = std::ldexp(1.0, 125);
      x[i + 1] = -x[i];
      y[i + 1] = y[i];
    }
    x.back() = 3.0;
    y.back() = 0.5;
    check_dot<float>(typed_data<float>(x), typed_data<float>(y), 0, 0);
    x.back() = 0x1p125; // the last product 2^250, the others cancel pairwise
    y.back() = 0x1p125;
    const typed_data<float> bx(x), by(y);
    check_dot<double>(bx, by, 1, 1);
    CHECK(std::isinf(run_dot<float>(bx.t, &by.t, 0, 0)));
    // Inf, NaN, Inf * 0, zero signs.
    const float inf = std::numeric_limits<float>::infinity();
    std::vector<float> a(5000, 1.0f), b(5000, 2.0f);
    a[10] = inf;
    CHECK(run_dot<float>(a, &b, 0, 0) == inf);
    b[10] = 0.0f;
    CHECK(std::isnan(run_dot<float>(a, &b, 0, 0)));
    std::vector<float> z(3000, -0.0f), o(3000, 1.0f);
    CHECK(bits_of(run_dot<float>(z, &o, 1, 2)) == 0x80000000u); // every product -0
    o[5] = -1.0f;
    CHECK(bits_of(run_dot<float>(z, &o, 0, 0)) == 0u);                    // one +0 product
    CHECK(bits_of(run_dot<float>(std::vector<float>{}, &o, 0, 0)) == 0u); // empty: +0
  }

  TEST_CASE("exact Nrm2: faithful over the whole range, special values") {
    for (std::int64_t n : dot_sizes()) {
      INFO("n ", n);
      const std::size_t m = static_cast<std::size_t>(n);
      check_nrm2<float>(spread<float>(m, 21 + n, -149, 127), n % 4);
      check_nrm2<float>(spread<float>(m, 22 + n, -149, -120), 0); // subnormal squares underflow
      check_nrm2<float>(spread<float>(m, 23 + n, 100, 127), 1);   // squares beyond float's range
      check_nrm2<double>(spread<float>(m, 24 + n, -60, 60), 0);
      check_nrm2<float>(spread<__half>(m, 25 + n, -24, 15), 3);
      check_nrm2<float>(spread<__nv_bfloat16>(m, 26 + n, -133, 127), 2);
    }
    std::vector<float> a(4097, 3.0f);
    a[4000] = -std::numeric_limits<float>::infinity();
    CHECK(run_dot<float>(a, static_cast<const std::vector<float>*>(nullptr), 0, 0) ==
          std::numeric_limits<float>::infinity());
    a[17] = std::numeric_limits<float>::quiet_NaN();
    CHECK(std::isnan(run_dot<float>(a, static_cast<const std::vector<float>*>(nullptr), 0, 0)));
  }

  // e4m3 x e4m3 (binned_exact_dot's one register bin, 2^17 products between spills): a grid of
  // one block of 128 threads gives each thread 1.5 x 2^17 products, so every thread spills once on
  // the way. Each 16-byte vector (one thread's) holds fifteen products 448^2 and one 2^-18, the
  // largest and the least: a bin of 2^17 of them spans 2^-18 .. 2^34.6, the proven limit (52.6 of
  // a double's 53 bits); the partial states (canonical) of that grid and of the full one must be
  // the same bits, so a lost 2^-18 anywhere would show. Wide random e4m3 data and Nrm2 too.
  // (large): one block reads 50 MB, too slow under the sanitizers.
  TEST_CASE("exact Dot and Nrm2 of e4m3: the one bin spills, exactly (large)") {
    using P = tcr::exact_partial<tcr::float_products>;
    const std::size_t n = (std::size_t(3) << 23) + 5;
    const auto* none = static_cast<const std::vector<__nv_fp8_e4m3>*>(nullptr);
    std::vector<double> mix(n, 448.0);
    for (std::size_t i = 0; i < n; i += 16)
      mix[i] = 0x1p-9; // the least e4m3 (subnormal): its square is 2^-18
    const typed_data<__nv_fp8_e4m3> big(mix);
    const typed_data<__nv_fp8_e4m3> wx = spread<__nv_fp8_e4m3>(n, 41, -9, 8);
    const typed_data<__nv_fp8_e4m3> wy = spread<__nv_fp8_e4m3>(n, 42, -9, 8);
    const auto same = [](const P& a, const P& b) { return std::memcmp(&a, &b, sizeof a) == 0; };
    const P p_big = run_dot<P>(big.t, &big.t, 0, 0);
    const P p_sq = run_dot<P>(big.t, none, 0, 0);
    const float d_wide = run_dot<float>(wx.t, &wy.t, 0, 0);
    const float n_wide = run_dot<float>(wx.t, none, 0, 0);
    tcr::detail::device::grid_limit_for_tests = 1;
    CHECK(same(run_dot<P>(big.t, &big.t, 1, 2), p_big));
    CHECK(same(run_dot<P>(big.t, none, 3, 0), p_sq));
    CHECK(bits_of(run_dot<float>(wx.t, &wy.t, 3, 5)) == bits_of(d_wide));
    CHECK(bits_of(run_dot<float>(wx.t, none, 7, 0)) == bits_of(n_wide));
    tcr::detail::device::grid_limit_for_tests = 0;
    CHECK(is_round_to_nearest(tcr::exact_finish<float>(p_big), fast_exact_dot(big.d, big.d)));
    CHECK(is_round_to_nearest(d_wide, fast_exact_dot(wx.d, wy.d)));
    check_nrm2<float>(wx, 7);
  }

  TEST_CASE("exact Dot: the same bits for every grid, offset and split") {
    const std::size_t n = 700001;
    const auto x = spread<float>(n, 31, -100, 100);
    const auto y = spread<float>(n, 32, -100, 100);
    const float ref = run_dot<float>(x.t, &y.t, 0, 0);
    CHECK(is_round_to_nearest(ref, fast_exact_dot(x.d, y.d)));
    for (int grid : {0, 1, 5, 64, 132}) {
      tcr::detail::device::grid_limit_for_tests = grid;
      for (std::size_t ox = 0; ox < 4; ++ox) {
        for (std::size_t oy = 0; oy < 4; ++oy) {
          INFO("grid limit ", grid, ", offsets ", ox, " ", oy);
          CHECK(bits_of(run_dot<float>(x.t, &y.t, ox, oy, ox == oy ? reproducible : rounded)) ==
                bits_of(ref));
        }
      }
    }
    tcr::detail::device::grid_limit_for_tests = 0;
    using P = tcr::exact_partial<tcr::float_products>;
    rng64 rng(33);
    for (int parts : {2, 9, 64}) {
      std::vector<std::size_t> cut = {0, n};
      for (int k = 1; k < parts; ++k)
        cut.push_back(static_cast<std::size_t>(rng.integer(0, std::int64_t(n))));
      std::sort(cut.begin(), cut.end());
      std::vector<P> partials;
      for (std::size_t k = 0; k + 1 < cut.size(); ++k) {
        const std::vector<float> px(x.t.begin() + cut[k], x.t.begin() + cut[k + 1]);
        const std::vector<float> py(y.t.begin() + cut[k], y.t.begin() + cut[k + 1]);
        partials.push_back(run_dot<P>(px, &py, k % 4, (k + 1) % 4));
      }
      for (std::size_t i = partials.size(); i > 1; --i) // a random order of merges
        std::swap(partials[i - 1],
                  partials[static_cast<std::size_t>(rng.integer(0, std::int64_t(i) - 1))]);
      P total = partials[0];
      for (std::size_t i = 1; i < partials.size(); ++i)
        total = tcr::exact_merge(total, partials[i]);
      INFO("parts ", parts);
      CHECK(bits_of(tcr::exact_finish<float>(total)) == bits_of(ref));
    }
  }

} // TEST_SUITE

} // namespace
