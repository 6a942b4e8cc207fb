// SPDX-License-Identifier: BSD-3-Clause
// tcr::DeviceReduce beyond raw pointers of floating-point data: iterator inputs (compensated
// where the value type is floating-point), half and bfloat16 results rounded once, and integer
// inputs summed exactly.
#include <doctest/doctest.h>

#include <thrust/device_ptr.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>
#include "reduce/device_test_util.hpp"

namespace {

using namespace tcr::test;
using tcr::DeviceReduce;

struct identity_f {
  __host__ __device__ float operator()(float x) const { return x; }
};
struct negate_d {
  __host__ __device__ double operator()(double x) const { return -x; }
};
struct to_float {
  __host__ __device__ float operator()(int i) const { return static_cast<float>(i) * 0.5f; }
};

constexpr std::int64_t path_sizes[] = {1, 33, 4097, 20011, 70001};
constexpr std::int64_t large_sizes[] = {(std::int64_t(1) << 20) + 5};

// The exact sum of 128-bit integers on the host.
using i128 = __int128;

template <class T>
std::vector<T> random_integers(std::size_t n, std::uint64_t seed) {
  rng64 rng(seed);
  std::vector<T> x(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t bits = rng.next();
    if (i % 7 == 0) // extremes: the type's least and greatest values
      bits = i % 14 == 0 ? 0 : ~std::uint64_t(0);
    T v;
    std::memcpy(&v, &bits, sizeof v);
    if (i % 7 == 0 && std::is_signed_v<T>)
      v = i % 14 == 0 ? std::numeric_limits<T>::min() : std::numeric_limits<T>::max();
    x[i] = v;
  }
  return x;
}

template <class T>
i128 exact_sum(const std::vector<T>& x, bool absolute) {
  i128 s = 0;
  for (T v : x) {
    const i128 w = static_cast<i128>(v);
    s += absolute && w < 0 ? -w : w;
  }
  return s;
}

// Sum and Asum of integers of type T: exact into int64 (and the 64-bit wrap), the 32-bit wrap,
// double (correctly rounded), and the df32 / dd pairs.
template <class T, std::size_t K = 5>
void check_integer_sums(std::uint64_t seed, const std::int64_t (&sizes)[K] = path_sizes) {
  for (std::int64_t n : sizes) {
    for (bool absolute : {false, true}) {
      INFO("integer ", sizeof(T) * 8, "-bit ", std::is_signed_v<T> ? "signed" : "unsigned",
           " n = ", n, absolute ? " Asum" : " Sum");
      const std::vector<T> x = random_integers<T>(static_cast<std::size_t>(n), seed++);
      device_buffer<T> d(x);
      const i128 s = exact_sum(x, absolute);
      const auto call = [&](auto* out_type_tag) {
        using Out = std::remove_pointer_t<decltype(out_type_tag)>;
        return run_two_phase<Out>([&](void* t, std::size_t& b, Out* o) {
          return absolute ? DeviceReduce::Asum(t, b, d.get(), o, n)
                          : DeviceReduce::Sum(t, b, d.get(), o, n);
        });
      };
      CHECK(call(static_cast<std::int64_t*>(nullptr)) == static_cast<std::int64_t>(s));
      CHECK(call(static_cast<std::uint64_t*>(nullptr)) == static_cast<std::uint64_t>(s));
      CHECK(call(static_cast<std::int32_t*>(nullptr)) ==
            static_cast<std::int32_t>(static_cast<std::uint32_t>(s)));
      CHECK(call(static_cast<double*>(nullptr)) == static_cast<double>(s)); // libgcc: one rounding
      CHECK(call(static_cast<float*>(nullptr)) == static_cast<float>(s));
      const tcr::dd p = call(static_cast<tcr::dd*>(nullptr));
      CHECK(p.hi == static_cast<double>(s));
      CHECK(p.lo == static_cast<double>(s - static_cast<i128>(p.hi)));
    }
  }
}

} // namespace

TEST_SUITE("gpu") {
  TEST_CASE("iterator inputs: compensated Sum, Asum, Dot, Nrm2 through transform iterators") {
    std::uint64_t seed = 4100;
    for (std::int64_t n : path_sizes) {
      INFO("n = ", n);
      const typed_data<float> x = typed_random<float>(static_cast<std::size_t>(n), seed++, -30, 30);
      const typed_data<double> y =
          typed_random<double>(static_cast<std::size_t>(n), seed++, -30, 30);
      device_buffer<float> dx(x.t);
      device_buffer<double> dy(y.t);
      const auto tx = thrust::make_transform_iterator(dx.get(), identity_f{});
      const auto ty = thrust::make_transform_iterator(dy.get(), negate_d{});
      std::vector<double> ny(y.d);
      for (auto& v : ny)
        v = -v;
      const float sum = run_two_phase<float>(
          [&](void* t, std::size_t& b, float* o) { return DeviceReduce::Sum(t, b, tx, o, n); });
      check_contract<float>(op::sum, sum, x.d, x.d, true);
      const float asum = run_two_phase<float>(
          [&](void* t, std::size_t& b, float* o) { return DeviceReduce::Asum(t, b, tx, o, n); });
      check_contract<float>(op::asum, asum, x.d, x.d, true);
      const double dot = run_two_phase<double>([&](void* t, std::size_t& b, double* o) {
        return DeviceReduce::Dot(t, b, tx, ty, o, n);
      });
      check_contract<double>(op::dot, dot, x.d, ny, false);
      const double nrm = run_two_phase<double>(
          [&](void* t, std::size_t& b, double* o) { return DeviceReduce::Nrm2(t, b, ty, o, n); });
      check_contract<double>(op::nrm2, nrm, ny, ny, false);
      // thrust::device_ptr is read through its raw pointer: the pointer path's bits.
      const double dot_ptr = run_two_phase<double>([&](void* t, std::size_t& b, double* o) {
        return DeviceReduce::Dot(t, b, dx.get(), dy.get(), o, n);
      });
      const double dot_dev = run_two_phase<double>([&](void* t, std::size_t& b, double* o) {
        return DeviceReduce::Dot(t, b, thrust::device_pointer_cast(dx.get()),
                                 thrust::device_pointer_cast(dy.get()), o, n);
      });
      CHECK(std::memcmp(&dot_ptr, &dot_dev, sizeof dot_ptr) == 0);
      // A counting iterator through a transform: i / 2 for i in [-n/2, n/2), exact in float.
      std::vector<double> c(static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i)
        c[i] = static_cast<double>(i - n / 2) * 0.5;
      const auto tc =
          thrust::make_transform_iterator(thrust::counting_iterator<int>(int(-n / 2)), to_float{});
      const float csum = run_two_phase<float>(
          [&](void* t, std::size_t& b, float* o) { return DeviceReduce::Sum(t, b, tc, o, n); });
      check_contract<float>(op::sum, csum, c, c, true);
    }
  }

  TEST_CASE("half and bfloat16 results are rounded once from the accurate sum") {
    // 1 + 2^-11 + 2^-30: a float result is 1 + 2^-11 (a half midpoint), which rounds to 1 in
    // half; the accurate sum is above the midpoint and rounds up to 1 + 2^-10.
    device_buffer<float> mid(std::vector<float>{1.0f, 0x1p-11f, 0x1p-30f});
    const __half h = run_two_phase<__half>([&](void* t, std::size_t& b, __half* o) {
      return DeviceReduce::Sum(t, b, mid.get(), o, 3);
    });
    CHECK(__half2float(h) == 1.0f + 0x1p-10f);
    device_buffer<double> midd(std::vector<double>{1.0, 0x1p-8, -0x1p-60});
    const __nv_bfloat16 bf =
        run_two_phase<__nv_bfloat16>([&](void* t, std::size_t& b, __nv_bfloat16* o) {
          return DeviceReduce::Sum(t, b, midd.get(), o, 3);
        });
    CHECK(__bfloat162float(bf) == 1.0f); // below the midpoint 1 + 2^-8: down
    // Random data: |res - s| <= u|s| + 2^-40 S (+ half the subnormal spacing).
    std::uint64_t seed = 4200;
    for (std::int64_t n : path_sizes) {
      INFO("n = ", n);
      const typed_data<__half> x = typed_random<__half>(static_cast<std::size_t>(n), seed++, -6, 6);
      device_buffer<__half> dx(x.t);
      const __half s = run_two_phase<__half>([&](void* t, std::size_t& b, __half* o) {
        return DeviceReduce::Sum(t, b, dx.get(), o, n);
      });
      const mp exact = fast_exact_sum(x.d);
      const mp S = fast_exact_sum(x.d, true);
      CHECK(within_bound(__half2float(s), exact, S, 0x1p-11, 0x1p-40, 0x1p-25));
      const __nv_bfloat16 d =
          run_two_phase<__nv_bfloat16>([&](void* t, std::size_t& b, __nv_bfloat16* o) {
            return DeviceReduce::Dot(t, b, dx.get(), dx.get(), o, n);
          });
      const mp dexact = fast_exact_dot(x.d, x.d);
      CHECK(within_bound(__bfloat162float(d), dexact, dexact, 0x1p-8, 0x1p-40, 0x1p-134));
      const __half nr = run_two_phase<__half>([&](void* t, std::size_t& b, __half* o) {
        return DeviceReduce::Nrm2(t, b, dx.get(), o, n);
      });
      CHECK(nrm2_within(__half2float(nr), dexact, 0x1p-11 + 0x1p-40, 0x1p-25));
    }
    // A sum of -0 terms is -0 in half too.
    device_buffer<float> negz(std::vector<float>(100, -0.0f));
    const __half z = run_two_phase<__half>([&](void* t, std::size_t& b, __half* o) {
      return DeviceReduce::Sum(t, b, negz.get(), o, 100);
    });
    CHECK(__half_as_ushort(z) == 0x8000);
  }

  TEST_CASE("integer inputs: exact sums, converted once") {
    check_integer_sums<std::int8_t>(4300);
    check_integer_sums<std::uint16_t>(4320);
    check_integer_sums<std::int32_t>(4340);
    check_integer_sums<std::int64_t>(4360);
    check_integer_sums<std::uint64_t>(4380);
  }

  TEST_CASE("integer inputs: exact sums, 2^20 elements (large)") {
    check_integer_sums<std::int8_t>(4500, large_sizes);
    check_integer_sums<std::int32_t>(4540, large_sizes);
    check_integer_sums<std::uint64_t>(4580, large_sizes);
  }

  TEST_CASE("integer Dot and a half result of an integer sum") {
    const std::int64_t n = 100003;
    const std::vector<std::int32_t> x = random_integers<std::int32_t>(n, 4400);
    const std::vector<std::int16_t> y = random_integers<std::int16_t>(n, 4401);
    device_buffer<std::int32_t> dx(x);
    device_buffer<std::int16_t> dy(y);
    i128 s = 0;
    for (std::int64_t i = 0; i < n; ++i)
      s += static_cast<i128>(x[i]) * y[i];
    const double dot = run_two_phase<double>([&](void* t, std::size_t& b, double* o) {
      return DeviceReduce::Dot(t, b, dx.get(), dy.get(), o, n);
    });
    CHECK(dot == static_cast<double>(s));
    const std::int64_t idot =
        run_two_phase<std::int64_t>([&](void* t, std::size_t& b, std::int64_t* o) {
          return DeviceReduce::Dot(t, b, dx.get(), dy.get(), o, n);
        });
    CHECK(idot == static_cast<std::int64_t>(s));
    // 2048 + 1: half's spacing at 2048 is 2, so 2049 is a midpoint; ties to even give 2048.
    device_buffer<int> small(std::vector<int>{2048, 1});
    const __half h = run_two_phase<__half>([&](void* t, std::size_t& b, __half* o) {
      return DeviceReduce::Sum(t, b, small.get(), o, 2);
    });
    CHECK(__half2float(h) == 2048.0f);
    device_buffer<int> big(std::vector<int>{65504, 16});
    const __half inf = run_two_phase<__half>([&](void* t, std::size_t& b, __half* o) {
      return DeviceReduce::Sum(t, b, big.get(), o, 2);
    });
    CHECK(std::isinf(__half2float(inf))); // 65520 and above overflow
  }
}

TEST_CASE("integer inputs: Nrm2 and a wider Dot are compile errors (test/headers); engines") {
  // A forced tensor-core engine has no integer path.
  std::size_t bytes = 0;
  const tcr::ReduceOptions tc{tcr::Accuracy::compensated, tcr::Engine::tensor_core};
  CHECK(DeviceReduce::Sum(nullptr, bytes, static_cast<const int*>(nullptr),
                          static_cast<long long*>(nullptr), 10, 0, tc) == cudaErrorNotSupported);
  CHECK(DeviceReduce::Sum(nullptr, bytes, static_cast<const int*>(nullptr),
                          static_cast<long long*>(nullptr), 10) == cudaSuccess);
}
