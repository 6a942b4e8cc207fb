// SPDX-License-Identifier: BSD-3-Clause
// Tests for compensated/eft.cuh on the device (gpu suite).
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>
#include <tcr/compensated/eft.cuh>
#include "support/cuda_check.hpp"
#include "support/mpfr_ref.hpp"

namespace {

template <class T>
__global__ void eft_kernel(const T* a, const T* b, T* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const auto [s, se] = tcr::two_sum(a[i], b[i]);
  const auto [p, pe] = tcr::two_prod(a[i], b[i]);
  out[4 * i + 0] = s;
  out[4 * i + 1] = se;
  out[4 * i + 2] = p;
  out[4 * i + 3] = pe;
}

template <class T>
void check_device_eft(std::uint64_t seed) {
  INFO("seed = ", seed);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<T> mant(1, 2);
  std::uniform_int_distribution<int> ex(-30, 30); // two_prod's error stays normal
  const int n = 1 << 16;
  std::vector<T> a(n), b(n);
  for (int i = 0; i < n; ++i) {
    a[i] = std::ldexp(mant(rng), ex(rng)) * (i % 3 ? 1 : -1);
    b[i] = std::ldexp(mant(rng), ex(rng)) * (i % 5 ? 1 : -1);
  }
  tcr::test::device_buffer<T> da(a), db(b), dout(4 * n);
  eft_kernel<<<(n + 255) / 256, 256>>>(da.get(), db.get(), dout.get(), n);
  TCR_CHECK_CUDA(cudaGetLastError());
  TCR_CHECK_CUDA(cudaDeviceSynchronize());
  const auto out = dout.download();
  for (int i = 0; i < n; ++i) {
    auto sum_lhs = tcr::test::exact_sum({double(out[4 * i]), double(out[4 * i + 1])});
    auto sum_rhs = tcr::test::exact_sum({double(a[i]), double(b[i])});
    REQUIRE(mpfr_equal_p(sum_lhs.get(), sum_rhs.get()));
    auto prod_lhs = tcr::test::exact_sum({double(out[4 * i + 2]), double(out[4 * i + 3])});
    auto prod_rhs = tcr::test::exact_dot({double(a[i])}, {double(b[i])});
    REQUIRE(mpfr_equal_p(prod_lhs.get(), prod_rhs.get()));
  }
}

} // namespace

TEST_SUITE("gpu") {
  TEST_CASE("device two_sum and two_prod are error-free (float)") {
    check_device_eft<float>(11);
  }
  TEST_CASE("device two_sum and two_prod are error-free (double)") {
    check_device_eft<double>(12);
  }
}
