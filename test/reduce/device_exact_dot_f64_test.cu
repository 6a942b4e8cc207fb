// SPDX-License-Identifier: BSD-3-Clause
// GPU tests for tcr::DeviceReduce's exact modes, Dot and Nrm2 with a double operand
// (compensated/exact_binned.cuh, binned_exact_dot_f64): Dot is the exact dot product rounded once
// to nearest even (double and float results; ill-conditioned to 1e32; products over the whole
// range 2^-2148 .. 2^2046, beyond double's range where their sum is not); Nrm2 is within 1 ulp of
// the correctly rounded norm over the whole range (squares beyond DBL_MAX and below 2^-1074); the
// same bits for every grid, offset and split of the data; special values and zero signs.
// References: MPFR's exact sum of the exact products (test/support/mpfr_ref.hpp, 4400 bits).
#include <doctest/doctest.h>

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
using tcr::test::exact::rounded;
using tcr::test::exact::run_dot;
using tcr::test::exact::run_dot_both_ways;
using tcr::test::exact::run_two_phase;
using P = tcr::exact_partial<tcr::double_products>;
const std::vector<double>* const no_y = nullptr;

template <class Out, class X, class Y>
void check_dot(const typed_data<X>& x, const typed_data<Y>& y, std::size_t ox, std::size_t oy) {
  INFO("Dot<", type_name<X>(), ", ", type_name<Y>(), " -> ", type_name<Out>(), "> n = ", x.t.size(),
       ", offsets ", ox, " ", oy);
  const Out res = run_dot<Out>(x.t, &y.t, ox, oy);
  const mp s = exact_dot(x.d, y.d);
  INFO("result ", to_double(res), ", exact ", s.to_double());
  CHECK(is_round_to_nearest(res, s));
}

// The norm's contract: within 1 ulp of the correctly rounded sqrt of the exact sum of squares
// (where that rounds to +inf, DBL_MAX or +inf).
template <class Out>
void check_nrm2(const typed_data<double>& x, std::size_t ox) {
  INFO("Nrm2<double -> ", type_name<Out>(), "> n = ", x.t.size(), ", offset ", ox);
  const Out res = run_dot<Out>(x.t, no_y, ox, 0);
  const mp ssq = exact_dot(x.d, x.d);
  mp r(mp::exact_dot_bits);
  mpfr_sqrt(r.get(), ssq.get(), MPFR_RNDN);
  const Out cr = std::is_same_v<Out, float> ? Out(r.to_float()) : Out(r.to_double());
  INFO("result ", to_double(res), ", correctly rounded ", to_double(cr));
  if (std::isinf(cr)) {
    CHECK(res >= std::numeric_limits<Out>::max());
    return;
  }
  if (cr == 0) {
    CHECK(bits_of(res) == bits_of(Out(0)));
    return;
  }
  const Out ulp = std::nextafter(cr, std::numeric_limits<Out>::infinity()) - cr;
  mp d(mp::exact_dot_bits);
  mpfr_sub_d(d.get(), r.get(), to_double(res), MPFR_RNDN); // exact at this precision
  CHECK(std::fabs(mpfr_get_d(d.get(), MPFR_RNDU)) <= to_double(ulp));
}

template <class T>
typed_data<T> spread(std::size_t n, std::uint64_t seed, int emin, int emax) {
  return typed_random<T>(n, seed, emin, emax);
}

std::vector<std::int64_t> dot_sizes() {
  return {1, 2, 3, 17, 255, 256, 257, 2049, 4097, 8193, 100000, 1000003};
}

bool same(const P& a, const P& b) {
  return std::memcmp(a.limb, b.limb, sizeof a.limb) == 0 && a.flags == b.flags;
}

// Dot into Out with the certify-first pass (certify_first_accumulator::add_product: one block,
// or a cooperative grid) and with the exact pass alone: the same bits, and RN of the exact dot.
template <class Out, class Y>
void check_certify_first(const typed_data<double>& x, const typed_data<Y>& y, std::size_t ox,
                         std::size_t oy) {
  INFO("certify first: Dot<double, ", type_name<Y>(), " -> ", type_name<Out>(),
       "> n = ", x.t.size(), ", offsets ", ox, " ", oy);
  const Out first = run_dot_both_ways<Out>(x.t, &y.t, ox, oy);
  CHECK(is_round_to_nearest(first, exact_dot(x.d, y.d)));
}

// Nrm2 of doubles with the certify-first pass (the sum of squares' certificate decides
// RN_double(s) >= 2^-1021: reduce/device.cuh's decide_norm) and with the exact pass alone: the
// same bits, and within 1 ulp.
template <class Out>
void check_certify_first_nrm2(const typed_data<double>& x, std::size_t ox) {
  INFO("certify first: Nrm2<double -> ", type_name<Out>(), "> n = ", x.t.size(), ", offset ", ox);
  run_dot_both_ways<Out>(x.t, no_y, ox, 0);
  check_nrm2<Out>(x, ox);
}

TEST_SUITE("gpu") {

  TEST_CASE("exact Dot of doubles: sizes, offsets, the whole range of products, condition 1e32") {
    for (std::int64_t n : dot_sizes()) {
      INFO("n ", n);
      const std::size_t m = static_cast<std::size_t>(n);
      check_dot<double>(spread<double>(m, 1 + n, -40, 40), spread<double>(m, 2 + n, -40, 40), n % 8,
                        n % 5);
      // Products from 2^-2148 up to 2^2046: beyond double's range both ways, and subnormals.
      check_dot<double>(spread<double>(m, 3 + n, -1074, 1023),
                        spread<double>(m, 4 + n, -1074, 1023), 1, 0);
      check_dot<float>(spread<double>(m, 5 + n, -600, 600), spread<double>(m, 6 + n, -600, 600), 0,
                       3);
      // Mixed operands: the float widened exactly.
      check_dot<double>(spread<double>(m, 7 + n, -300, 300), spread<float>(m, 8 + n, -149, 127), 2,
                        1);
    }
    for (double cond : {1e8, 1e16, 1e32}) {
      INFO("condition ", cond);
      for (std::size_t m : {std::size_t(1000), std::size_t(100003)}) {
        const auto xy = gen_dot<double>(m, cond, 11 + m);
        check_dot<double>(typed_data<double>(xy.first), typed_data<double>(xy.second), 0, 0);
        check_dot<float>(typed_data<double>(xy.first), typed_data<double>(xy.second), 5, 7);
      }
    }
  }

  TEST_CASE("exact Nrm2 of doubles: within 1 ulp over the whole range") {
    for (std::int64_t n : dot_sizes()) {
      INFO("n ", n);
      const std::size_t m = static_cast<std::size_t>(n);
      check_nrm2<double>(spread<double>(m, 21 + n, -40, 40), n % 4);
      check_nrm2<double>(spread<double>(m, 22 + n, 520, 1020), 1);   // squares beyond DBL_MAX
      check_nrm2<double>(spread<double>(m, 23 + n, -1074, -540), 0); // squares below 2^-1074
      check_nrm2<double>(spread<double>(m, 24 + n, -1074, 1023), 3); // everything
      check_nrm2<float>(spread<double>(m, 25 + n, -200, 200), 2);
    }
    // Norms of single values: |x| exactly, at both ends of the range.
    for (double v : {DBL_MAX, -0x1p1000, 0x1.8p-1070, 4.9406564584124654e-324, -3.0})
      CHECK(run_dot<double>(std::vector<double>{v}, no_y, 1, 0) == std::fabs(v));
    const double inf = std::numeric_limits<double>::infinity();
    CHECK(run_dot<double>(std::vector<double>{DBL_MAX, DBL_MAX}, no_y, 0, 0) == inf);
    std::vector<double> a(5000, 3.0);
    a[4000] = -inf;
    CHECK(run_dot<double>(a, no_y, 0, 0) == inf);
    a[17] = std::numeric_limits<double>::quiet_NaN();
    CHECK(std::isnan(run_dot<double>(a, no_y, 0, 0)));
    CHECK(bits_of(run_dot<double>(std::vector<double>(3000, -0.0), no_y, 0, 0)) == 0u);
  }

  // binned_exact_dot_f64 spills its window every 2^10 products: a grid of one block (256
  // threads) on 3 x 2^18 + 5 products gives each thread 3 spills. The partials of that grid, of 7
  // blocks and of the whole grid, at several offsets, and of the data cut into parts merged in
  // both orders, must be the same bits; and a leading run of zeros (which must not fix a window
  // that every later product misses) and extreme products cancelling beyond double's range.
  TEST_CASE("exact Dot and Nrm2 of doubles: the same bits for every grid, offset and split") {
    const std::size_t n = (std::size_t(3) << 18) + 5;
    auto x = spread<double>(n, 31, -300, 300).d;
    auto y = spread<double>(n, 32, -300, 300).d;
    for (std::size_t i = 0; i < 4096; ++i)
      x[i] = 0.0;
    for (std::size_t i = 5000; i < 5100; i += 2) { // DBL_MAX^2 - DBL_MAX^2, 2^-2148 - 2^-2148
      x[i] = x[i + 1] = (i % 4 == 0) ? DBL_MAX : 4.9406564584124654e-324;
      y[i] = -(y[i + 1] = x[i]);
    }
    const P whole = run_dot<P>(x, &y, 0, 0);
    const P whole_sq = run_dot<P>(x, no_y, 0, 0);
    for (int grid : {1, 7}) {
      tcr::detail::device::grid_limit_for_tests = grid;
      INFO("grid ", grid);
      CHECK(same(run_dot<P>(x, &y, 3, 1), whole));
      CHECK(same(run_dot<P>(x, no_y, 1, 0), whole_sq));
    }
    tcr::detail::device::grid_limit_for_tests = 0;
    CHECK(same(run_dot<P>(x, &y, 1, 2), whole));
    for (std::size_t cut : {std::size_t(1), std::size_t(4097), n / 3, n - 1}) {
      INFO("cut ", cut);
      const std::vector<double> x0(x.begin(), x.begin() + long(cut)),
          x1(x.begin() + long(cut), x.end());
      const std::vector<double> y0(y.begin(), y.begin() + long(cut)),
          y1(y.begin() + long(cut), y.end());
      const P a = run_dot<P>(x0, &y0, 0, 0), b = run_dot<P>(x1, &y1, 0, 0);
      CHECK(same(tcr::exact_merge(a, b), whole));
      CHECK(same(tcr::exact_merge(b, a), whole));
    }
    CHECK(is_round_to_nearest(tcr::exact_finish<double>(whole), exact_dot(x, y)));
    CHECK(bits_of(run_dot<double>(x, &y, 0, 0)) == bits_of(tcr::exact_finish<double>(whole)));
    CHECK(bits_of(run_dot<double>(x, no_y, 0, 0)) ==
          bits_of(tcr::detail::exact_norm_of<double>(whole_sq)));
    check_nrm2<double>(typed_data<double>(x), 2);
  }

  // Dot and Nrm2 of doubles certify first (TwoProd pairs, certify_first_accumulator::add_product),
  // one block or a cooperative grid: the same bits as the exact pass alone on data it decides
  // (moderate ranges), on data it cannot (condition 1e32, ties, products below the subnormals,
  // products beyond double's range), for grids of 1, 7 and every resident block.
  TEST_CASE("exact Dot and Nrm2 of doubles: certify first or fall back, the same bits") {
    for (int grid : {0, 1, 7}) {
      tcr::detail::device::grid_limit_for_tests = grid;
      INFO("grid limit ", grid);
      for (std::size_t n :
           {std::size_t(5), std::size_t(1000), std::size_t(9000), std::size_t(300001)}) {
        check_certify_first<double>(spread<double>(n, 41 + n, -20, 20),
                                    spread<double>(n, 42 + n, -20, 20), n % 3, 1);
        check_certify_first<float>(spread<double>(n, 43 + n, -100, 100),
                                   spread<float>(n, 44 + n, -100, 100), 0, 2);
        const auto xy = gen_dot<double>(n < 10 ? 10 : n, 1e32, 45 + n);
        check_certify_first<double>(typed_data<double>(xy.first), typed_data<double>(xy.second), 1,
                                    1);
        check_certify_first<double>(spread<double>(n, 46 + n, -1074, 1023),
                                    spread<double>(n, 47 + n, -1074, 1023), 0, 0);
      }
      // Nrm2: moderate (decided), squares beyond DBL_MAX (the certificate overflows), sums of
      // squares below 2^-1021 (left undecided) and just above it.
      for (std::size_t n : {std::size_t(7), std::size_t(5000), std::size_t(200003)}) {
        check_certify_first_nrm2<double>(spread<double>(n, 51 + n, -30, 30), n % 4);
        check_certify_first_nrm2<float>(spread<double>(n, 52 + n, -100, 100), 1);
        check_certify_first_nrm2<double>(spread<double>(n, 53 + n, 500, 700), 0);
        check_certify_first_nrm2<double>(spread<double>(n, 54 + n, -540, -520), 2);
        check_certify_first_nrm2<double>(spread<double>(n, 55 + n, -1074, 1023), 1);
      }
      // A tie (1 + 2^-53), products below the subnormals, a sum that needs them to round.
      std::vector<double> a(3000, 0.0), b(3000, 0.0);
      a[0] = b[0] = 1.0;
      a[2999] = 0x1p-27;
      b[2999] = 0x1p-26;
      check_certify_first<double>(typed_data<double>(a), typed_data<double>(b), 0, 0);
      a[1500] = 0x1p-600;
      b[1500] = 0x1p-500;
      check_certify_first<double>(typed_data<double>(a), typed_data<double>(b), 1, 0);
    }
    tcr::detail::device::grid_limit_for_tests = 0;
  }

  TEST_CASE("exact Dot of doubles: special values, zero signs, ties, sums beyond double's range") {
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<double> a(5000, 1.0), b(5000, 2.0);
    a[10] = inf;
    CHECK(run_dot<double>(a, &b, 0, 0) == inf);
    b[10] = 0.0;
    CHECK(std::isnan(run_dot<double>(a, &b, 0, 0)));
    b[10] = -1.0;
    b[11] = std::numeric_limits<double>::quiet_NaN();
    CHECK(std::isnan(run_dot<double>(a, &b, 1, 1)));
    std::vector<double> z(3000, -0.0), o(3000, 1.0);
    CHECK(bits_of(run_dot<double>(z, &o, 1, 2)) == 0x8000000000000000ull); // every product -0
    o[5] = -1.0;
    CHECK(bits_of(run_dot<double>(z, &o, 0, 0)) == 0u); // one +0 product
    z[7] = 0x1p-600;
    o[7] = -0x1p-600; // -2^-1200: rounds to -0, but it is not zero
    CHECK(bits_of(run_dot<double>(z, &o, 0, 0)) == 0x8000000000000000ull);
    CHECK(bits_of(run_dot<float>(z, &o, 0, 0)) == 0x80000000u);
    CHECK(bits_of(run_dot<double>(std::vector<double>{}, &o, 0, 0)) == 0u); // empty: +0
    // A tie: 1 + 2^-53 rounds to even; 2^-1200 more rounds up.
    std::vector<double> t1(2000, 0.0), t2(2000, 0.0);
    t1[3] = 1.0;
    t2[3] = 1.0;
    t1[1500] = 0x1p-27;
    t2[1500] = 0x1p-26;
    CHECK(run_dot<double>(t1, &t2, 0, 0) == 1.0);
    t1[1999] = 0x1p-600;
    t2[1999] = 0x1p-600;
    CHECK(run_dot<double>(t1, &t2, 0, 0) == 1.0 + 0x1p-52);
    // Products beyond DBL_MAX: a sum beyond it (+inf), and sums of them that cancel.
    const double M = DBL_MAX;
    const std::vector<double> h1 = {M, M, 0.5}, k1 = {M, M, 3.0};
    CHECK(run_dot<double>(h1, &k1, 0, 0) == inf);
    const std::vector<double> h2 = {M, -M, 0.5}, k2 = {M, M, 3.0};
    CHECK(run_dot<double>(h2, &k2, 0, 0) == 1.5);
    const std::vector<double> h3 = {M, M, -M, 0.5}, k3 = {M, 0.5, M, 3.0};
    CHECK(run_dot<double>(h3, &k3, 1, 0) == M / 2); // M / 2 + 1.5 rounds to M / 2
  }

} // TEST_SUITE

} // namespace
