// SPDX-License-Identifier: BSD-3-Clause
// Tests for tcr::DeviceReduce into tcr::certified<T> (compensated/certified.cuh): the bound
// covers the exact error (MPFR / Kulisch references) on ill-conditioned sums and dots to
// condition 1e32, subnormals, data near overflow, special values and n = 0; it is as tight as
// certified.cuh states (compensated: (1 + 2^-15)(u|s| + kS S) + floor; exact modes: (1 + 2^-21)
// times the actual error + floor); the value is the one the plain modes give; misuse is refused
// as for the plain calls, with nothing written. Instantiations kept few (nvcc time): Sum of f32,
// f16 and f64, Asum, Dot and Nrm2 of f32.
#include <doctest/doctest.h>

#include <algorithm>
#include <cfloat>
#include <cstring>
#include <limits>
#include <vector>
#include "compensated/certified_check.hpp"
#include "reduce/device_test_util.hpp"
#include "support/fake_address.hpp"

namespace {

using namespace tcr::test;
using tcr::Accuracy;
using tcr::certified;
using tcr::DeviceReduce;
using tcr::ReduceOptions;

constexpr ReduceOptions compensated{};
constexpr ReduceOptions fast{Accuracy::fast, tcr::Engine::automatic};
constexpr ReduceOptions rounded{Accuracy::correctly_rounded, tcr::Engine::automatic};
constexpr ReduceOptions reproducible{Accuracy::reproducible, tcr::Engine::automatic};

// The one operation O of this file's instantiations (call() of device_test_util.hpp would
// instantiate all four for every type).
template <op O, class T, class X>
cudaError_t call_one(void* temp, std::size_t& bytes, const X* x, certified<T>* out, std::int64_t n,
                     ReduceOptions opt) {
  if constexpr (O == op::sum)
    return DeviceReduce::Sum(temp, bytes, x, out, n, 0, opt);
  else if constexpr (O == op::asum)
    return DeviceReduce::Asum(temp, bytes, x, out, n, 0, opt);
  else if constexpr (O == op::dot)
    return DeviceReduce::Dot(temp, bytes, x, x + n, out, n, 0, opt); // y follows x
  else
    return DeviceReduce::Nrm2(temp, bytes, x, out, n, 0, opt);
}

// Runs O on x (Dot: x then y in one buffer) at an element offset of a NaN-padded buffer.
template <op O, class T, class X>
certified<T> run(const std::vector<X>& xy, std::int64_t n, ReduceOptions opt,
                 std::size_t offset = 0) {
  padded_device<X> d(xy, offset);
  std::size_t bytes = 0;
  const cudaError_t query =
      call_one<O, T>(nullptr, bytes, d.get(), static_cast<certified<T>*>(nullptr), n, opt);
  TCR_CHECK_CUDA(query);
  temp_storage temp(bytes);
  device_buffer<certified<T>> out(1);
  const cudaError_t err = call_one<O, T>(temp.get(), bytes, d.get(), out.get(), n, opt);
  TCR_CHECK_CUDA(err);
  TCR_CHECK_CUDA(cudaDeviceSynchronize());
  return out.download()[0];
}

// The plain compensated Sum of floats into float (the host case's size query instantiates it).
float run_plain_sum(const std::vector<float>& x, std::int64_t n, std::size_t offset) {
  padded_device<float> d(x, offset);
  std::size_t bytes = 0;
  TCR_CHECK_CUDA(DeviceReduce::Sum(nullptr, bytes, d.get(), static_cast<float*>(nullptr), n));
  temp_storage temp(bytes);
  device_buffer<float> out(1);
  TCR_CHECK_CUDA(DeviceReduce::Sum(temp.get(), bytes, d.get(), out.get(), n));
  TCR_CHECK_CUDA(cudaDeviceSynchronize());
  return out.download()[0];
}

std::vector<double> doubles(const std::vector<float>& v) {
  return {v.begin(), v.end()};
}

template <class X>
std::vector<X> concat(const std::vector<X>& a, const std::vector<X>& b) {
  std::vector<X> r(a);
  r.insert(r.end(), b.begin(), b.end());
  return r;
}

// Sum (or Asum) of x into certified<T>: the bound covers the error in every mode, is tight,
// and the value is the same in compensated and fast mode, and in both exact modes.
template <class T, class X>
void check_sum(const typed_data<X>& x, bool asum = false, std::size_t offset = 0) {
  const std::int64_t n = static_cast<std::int64_t>(x.t.size());
  INFO((asum ? "Asum<" : "Sum<"), type_name<X>(), " -> certified<", type_name<T>(), ">> n = ", n,
       ", offset ", offset);
  const mp s = fast_exact_sum(x.d, asum);
  const mp S = fast_exact_sum(x.d, true);
  const auto go = [&](ReduceOptions opt) {
    return asum ? run<op::asum, T>(x.t, n, opt, offset) : run<op::sum, T>(x.t, n, opt, offset);
  };
  const certified<T> c = go(compensated);
  INFO("compensated: value ", double(c.value), ", bound ", double(c.error_bound), ", exact ",
       s.to_double(), ", bound / error ", cert::overestimate(c.value, c.error_bound, s));
  CHECK(cert::covers(c.value, c.error_bound, s));
  if (std::isfinite(c.value)) // (an exact result beyond T's range: value and bound +inf)
    CHECK(cert::tight_compensated<T>(c.error_bound, s, S));
  const certified<T> f = go(fast);
  CHECK(std::memcmp(&f, &c, sizeof c) == 0);
  if constexpr (std::is_same_v<X, float> && std::is_same_v<T, float>) {
    if (!asum) { // the plain call's value, bit for bit (its kernels are instantiated anyway)
      const float plain = run_plain_sum(x.t, n, offset);
      CHECK(std::memcmp(&plain, &c.value, sizeof plain) == 0);
    }
  }
  const certified<T> e = go(rounded);
  INFO("exact: value ", double(e.value), ", bound ", double(e.error_bound));
  CHECK(cert::covers(e.value, e.error_bound, s));
  if (std::isfinite(e.value))
    CHECK(cert::tight_exact<T>(e.value, e.error_bound, s));
  CHECK((e.error_bound == 0) == mpfr_zero_p(cert::exact_error(e.value, s).get()));
  const certified<T> r = go(reproducible);
  CHECK(std::memcmp(&r, &e, sizeof e) == 0);
}

// Dot of float x, y into certified<float>, both paths.
void check_dot(const typed_data<float>& x, const typed_data<float>& y) {
  const std::int64_t n = static_cast<std::int64_t>(x.t.size());
  INFO("Dot<float> n = ", n);
  const mp s = fast_exact_dot(x.d, y.d);
  const mp S = fast_exact_dot(x.d, y.d, true);
  const std::vector<float> xy = concat(x.t, y.t);
  const certified<float> c = run<op::dot, float>(xy, n, compensated, n % 4);
  INFO("compensated: value ", c.value, ", bound ", c.error_bound, ", exact ", s.to_double(),
       ", bound / error ", cert::overestimate(c.value, c.error_bound, s));
  CHECK(cert::covers(c.value, c.error_bound, s));
  CHECK(cert::tight_compensated<float>(c.error_bound, s, S));
  const certified<float> e = run<op::dot, float>(xy, n, rounded);
  INFO("exact: value ", e.value, ", bound ", e.error_bound);
  CHECK(cert::covers(e.value, e.error_bound, s));
  CHECK(cert::tight_exact<float>(e.value, e.error_bound, s));
}

void check_nrm2(const typed_data<float>& x) {
  const std::int64_t n = static_cast<std::int64_t>(x.t.size());
  INFO("Nrm2<float> n = ", n);
  const mp ssq = fast_exact_dot(x.d, x.d);
  for (ReduceOptions opt : {compensated, rounded}) {
    const certified<float> c = run<op::nrm2, float>(x.t, n, opt, 1);
    INFO("accuracy ", int(opt.accuracy), ": value ", c.value, ", bound ", c.error_bound,
         ", relative error ", nrm2_rel_error(c.value, ssq));
    CHECK(cert::covers_norm(c.value, c.error_bound, ssq));
    // About u |value|: at most 2^-23 |value| + 2^-148.
    CHECK(c.error_bound <= std::ldexp(std::fabs(c.value), -23) + 0x1p-148f);
  }
}

std::vector<std::int64_t> sizes() {
  return {1, 3, 31, 32, 33, 1000, 4097, 100000, 1 << 20};
}

} // namespace

// Host cases: argument checks that return before any device work.
TEST_CASE("certified: bad input is refused as for the plain call, before touching the device") {
  const float* in = fake<const float>(0x10000);
  certified<float>* out = fake<certified<float>>(0x20000);
  std::size_t bytes = 0;
  REQUIRE(DeviceReduce::Sum(nullptr, bytes, in, out, 1000) == cudaSuccess);
  std::size_t plain = 0;
  REQUIRE(DeviceReduce::Sum(nullptr, plain, in, fake<float>(0x20000), 1000) == cudaSuccess);
  CHECK(bytes >= plain);
  void* temp = fake<void>(0x40000);
  std::size_t b = bytes, small = bytes - 1;
  CHECK(DeviceReduce::Sum(temp, b, static_cast<const float*>(nullptr), out, 1000) ==
        cudaErrorInvalidValue);
  CHECK(DeviceReduce::Sum(temp, b, in, static_cast<certified<float>*>(nullptr), 1000) ==
        cudaErrorInvalidValue);
  CHECK(DeviceReduce::Sum(temp, b, in, out, -1) == cudaErrorInvalidValue);
  CHECK(DeviceReduce::Sum(temp, small, in, out, 1000) == cudaErrorInvalidValue);
  CHECK(DeviceReduce::Sum(temp, b, fake<const float>(0x10002), out, 1000) == cudaErrorInvalidValue);
  CHECK(DeviceReduce::Sum(temp, b, in, fake<certified<float>>(0x20002), 1000) ==
        cudaErrorInvalidValue); // misaligned output
  std::size_t bd = 0;
  REQUIRE(DeviceReduce::Dot(nullptr, bd, in, in, out, 1000) == cudaSuccess);
  CHECK(DeviceReduce::Dot(temp, bd, in, static_cast<const float*>(nullptr), out, 1000) ==
        cudaErrorInvalidValue);
  const ReduceOptions tc{Accuracy::compensated, tcr::Engine::tensor_core};
  CHECK(DeviceReduce::Sum(temp, b, in, out, 1000, 0, tc) == cudaErrorNotSupported);
  const ReduceOptions tc_exact{Accuracy::correctly_rounded, tcr::Engine::tensor_core};
  std::size_t be = 0;
  REQUIRE(DeviceReduce::Sum(nullptr, be, in, out, 1000, 0, tc_exact) == cudaSuccess);
  CHECK(DeviceReduce::Sum(temp, be, in, out, 1000, 0, tc_exact) == cudaErrorNotSupported);
}

TEST_SUITE("gpu") {

  TEST_CASE("certified Sum, Asum: bound covers the error, every mode, sizes and offsets") {
    for (std::int64_t n : sizes()) {
      INFO("seed ", 100 + n);
      const auto x = typed_random<float>(static_cast<std::size_t>(n), 100 + n, -20, 20);
      check_sum<float>(x, false, n % 3);
      check_sum<float>(x, true, 1);
      const auto h = typed_random<__half>(static_cast<std::size_t>(n), 200 + n, -14, 10);
      check_sum<float>(h, false, n % 5);
      const auto d = typed_random<double>(static_cast<std::size_t>(n), 300 + n, -200, 200);
      check_sum<double>(d, false, n % 2);
    }
  }

  TEST_CASE("certified: ill-conditioned sums and dots to condition 1e32") {
    for (double cond : {1e0, 1e4, 1e8, 1e16, 1e24, 1e32}) {
      for (std::int64_t n : {100, 10000, 1000000}) {
        const std::uint64_t seed =
            static_cast<std::uint64_t>(n) + static_cast<std::uint64_t>(std::log10(cond));
        INFO("cond ", cond, ", n ", n, ", seed ", seed);
        check_sum<float>(typed_data<float>(doubles(gen_sum<float>(n, cond, seed))));
        check_sum<double>(typed_data<double>(gen_sum<double>(n, cond, seed + 1)));
        const auto [x, y] = gen_dot<float>(n, cond, seed + 2);
        check_dot(typed_data<float>(doubles(x)), typed_data<float>(doubles(y)));
        // f16: cancelling data in half (the float generator's cancellation would not survive
        // rounding to half): pairs +-v plus small values.
        std::vector<double> hv = gen_cancelling_pairs<double>(n, seed + 3, -14, 14);
        check_sum<float>(typed_data<__half>(hv));
      }
    }
  }

  TEST_CASE("certified: subnormals, near overflow, special values, n = 0 and 1") {
    INFO("seed 41");
    rng64 rng(41);
    std::vector<double> sub(100000);
    for (auto& v : sub)
      v = std::ldexp(double(rng.integer(1, (1 << 23) - 1)), -149) * (rng.coin() ? 1 : -1);
    check_sum<float>(typed_data<float>(sub));
    check_sum<float>(typed_data<float>(sub), true);
    std::vector<double> tiny(100000);
    for (auto& v : tiny)
      v = std::ldexp(1 + rng.uniform(), -100 - int(rng.integer(0, 40))) * (rng.coin() ? 1 : -1);
    check_dot(typed_data<float>(tiny), typed_data<float>(tiny)); // products below 2^-200
    check_nrm2(typed_data<float>(sub));
    std::vector<double> dsub(50000);
    for (auto& v : dsub)
      v = std::ldexp(double(rng.integer(1, std::int64_t(1) << 52)), -1074) * (rng.coin() ? 1 : -1);
    check_sum<double>(typed_data<double>(dsub));
    // Near overflow: +FLT_MAX and -(FLT_MAX - k ulp) pairs, the positive ones first (a plain
    // sum overflows), a small remainder; the exact sum finite.
    std::vector<double> big(20001);
    for (std::size_t i = 0; i + 1 < big.size(); i += 2) {
      big[i] = FLT_MAX;
      big[i + 1] = -(double(FLT_MAX) - std::ldexp(double(rng.integer(0, 100)), 104));
    }
    std::sort(big.begin(), big.end() - 1, [](double a, double b) { return a > b; });
    big.back() = 1.5;
    check_sum<float>(typed_data<float>(big));
    check_nrm2(typed_data<float>(big));
    std::vector<double> dbig(20000);
    for (auto& v : dbig)
      v = std::ldexp(1 + rng.uniform(), 1000 - int(rng.integer(0, 40))) * (rng.coin() ? 1 : -1);
    check_sum<double>(typed_data<double>(dbig));
    // A result beyond float's range: value +inf, bound +inf.
    const std::vector<float> over(100, FLT_MAX);
    for (ReduceOptions opt : {compensated, rounded}) {
      const auto r = run<op::sum, float>(over, 100, opt);
      CHECK(std::isinf(r.value));
      CHECK(std::isinf(r.error_bound));
    }
    // NaN and Inf inputs.
    std::vector<float> special(1000, 1.0f);
    special[500] = std::numeric_limits<float>::infinity();
    for (ReduceOptions opt : {compensated, rounded}) {
      const auto r = run<op::sum, float>(special, 1000, opt);
      CHECK(r.value == std::numeric_limits<float>::infinity());
      CHECK(r.error_bound == std::numeric_limits<float>::infinity());
    }
    special[700] = std::numeric_limits<float>::quiet_NaN();
    for (ReduceOptions opt : {compensated, rounded}) {
      const auto r = run<op::sum, float>(special, 1000, opt);
      CHECK(std::isnan(r.value));
      CHECK(std::isnan(r.error_bound));
      const auto d = run<op::dot, float>(concat(special, special), 1000, opt);
      CHECK(std::isnan(d.value));
      CHECK(std::isnan(d.error_bound));
    }
    // n = 0: {+0, 0}; n = 1: the value itself, bound 0 in the exact modes.
    const std::vector<float> one = {0.1f};
    for (ReduceOptions opt : {compensated, fast, rounded, reproducible}) {
      const auto z = run<op::sum, float>(one, 0, opt);
      CHECK(z.value == 0.0f);
      CHECK(!std::signbit(z.value));
      CHECK(z.error_bound == 0.0f);
      const auto zd = run<op::dot, float>(one, 0, opt);
      CHECK(zd.value == 0.0f);
      CHECK(zd.error_bound == 0.0f);
      const auto zn = run<op::nrm2, float>(one, 0, opt);
      CHECK(zn.value == 0.0f);
      CHECK(zn.error_bound == 0.0f);
      const auto o = run<op::sum, float>(one, 1, opt);
      CHECK(o.value == 0.1f);
      CHECK(o.error_bound <= std::ldexp(0.1f, -23));
      if (opt.accuracy == Accuracy::correctly_rounded)
        CHECK(o.error_bound == 0.0f);
    }
  }

  TEST_CASE("certified Nrm2 and Dot: random data, sizes") {
    for (std::int64_t n : sizes()) {
      INFO("seed ", 400 + n);
      const auto x = typed_random<float>(static_cast<std::size_t>(n), 400 + n, -60, 60);
      check_nrm2(x);
      const auto y = typed_random<float>(static_cast<std::size_t>(n), 500 + n, -30, 30);
      check_dot(x, y);
    }
  }

  TEST_CASE("certified: nothing written on failure; single-call form") {
    const std::vector<float> x(5000, 0.25f);
    padded_device<float> d(x, 0);
    device_buffer<certified<float>> out(1);
    const certified<float> sentinel{-7.0f, -7.0f};
    out.upload({sentinel});
    std::size_t bytes = 0;
    REQUIRE(DeviceReduce::Sum(nullptr, bytes, d.get(), out.get(), 5000) == cudaSuccess);
    temp_storage temp(bytes);
    std::size_t small = bytes - 1;
    CHECK(DeviceReduce::Sum(temp.get(), small, d.get(), out.get(), 5000) == cudaErrorInvalidValue);
    const ReduceOptions tc{Accuracy::compensated, tcr::Engine::tensor_core};
    CHECK(DeviceReduce::Sum(temp.get(), bytes, d.get(), out.get(), 5000, 0, tc) ==
          cudaErrorNotSupported);
    TCR_CHECK_CUDA(cudaDeviceSynchronize());
    const certified<float> after = out.download()[0];
    CHECK(after.value == -7.0f);
    CHECK(after.error_bound == -7.0f);
    TCR_CHECK_CUDA(DeviceReduce::Sum(d.get(), out.get(), 5000));
    TCR_CHECK_CUDA(cudaDeviceSynchronize());
    const certified<float> r = out.download()[0];
    CHECK(r.value == 1250.0f);
    CHECK(r.error_bound <= 1250.0f * 0x1p-23f);
  }
}
