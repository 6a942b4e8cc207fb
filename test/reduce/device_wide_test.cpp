// SPDX-License-Identifier: BSD-3-Clause
// Host tests for compensated/chunked.cuh (the per-thread accumulators of tcr::DeviceReduce),
// against exact MPFR references. Built with host contraction on and off.
#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>
#include <tcr/compensated/chunked.cuh>
#include <tcr/compensated/reductions.cuh>
#include "reduce/device_check.hpp"
#include "support/gen.hpp"

namespace {

using tcr::test::exact_abs_sum;
using tcr::test::exact_sum;
using tcr::test::mp;
using tcr::test::within_bound;

// Folds x in chunks of L (a short last chunk element by element) into `threads` accumulators
// round-robin, then merges them pairwise as a tree: the shape of the device reduction.
template <class Acc, int L, class T>
Acc fold(const std::vector<T>& x, int threads) {
  std::vector<Acc> acc(threads);
  std::size_t i = 0;
  int t = 0;
  for (; i + L <= x.size(); i += L, t = (t + 1) % threads) {
    T c[L];
    for (int k = 0; k < L; ++k)
      c[k] = x[i + k];
    acc[t].add_chunk(c);
  }
  for (; i < x.size(); ++i, t = (t + 1) % threads) {
    const T c[1] = {x[i]};
    acc[t].add_chunk(c);
  }
  for (int w = 1; w < threads; w *= 2)
    for (int k = 0; k + w < threads; k += 2 * w)
      acc[k].merge(acc[k + w]);
  return acc[0];
}

template <class T>
std::vector<double> as_double(const std::vector<T>& x) {
  return std::vector<double>(x.begin(), x.end());
}

template <int L>
void check_float_contract(const std::vector<float>& x, int threads) {
  const auto acc = fold<tcr::chunked_sum<float>, L>(x, threads);
  const auto xd = as_double(x);
  const mp s = exact_sum(xd);
  const mp S = exact_abs_sum(xd);
  const double res = acc.result();
  INFO("n = ", x.size(), ", L = ", L, ", scaled error ", tcr::test::scaled_error(res, s, S));
  CHECK(within_bound(res, s, S, 0x1p-23, 0x1p-40));           // the float contract
  CHECK(within_bound(acc.value(), s, S, 0x1p-53, 0x1.0p-42)); // the unrounded part
}

template <int L>
void check_double_contract(const std::vector<double>& x, int threads) {
  const auto acc = fold<tcr::chunked_sum<double>, L>(x, threads);
  const mp s = exact_sum(x);
  const mp S = exact_abs_sum(x);
  const double res = acc.result();
  INFO("n = ", x.size(), ", L = ", L, ", scaled error ", tcr::test::scaled_error(res, s, S));
  CHECK(within_bound(res, s, S, 0x1p-52, 0x1p-88));
  CHECK(within_bound(res, s, S, 0x1p-53, 0x1p-100)); // what the header claims
}

} // namespace

TEST_CASE("chunked_sum<float>: GenSum data, cond 1 .. 1e32, meets 2u|s| + 2^-40 S") {
  for (double cond : {1.0, 1e4, 1e8, 1e16, 1e24, 1e32}) {
    const std::uint64_t seed = 1000 + static_cast<std::uint64_t>(std::log10(cond));
    INFO("seed = ", seed, ", cond = ", cond);
    const auto x = tcr::test::gen_sum<float>(20000, cond, seed);
    check_float_contract<4>(x, 37);
    check_float_contract<8>(x, 64);
  }
}

TEST_CASE("chunked_sum<float>: same-sign wide-range data and long chains") {
  const std::uint64_t seed = 77;
  INFO("seed = ", seed);
  tcr::test::rng64 rng(seed);
  std::vector<float> x(1 << 17);
  for (auto& v : x)
    v = std::ldexp(float(1 + rng.uniform()), int(rng.integer(-140, 100)));
  check_float_contract<8>(x, 1); // one thread: 2^14 folds into one accumulator
  check_float_contract<4>(x, 3);
}

TEST_CASE("chunked_sum<float>: near FLT_MAX, no spurious Inf or NaN") {
  const float m = FLT_MAX;
  const std::vector<float> x = {m, m, -m, m * 0.5f, -m, -m * 0.25f, 1.0f, m, -m, 3.0f, m, -m};
  check_float_contract<4>(x, 1);
  check_float_contract<8>(x, 2);
  std::vector<float> many(4096);
  for (std::size_t i = 0; i < many.size(); ++i)
    many[i] = (i % 2 ? -m : m) * (i % 3 ? 1.0f : 0.75f);
  check_float_contract<8>(many, 5);
}

TEST_CASE("chunked_sum<float>: Inf and NaN as plain summation") {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto sum = [](std::vector<float> x) { return fold<tcr::chunked_sum<float>, 4>(x, 2).result(); };
  CHECK(sum({1, inf, 2, 3, 4}) == inf);
  CHECK(sum({1, -inf, 2, 3, 4, 5}) == -inf);
  CHECK(std::isnan(sum({1, inf, 2, -inf, 4})));
  CHECK(std::isnan(sum({1, 2, nan, 3})));
  CHECK(sum({FLT_MAX, FLT_MAX, FLT_MAX}) == inf); // the exact sum overflows float
}

TEST_CASE("chunked_sum<double>: GenSum data, cond 1 .. 1e32, meets 2u|s| + 2^-88 S") {
  for (double cond : {1.0, 1e8, 1e16, 1e24, 1e32}) {
    const std::uint64_t seed = 2000 + static_cast<std::uint64_t>(std::log10(cond));
    INFO("seed = ", seed, ", cond = ", cond);
    const auto x = tcr::test::gen_sum<double>(20000, cond, seed);
    check_double_contract<2>(x, 16);
    check_double_contract<4>(x, 1);
  }
}

TEST_CASE("chunked_sum<double>: near DBL_MAX the scaled cascade takes over") {
  const double m = DBL_MAX;
  check_double_contract<2>({m, m, -m, m * 0.5, -m, 1e-300, -m * 0.25, 1.0, m, -m, 3.0}, 1);
  check_double_contract<2>({m, m, -m, m * 0.5, -m, 1e-300, -m * 0.25, 1.0, m, -m, 3.0}, 3);
  check_double_contract<4>({m * 0.75, m * 0.75, 1e-310, m * 0.75, -m, -m, 0x1p-1074}, 2);
  // Merging two accumulators near the threshold.
  tcr::chunked_sum<double> a, b;
  a.add(0x1.8p1023);
  b.add(0x1.8p1023);
  a.merge(b); // 3 * 2^1023 > DBL_MAX
  a.add(-0x1.fp1023);
  CHECK(a.result() == 0x1.1p1023);
  tcr::chunked_sum<double> c;
  c.add(m);
  c.add(m);
  CHECK(c.result() == std::numeric_limits<double>::infinity()); // the exact sum overflows
}

TEST_CASE("chunked_sum<double>: Inf and NaN as plain summation") {
  const double inf = std::numeric_limits<double>::infinity();
  auto sum = [](std::vector<double> x) { return fold<tcr::chunked_sum<double>, 2>(x, 2).result(); };
  CHECK(sum({1, inf, 2, 3, 4}) == inf);
  CHECK(std::isnan(sum({1, inf, 2, -inf, 4})));
  CHECK(std::isnan(sum({1, 2, std::numeric_limits<double>::quiet_NaN(), 3})));
}

// Folds x . y into 8 accumulators in chunks of L, merges them, checks 2u|s| + 2^-88 S.
template <int L>
void check_dot_double(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<tcr::chunked_dot_double> acc(8);
  std::size_t i = 0;
  for (; i + L <= x.size(); i += L) {
    double cx[L], cy[L];
    for (int k = 0; k < L; ++k)
      cx[k] = x[i + k], cy[k] = y[i + k];
    acc[(i / L) % 8].add_dot_chunk(cx, cy);
  }
  for (; i < x.size(); ++i) {
    const double cx[1] = {x[i]}, cy[1] = {y[i]};
    acc[0].add_dot_chunk(cx, cy);
  }
  for (int k = 1; k < 8; ++k)
    acc[0].merge(acc[k]);
  const mp s = tcr::test::exact_dot(x, y);
  const mp S = tcr::test::exact_abs_dot(x, y);
  const double res = acc[0].result();
  INFO("n = ", x.size(), ", L = ", L, ", result ", res, ", scaled error ",
       tcr::test::scaled_error(res, s, S));
  CHECK(within_bound(res, s, S, 0x1p-52, 0x1p-88));
}

TEST_CASE("chunked_dot_double: GenDot data meets 2u|s| + 2^-88 S") {
  for (double cond : {1.0, 1e8, 1e16, 1e32}) {
    const std::uint64_t seed = 3000 + static_cast<std::uint64_t>(std::log10(cond));
    INFO("seed = ", seed, ", cond = ", cond);
    const auto [x, y] = tcr::test::gen_dot<double>(10000, cond, seed);
    check_dot_double<2>(x, y);
    check_dot_double<4>(x, y);
  }
}

TEST_CASE(
    "chunked_dot_double: products beyond DBL_MAX and below 2^-969, no spurious Inf/NaN/loss") {
  const double m = DBL_MAX;
  // Huge products that cancel, and a huge result that is finite.
  check_dot_double<2>({0x1p600, 0x1p600, 1.0, 3.0}, {0x1p600, -0x1p600, 1.0, 2.0});
  check_dot_double<2>({m, m, 0.5, 3.0, 1e-300}, {0.75, -0.5, m, 2.0, 1e-300});
  check_dot_double<4>({0x1p1000, 0x1p1000, 0x1p1000, 1.0}, {0x1p100, -0x1p100, 0x1p10, 0x1p-1000});
  // Tiny products: the whole dot product lies far below 2^-969 (but is normal).
  const std::uint64_t seed = 3050;
  INFO("seed = ", seed);
  tcr::test::rng64 rng(seed);
  for (int emin : {-560, -530, -500}) {
    std::vector<double> x(1000), y(1000);
    for (std::size_t i = 0; i < x.size(); ++i) {
      x[i] =
          std::ldexp(1 + rng.uniform(), int(rng.integer(emin, emin + 20))) * (rng.coin() ? 1 : -1);
      y[i] = std::ldexp(1 + rng.uniform(), int(rng.integer(-500, -480)));
    }
    check_dot_double<2>(x, y);
    // Mixed: one ordinary product among tiny ones.
    x[500] = 1.0, y[500] = 0x1p-900;
    check_dot_double<2>(x, y);
  }
  // Inf and NaN.
  const double inf = std::numeric_limits<double>::infinity();
  tcr::chunked_dot_double a;
  const double x1[2] = {inf, 1.0}, y1[2] = {2.0, 1.0};
  a.add_dot_chunk(x1, y1);
  CHECK(a.result() == inf);
  const double y0[2] = {0.0, 1.0};
  tcr::chunked_dot_double b;
  b.add_dot_chunk(x1, y0);
  CHECK(std::isnan(b.result()));
}

TEST_CASE("chunked_sum<float>::add_dot_chunk and add_exact_products_chunk") {
  const std::uint64_t seed = 4000;
  INFO("seed = ", seed);
  const auto [x, y] = tcr::test::gen_dot<float>(8192, 1e12, seed);
  tcr::chunked_sum<float> a;
  for (std::size_t i = 0; i + 16 <= x.size(); i += 16) {
    float cx[16], cy[16];
    for (int k = 0; k < 16; ++k)
      cx[k] = x[i + k], cy[k] = y[i + k];
    a.add_dot_chunk(cx, cy);
  }
  const auto xd = as_double(x), yd = as_double(y);
  CHECK(within_bound(a.result(), tcr::test::exact_dot(xd, yd), tcr::test::exact_abs_dot(xd, yd),
                     0x1p-23, 0x1p-40));
  // Products of half-precision values are exact in float: values with 11-bit significands.
  tcr::test::rng64 rng(seed + 1);
  std::vector<float> hx(4096), hy(4096);
  for (std::size_t i = 0; i < hx.size(); ++i) {
    hx[i] = std::ldexp(float(1024 + rng.integer(0, 1023)) / 1024, int(rng.integer(-24, 15))) *
            (rng.coin() ? 1 : -1);
    hy[i] = std::ldexp(float(1024 + rng.integer(0, 1023)) / 1024, int(rng.integer(-24, 15)));
  }
  tcr::chunked_sum<float> b;
  for (std::size_t i = 0; i < hx.size(); i += 8) {
    float cx[8], cy[8];
    for (int k = 0; k < 8; ++k)
      cx[k] = hx[i + k], cy[k] = hy[i + k];
    b.add_exact_products_chunk(cx, cy);
  }
  const auto hxd = as_double(hx), hyd = as_double(hy);
  CHECK(within_bound(b.result(), tcr::test::exact_dot(hxd, hyd), tcr::test::exact_abs_dot(hxd, hyd),
                     0x1p-23, 0x1p-40));
}

TEST_CASE("exact_sum_e4m3 and exact_band_sums_e5m2 are exact for the worst inputs") {
  std::vector<float> e4, e5;
  for (int b = 0; b < 256; ++b) {
    __nv_fp8_e4m3 v4;
    v4.__x = static_cast<__nv_fp8_storage_t>(b);
    __nv_fp8_e5m2 v5;
    v5.__x = static_cast<__nv_fp8_storage_t>(b);
    if (std::isfinite(float(v4)))
      e4.push_back(float(v4));
    if (std::isfinite(float(v5)))
      e5.push_back(float(v5));
  }
  REQUIRE(e4.size() == 254); // S.1111.111 is NaN
  REQUIRE(e5.size() == 248); // exponent 11111: Inf and NaN
  const std::uint64_t seed = 5000;
  INFO("seed = ", seed);
  tcr::test::rng64 rng(seed);
  for (int trial = 0; trial < 3000; ++trial) {
    float c4[64], c5[64];
    const int mode = trial % 3; // 0: random, 1: all the largest, 2: largest plus the smallest
    for (int k = 0; k < 64; ++k) {
      c4[k] = mode == 1 ? 448.0f : e4[rng.integer(0, e4.size() - 1)];
      c5[k] = mode == 1 ? 57344.0f : e5[rng.integer(0, e5.size() - 1)];
      if (mode == 2 && k % 2)
        c4[k] = 0x1p-9f, c5[k] = -0x1p-16f;
    }
    const float s4 = tcr::exact_sum_e4m3(c4);
    const auto [a, b] = tcr::exact_band_sums_e5m2(c5);
    std::vector<double> d4(c4, c4 + 64), d5(c5, c5 + 64);
    CHECK(mpfr_cmp_d(exact_sum(d4).get(), s4) == 0);
    CHECK(mpfr_equal_p(exact_sum(d5).get(), exact_sum({double(a), double(b)}).get()));
  }
  const float inf = std::numeric_limits<float>::infinity();
  const float e5_specials[4] = {inf, 1.0f, -0x1p-16f, 57344.0f};
  CHECK(tcr::exact_band_sums_e5m2(e5_specials).value == inf);
  const float e5_nan[2] = {std::numeric_limits<float>::quiet_NaN(), 2.0f};
  const auto [na, nb] = tcr::exact_band_sums_e5m2(e5_nan);
  CHECK(std::isnan(na + nb));
}

TEST_CASE("chunked_ssq_double: every band, relative error <= u + 2^-100") {
  const std::uint64_t seed = 6000;
  INFO("seed = ", seed);
  tcr::test::rng64 rng(seed);
  for (auto range : {std::pair<int, int>{-20, 20},
                     {-1074, -900},
                     {900, 1015},
                     {-1074, 1015},
                     {-600, -400},
                     {400, 600}}) {
    std::vector<double> x(4000);
    for (auto& v : x) {
      const int e = int(rng.integer(range.first, range.second));
      v = std::ldexp(1 + rng.uniform(), e) * (rng.coin() ? 1 : -1);
      if (e < -1022)
        v = std::ldexp(double(rng.integer(1, 1 << 20)), -1074) * (rng.coin() ? 1 : -1);
      if (!std::isfinite(v))
        v = DBL_MAX;
    }
    tcr::chunked_ssq_double acc[3];
    for (std::size_t i = 0; i < x.size(); i += 4) {
      const double c[4] = {x[i], x[i + 1], x[i + 2], x[i + 3]};
      acc[(i / 4) % 3].add_chunk(c);
    }
    acc[0].merge(acc[1]);
    acc[0].merge(acc[2]);
    const double res = acc[0].nrm2();
    INFO("exponents ", range.first, " .. ", range.second, ": rel error ",
         tcr::test::nrm2_rel_error(res, tcr::test::exact_dot(x, x)));
    CHECK(tcr::test::nrm2_within(res, tcr::test::exact_dot(x, x), 0x1p-53 + 0x1p-100));
    if (range.first > -1000) { // the pair's bound needs a normal norm
      const tcr::dd p = acc[0].nrm2_pair();
      mp r(400);
      mpfr_sqrt(r.get(), tcr::test::exact_dot(x, x).get(), MPFR_RNDN);
      CHECK(tcr::test::pair_within_bound(p.hi, p.lo, r, mp(64), 0x1p-100 - 0x1p-300, 0));
    }
  }
  const double inf = std::numeric_limits<double>::infinity();
  tcr::chunked_ssq_double s;
  const double c[2] = {1.0, -inf};
  s.add_chunk(c);
  CHECK(s.nrm2() == inf);
  const double n[2] = {std::numeric_limits<double>::quiet_NaN(), 1.0};
  s.add_chunk(n);
  CHECK(std::isnan(s.nrm2()));
  tcr::chunked_ssq_double z;
  CHECK(z.nrm2() == 0.0);
}

TEST_CASE("test support: the Kulisch reference equals MPFR's exact sum") {
  const std::uint64_t seed = 7000;
  INFO("seed = ", seed);
  tcr::test::rng64 rng(seed);
  for (auto range : {std::pair<int, int>{-1074, 1023}, {-1074, -1000}, {-30, 30}}) {
    std::vector<double> x(20000);
    for (auto& v : x) {
      v = std::ldexp(1 + rng.uniform(), int(rng.integer(range.first, range.second))) *
          (rng.coin() ? 1 : -1);
      if (!std::isfinite(v))
        v = -DBL_MAX;
    }
    x[7] = 0x1p-1074;
    x[8] = -0x1.8p-1070;
    CHECK(mpfr_equal_p(tcr::test::fast_exact_sum(x).get(), exact_sum(x).get()));
    CHECK(mpfr_equal_p(tcr::test::fast_exact_sum(x, true).get(), exact_abs_sum(x).get()));
  }
  std::vector<float> a(5000), b(5000);
  for (std::size_t i = 0; i < a.size(); ++i) {
    a[i] = std::ldexp(float(1 + rng.uniform()), int(rng.integer(-149, 127)));
    b[i] =
        std::ldexp(float(1 + rng.uniform()), int(rng.integer(-149, 127))) * (rng.coin() ? 1 : -1);
  }
  const auto ad = as_double(a), bd = as_double(b);
  CHECK(mpfr_equal_p(tcr::test::fast_exact_dot(ad, bd).get(), tcr::test::exact_dot(ad, bd).get()));
}

TEST_CASE("chunked_sum<float>::add_ssq_chunk_short: bfloat16-like values over the whole range") {
  const std::uint64_t seed = 8000;
  INFO("seed = ", seed);
  tcr::test::rng64 rng(seed);
  for (auto range :
       {std::pair<int, int>{-133, 100}, {-133, -60}, {60, 100}, {-70, -55}, {-10, 10}}) {
    std::vector<float> x(4096);
    for (auto& v : x) {
      const float m = 1.0f + float(rng.integer(0, 127)) / 128.0f; // 8 significant bits
      v = std::ldexp(m, int(rng.integer(range.first, range.second))) * (rng.coin() ? 1.0f : -1.0f);
      if (rng.integer(0, 15) == 0)
        v = 0.0f;
    }
    tcr::chunked_sum<float> acc[3];
    for (std::size_t i = 0; i < x.size(); i += 8) {
      float c[8];
      for (int k = 0; k < 8; ++k)
        c[k] = x[i + k];
      acc[(i / 8) % 3].add_ssq_chunk_short(c);
    }
    acc[0].merge(acc[1]);
    acc[0].merge(acc[2]);
    const double res = double(float(std::sqrt(acc[0].value())));
    const auto xd = as_double(x);
    INFO("exponents ", range.first, " .. ", range.second, ": rel error ",
         tcr::test::nrm2_rel_error(res, tcr::test::exact_dot(xd, xd)));
    CHECK(tcr::test::nrm2_within(res, tcr::test::exact_dot(xd, xd), 0x1p-24 + 0x1p-40));
  }
  tcr::chunked_sum<float> z;
  const float zeros[8] = {};
  z.add_ssq_chunk_short(zeros);
  CHECK(z.value() == 0.0);
}

TEST_CASE("chunked sums and the device accumulators: IEEE signed zeros, by sign bit") {
  // IEEE summation: -0 only when every term is -0; one +0 term gives +0. Empty: -0 (identity).
  for (std::size_t n : {std::size_t(1), std::size_t(7), std::size_t(100)}) {
    INFO("n = ", n);
    const std::vector<float> neg(n, -0.0f);
    std::vector<float> mixed(n, -0.0f);
    mixed[n / 2] = 0.0f;
    CHECK(std::signbit(fold<tcr::chunked_sum<float>, 4>(neg, 3).value()));
    CHECK_FALSE(std::signbit(fold<tcr::chunked_sum<float>, 4>(mixed, 3).value()));
    CHECK(std::signbit(fold<tcr::chunked_sum<float>, 4>(neg, 3).result()));
    const std::vector<double> dneg(n, -0.0);
    std::vector<double> dmixed(n, -0.0);
    dmixed[n / 2] = 0.0;
    CHECK(std::signbit(fold<tcr::chunked_sum<double>, 2>(dneg, 3).value()));
    CHECK_FALSE(std::signbit(fold<tcr::chunked_sum<double>, 2>(dmixed, 3).value()));
  }
  CHECK(std::signbit(tcr::chunked_sum<float>{}.value()));
  CHECK(std::signbit(tcr::chunked_sum<double>{}.value()));
  // The device accumulators: the partial of -0 terms stays -0 through merges and finish; the
  // empty reduction's result is +0 (as CUB writes it).
  tcr::sum_accumulator<float> a;
  const float zeros[8] = {-0.0f, -0.0f, -0.0f, -0.0f, -0.0f, -0.0f, -0.0f, -0.0f};
  a.add(zeros);
  const auto p = a.merge(a.partial(), tcr::sum_accumulator<float>{}.partial());
  CHECK(std::signbit(a.finish<float>(p)));
  CHECK_FALSE(std::signbit(a.empty_result<float>()));
  tcr::sum_accumulator<double> b;
  const double dzeros[4] = {-0.0, -0.0, -0.0, -0.0};
  b.add(dzeros);
  const auto q = b.merge(b.partial(), tcr::sum_accumulator<double>{}.partial());
  CHECK(std::signbit(b.finish<double>(q)));
  CHECK_FALSE(std::signbit(b.empty_result<double>()));
}
