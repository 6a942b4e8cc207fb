// SPDX-License-Identifier: BSD-3-Clause
// GPU tests for tcr::DeviceReduce::Dot and Nrm2: every input type (and mixed Dot pairs), edge
// sizes, unaligned and mutually misaligned pointers, GenDot data, extreme ranges for Nrm2, and
// special values, against exact MPFR references and the contracts' bounds.
#include <doctest/doctest.h>

#include <cfloat>
#include "reduce/device_test_util.hpp"

namespace {

using namespace tcr::test;

const std::int64_t dot_sizes[] = {0,    1,    2,     7,     8,     9,       31,           32,
                                  33,   1023, 1024,  1025,  2047,  2048,    2049,         4095,
                                  4096, 4097, 65535, 65536, 65537, 1 << 20, (1 << 20) + 3};

template <class X, class Y, class Out>
void check_dot(std::uint64_t seed) {
  for (std::int64_t n : dot_sizes) {
    INFO("seed = ", seed, ", n = ", n);
    const auto x = typed_random<X>(static_cast<std::size_t>(n), seed + n, -6, 6);
    const auto y = typed_random<Y>(static_cast<std::size_t>(n), seed + 7 * n + 1, -6, 6);
    run_and_check<Out>(op::dot, x, 0, &y, 0);
    run_and_check<Out>(op::dot, x, 1, &y, 1); // same misalignment: vector path after a head
    run_and_check<Out>(op::dot, x, 1, &y, 2); // different: scalar path
  }
}

template <class T, class Out>
void check_nrm2(std::uint64_t seed, int emin, int emax) {
  for (std::int64_t n : dot_sizes) {
    INFO("seed = ", seed, ", n = ", n);
    run_and_check<Out>(op::nrm2, typed_random<T>(static_cast<std::size_t>(n), seed + n, emin, emax),
                       n % 3);
  }
}

} // namespace

TEST_SUITE("gpu") {
  TEST_CASE("Dot float.float -> float") {
    check_dot<float, float, float>(1100);
  }
  TEST_CASE("Dot half.half, bfloat16.bfloat16 -> float") {
    check_dot<__half, __half, float>(1200);
    check_dot<__nv_bfloat16, __nv_bfloat16, float>(1300);
  }
  TEST_CASE("Dot e4m3.e4m3, e5m2.e5m2 -> float") {
    check_dot<__nv_fp8_e4m3, __nv_fp8_e4m3, float>(1400);
    check_dot<__nv_fp8_e5m2, __nv_fp8_e5m2, float>(1500);
  }
  TEST_CASE("Dot double.double -> double") {
    check_dot<double, double, double>(1600);
  }
  TEST_CASE("Dot mixed pairs") {
    check_dot<float, __half, float>(1700);
    check_dot<__half, __nv_fp8_e4m3, float>(1710);
    check_dot<__nv_bfloat16, float, float>(1720);
    check_dot<float, double, double>(1730);
    check_dot<float, float, double>(1740);
  }

  TEST_CASE("Dot: GenDot data, cond 1 .. 1e32 (float, double)") {
    for (double cond : {1.0, 1e8, 1e16, 1e24, 1e32}) {
      for (std::size_t n : {std::size_t(1000), (std::size_t(1) << 20) + 5}) {
        const std::uint64_t seed = 1800 + static_cast<std::uint64_t>(std::log10(cond)) + n % 3;
        INFO("seed = ", seed, ", cond = ", cond, ", n = ", n);
        const auto [xf, yf] = gen_dot<float>(n, cond, seed);
        const typed_data<float> x(std::vector<double>(xf.begin(), xf.end()));
        const typed_data<float> y(std::vector<double>(yf.begin(), yf.end()));
        run_and_check<float>(op::dot, x, 0, &y, 0);
        const auto [xd, yd] = gen_dot<double>(n, cond, seed);
        const typed_data<double> xdd(xd), ydd(yd);
        run_and_check<double>(op::dot, xdd, 1, &ydd, 1);
      }
    }
  }

  TEST_CASE("Nrm2: every type over its whole range") {
    // Exponents up to 116: with n <= 2^21 the norm stays below FLT_MAX (a finite exact result).
    check_nrm2<float, float>(2000, -149, 116);
    check_nrm2<float, float>(2010, -149, -120); // subnormal squares
    check_nrm2<float, float>(2020, 100, 116);   // squares overflow float
    check_nrm2<__half, float>(2100, -24, 15);
    check_nrm2<__nv_bfloat16, float>(2200, -133, 116);
    check_nrm2<__nv_fp8_e4m3, float>(2300, -9, 8);
    check_nrm2<__nv_fp8_e5m2, float>(2400, -16, 15);
    check_nrm2<double, double>(2500, -30, 30);
    check_nrm2<double, double>(2510, -1074, 1010);
    check_nrm2<double, double>(2520, -1074, -1000);
    check_nrm2<double, double>(2530, 900, 1010);
    check_nrm2<float, double>(2600, -149, 126);
  }

  TEST_CASE("Nrm2: the largest and smallest values, no spurious overflow or underflow") {
    const double fm = FLT_MAX, dm = DBL_MAX;
    run_and_check<float>(op::nrm2, typed_data<float>({fm * 0.5, fm * 0.25, -fm * 0.25}), 0);
    run_and_check<float>(op::nrm2, typed_data<float>({0x1p-149, -0x1p-149, 0x1p-148}), 0);
    run_and_check<double>(op::nrm2, typed_data<double>({dm * 0.5, -dm * 0.25, 1.0, 0x1p-1074}), 0);
    run_and_check<double>(op::nrm2,
                          typed_data<double>({0x1p-1074, -0x1p-1074, 0x1p-1073, 0x1p-1060}), 0);
    run_and_check<float>(op::nrm2, typed_data<__nv_bfloat16>({0x1p-133, 0x1.fep127 / 4}), 0);
    // Exact: ||(3, 4) * 2^k|| = 5 * 2^k at both ends of the range.
    device_buffer<double> d(std::vector<double>{3 * 0x1p1020, 4 * 0x1p1020});
    CHECK(run_device<double>(op::nrm2, d.get(), d.get(), 2) == 5 * 0x1p1020);
    device_buffer<double> t(std::vector<double>{3 * 0x1p-1074, 4 * 0x1p-1074});
    CHECK(run_device<double>(op::nrm2, t.get(), t.get(), 2) == 5 * 0x1p-1074);
    device_buffer<float> f(std::vector<float>{3 * 0x1p125f, 4 * 0x1p125f});
    CHECK(run_device<float>(op::nrm2, f.get(), f.get(), 2) == 5 * 0x1p125f);
    // The exact norm overflows: +inf.
    device_buffer<float> o(std::vector<float>{FLT_MAX, FLT_MAX});
    CHECK(run_device<float>(op::nrm2, o.get(), o.get(), 2) ==
          std::numeric_limits<float>::infinity());
  }

  TEST_CASE("Dot/Nrm2: Inf and NaN") {
    const float inf = std::numeric_limits<float>::infinity();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    device_buffer<float> a(std::vector<float>{1, inf, 2, 3, 4, 5, 6, 7, 8});
    device_buffer<float> b(std::vector<float>{1, 1, 1, 1, 1, 1, 1, 1, 1});
    device_buffer<float> z(std::vector<float>{1, 0, 1, 1, 1, 1, 1, 1, 1});
    device_buffer<float> n(std::vector<float>{1, nan, -inf, 3, 4, 5, 6, 7, 8});
    CHECK(run_device<float>(op::dot, a.get(), b.get(), 9) == inf);
    CHECK(std::isnan(run_device<float>(op::dot, a.get(), z.get(), 9))); // inf * 0
    CHECK(run_device<float>(op::nrm2, a.get(), a.get(), 9) == inf);
    CHECK(std::isnan(run_device<float>(op::nrm2, n.get(), n.get(), 9)));
    device_buffer<double> ad(std::vector<double>{1, double(inf), 2});
    CHECK(run_device<double>(op::nrm2, ad.get(), ad.get(), 3) == double(inf));
    CHECK(run_device<double>(op::dot, ad.get(), ad.get(), 3) == double(inf));
  }

  TEST_CASE("Dot double: products beyond DBL_MAX or far below 2^-969 stay finite and exact") {
    const double m = DBL_MAX;
    const typed_data<double> x({0x1p600, 0x1p600, 1.0, 3.0, m, m, 0.5});
    const typed_data<double> y({0x1p600, -0x1p600, 1.0, 2.0, 0.75, -0.5, -m});
    run_and_check<double>(op::dot, x, 0, &y, 0);
    const std::uint64_t seed = 2700;
    INFO("seed = ", seed);
    for (std::size_t n : {std::size_t(1001), std::size_t(300007)}) {
      const auto a = typed_random<double>(n, seed, -500, -490); // products 2^-1000 .. 2^-978
      const auto b = typed_random<double>(n, seed + 1, -500, -490);
      run_and_check<double>(op::dot, a, 1, &b, 1);
    }
  }
}
