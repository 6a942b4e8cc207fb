// SPDX-License-Identifier: BSD-3-Clause
// GPU tests for the exact accumulators' layouts (compensated/exact_binned.cuh): the bfloat16 Sum /
// Asum in float bins (detail::exact_bins_bf16_float, a candidate for the default) and the f64 Sum
// / Asum in paired rows (binned_exact_sum_f64<256, true>, the default) and in single rows
// (binned_exact_sum_f64<256, false>), run by DeviceReduce's exact kernel and plan as the
// benchmarks run them (tcr.correctly_rounded.fbins, .rows1). Each result must be the exact sum
// rounded once to nearest even (against the exact value, by its neighbours), and the same bits
// for another grid and input offset: sizes around the block and grid boundaries, random data over
// the whole range, ill-conditioned sums, subnormals, values near overflow, bins at their add
// bounds, zeros and special values.
#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>
#include <limits>
#include <tcr/compensated/exact_binned.cuh>
#include "reduce/device_test_util.hpp"
#include "reduce/exact_check.hpp"

namespace {

using namespace tcr::test;
using tcr::test::exact::bits_of;
using tcr::test::exact::is_round_to_nearest;
using tcr::test::exact::run_two_phase;
namespace dk = tcr::detail::device;

using bf16_float_bins =
    tcr::binned_exact_sum<__nv_bfloat16, 256, tcr::detail::exact_bins_bf16_float>;
using f64_paired_rows = tcr::binned_exact_sum_f64<256, true>;
using f64_single_rows = tcr::binned_exact_sum_f64<256, false>;

// Sum (or Asum) of x at element offset `offset` of a NaN-padded buffer, with accumulator Acc.
template <class Acc, class T>
auto run_variant(op o, const std::vector<T>& x, std::size_t offset) {
  using Out = std::conditional_t<std::is_same_v<T, double>, double, float>;
  padded_device<T> dx(x, offset);
  const std::int64_t n = static_cast<std::int64_t>(x.size());
  const auto launch = [&](auto asum) {
    constexpr bool abs = decltype(asum)::value;
    constexpr dk::op_kind DOp = abs ? dk::op_kind::asum : dk::op_kind::sum;
    using R = dk::reduction<Acc, T, void, Out, abs>;
    return run_two_phase<Out>([&](void* temp, std::size_t& bytes, Out* out) {
      return dk::launch<DOp, R, dk::engine_kind::cuda_core, dk::exact_plan<DOp, R>>(
          temp, bytes, dk::params_for<R>(dx.get(), dx.get(), out, n), 0, Acc{});
    });
  };
  return o == op::asum ? launch(std::true_type{}) : launch(std::false_type{});
}

// The result is the exact sum rounded to nearest, and the same bits with the grid cut to 1 and
// 7 blocks at another offset.
template <class Acc, class T>
void check_variant(op o, const typed_data<T>& x, std::size_t offset) {
  INFO(op_name(o), "<", type_name<T>(), "> n = ", x.t.size(), ", offset ", offset);
  const auto res = run_variant<Acc>(o, x.t, offset);
  const mp s = fast_exact_sum(x.d, o == op::asum);
  INFO("result ", to_double(res), ", exact ", s.to_double());
  CHECK(is_round_to_nearest(res, s));
  for (int grid : {1, 7}) {
    dk::grid_limit_for_tests = grid;
    const auto other = run_variant<Acc>(o, x.t, (offset + 3) % 8);
    dk::grid_limit_for_tests = 0;
    CHECK(bits_of(other) == bits_of(res));
  }
}

template <class Acc, class T>
void check_sizes(int emin, int emax, std::uint64_t seed) {
  for (std::int64_t n : tcr::test::exact::exact_sizes<T>()) {
    INFO("seed ", seed, ", n ", n);
    const auto wide = typed_random<T>(static_cast<std::size_t>(n), seed + n, emin, emax);
    const auto narrow = typed_random<T>(static_cast<std::size_t>(n), seed + 7 * n, -3, 3);
    for (op o : {op::sum, op::asum}) {
      check_variant<Acc>(o, wide, 0);
      check_variant<Acc>(o, narrow, std::size_t(n % 5));
    }
  }
}

template <class F64>
void check_f64_layout() {
  check_sizes<F64, double>(-1060, 1010, 21);
  for (double cond : {1e4, 1e16, 1e32})
    check_variant<F64>(op::sum, typed_data<double>(gen_sum<double>(300000, cond, 6)), 1);
  rng64 rng(43);
  std::vector<double> dsub(200000);
  for (auto& v : dsub)
    v = std::ldexp(double(rng.integer(1, std::int64_t(1) << 52)), -1074) * (rng.coin() ? 1 : -1);
  check_variant<F64>(op::sum, typed_data<double>(dsub), 1);
  std::vector<double> dbig(50001);
  for (std::size_t i = 0; i + 1 < dbig.size(); i += 2) {
    dbig[i] = DBL_MAX;
    dbig[i + 1] = -std::ldexp(1.0, 1000) * (1 + rng.uniform());
  }
  dbig.back() = 3.0;
  check_variant<F64>(op::sum, typed_data<double>(dbig), 0); // overflows
  for (auto& v : dbig)
    v = std::ldexp(1 + rng.uniform(), 900 - int(rng.integer(0, 60))) * (rng.coin() ? 1 : -1);
  check_variant<F64>(op::sum, typed_data<double>(dbig), 1); // max |x| near 2^900
  // Each row's bins at their add bound (the host model's case, on the kernel): inputs at the
  // top of a row whose low 27 significand bits are ones, every 16th at the row's bottom
  // exponent with an odd significand; rows 1, 40 and 126.
  for (int row : {1, 40, 126}) {
    std::vector<double> top(1 << 20);
    for (std::size_t i = 0; i < top.size(); ++i) {
      const std::int64_t m =
          i % 16 == 0 ? (std::int64_t(1) << 52) + 2 * rng.integer(0, std::int64_t(1) << 50) + 1
                      : (std::int64_t(1) << 53) - 1 - (rng.integer(0, (1 << 25) - 1) << 27);
      top[i] = std::ldexp(double(m), 16 * row + (i % 16 == 0 ? 0 : 15) - 1075);
    }
    check_variant<F64>(op::sum, typed_data<double>(top), 2);
  }
  // Float-valued doubles with zeros of both signs (lo pieces -0), tiny data after a large
  // first input (outside the window), zeros and specials.
  auto f = typed_random<float>(70001, 83, -30, 30);
  typed_data<double> d(f.d);
  for (std::size_t i = 0; i < d.t.size(); i += 97)
    d.t[i] = d.d[i] = (i / 97) % 2 ? 0.0 : -0.0;
  check_variant<F64>(op::sum, d, 1);
  check_variant<F64>(op::asum, d, 0);
  auto m = typed_random<double>(100000, 85, -1022, -990);
  m.t[0] = m.d[0] = 1.0;
  check_variant<F64>(op::sum, m, 0);
  const std::vector<double> z(5000, -0.0);
  CHECK(bits_of(run_variant<F64>(op::sum, z, 0)) == 0x8000000000000000ull);
  std::vector<double> z1 = z;
  z1[4321] = 0.0;
  CHECK(bits_of(run_variant<F64>(op::sum, z1, 0)) == 0u);
  std::vector<double> s(5000, 1.0);
  s[17] = -std::numeric_limits<double>::infinity();
  CHECK(run_variant<F64>(op::sum, s, 0) == -std::numeric_limits<double>::infinity());
  CHECK(run_variant<F64>(op::asum, s, 0) == std::numeric_limits<double>::infinity());
  s[4000] = std::numeric_limits<double>::quiet_NaN();
  CHECK(std::isnan(run_variant<F64>(op::sum, s, 0)));
}

TEST_SUITE("gpu") {
  TEST_CASE("exact variants: bfloat16 in float bins") {
    check_sizes<bf16_float_bins, __nv_bfloat16>(-133, 127, 11);
    for (double cond : {1e4, 1e16, 1e32})
      check_variant<bf16_float_bins>(
          op::sum, typed_data<__nv_bfloat16>(gen_sum<double>(300000, cond, 5)), 1);
    rng64 rng(41);
    // Subnormal-only data (bins 0 and 1 of the scaled inputs), near overflow (+-max pairs with
    // a finite exact sum), and each bin at its add bound: 8-bit significands of all ones at the
    // top of one bin, every 16th input at its bottom exponent with the last bit set.
    std::vector<double> sub(200000);
    for (auto& v : sub)
      v = std::ldexp(double(rng.integer(1, 127)), -133) * (rng.coin() ? 1 : -1);
    check_variant<bf16_float_bins>(op::sum, typed_data<__nv_bfloat16>(sub), 0);
    check_variant<bf16_float_bins>(op::asum, typed_data<__nv_bfloat16>(sub), 5);
    std::vector<double> big(100001);
    for (std::size_t i = 0; i + 1 < big.size(); i += 2) {
      big[i] = 0x1.fep127;
      big[i + 1] = -0x1.fep127;
    }
    big.back() = 3.0;
    check_variant<bf16_float_bins>(op::sum, typed_data<__nv_bfloat16>(big), 0);
    for (int bin : {1, 9, 30}) {
      std::vector<double> top(1 << 20);
      for (std::size_t i = 0; i < top.size(); ++i)
        top[i] = i % 16 == 0 ? std::ldexp(double(129 + 2 * rng.integer(0, 63)), 8 * bin - 134)
                             : std::ldexp(255.0, 8 * bin + 7 - 134);
      check_variant<bf16_float_bins>(op::sum, typed_data<__nv_bfloat16>(top), 2);
    }
    // Zeros and specials.
    const std::vector<double> z(5000, -0.0);
    CHECK(bits_of(run_variant<bf16_float_bins>(op::sum, typed_data<__nv_bfloat16>(z).t, 0)) ==
          0x80000000u);
    std::vector<double> s(5000, 1.0);
    s[17] = -std::numeric_limits<double>::infinity();
    CHECK(run_variant<bf16_float_bins>(op::sum, typed_data<__nv_bfloat16>(s).t, 0) ==
          -std::numeric_limits<float>::infinity());
    CHECK(run_variant<bf16_float_bins>(op::asum, typed_data<__nv_bfloat16>(s).t, 0) ==
          std::numeric_limits<float>::infinity());
    s[4000] = std::numeric_limits<double>::infinity();
    CHECK(std::isnan(run_variant<bf16_float_bins>(op::sum, typed_data<__nv_bfloat16>(s).t, 0)));
  }

  TEST_CASE("exact variants: double in paired rows (the default)") {
    check_f64_layout<f64_paired_rows>();
  }
  TEST_CASE("exact variants: double in single rows") {
    check_f64_layout<f64_single_rows>();
  }
}

} // namespace
