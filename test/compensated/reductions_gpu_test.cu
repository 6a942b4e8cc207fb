// SPDX-License-Identifier: BSD-3-Clause
// Tests for compensated/reductions.cuh and compensated/narrow.cuh on the device (gpu suite): the
// half and bfloat16 results and integer_sum_accumulator give the host's bits (the rounding is
// the same integer code; this checks that the device compiles it to the same thing).
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <vector>
#include <tcr/compensated/reductions.cuh>
#include "support/cuda_check.hpp"
#include "support/gen.hpp"

namespace {

struct narrow_out {
  __half h, hp;        // round_to<__half>(hi), round_to<__half>(hi, lo)
  __nv_bfloat16 b, bp; // the same to bfloat16
  __half sum_f, sum_d; // sum_accumulator<float / double>::finish<__half> of {hi, lo, 0, 0}
  __nv_bfloat16 dot_d; // dot_accumulator<double>::finish<__nv_bfloat16> of {hi, lo} . {1, 1}
};

TCR_HD narrow_out narrow_cases(double hi, double lo) {
  narrow_out o;
  o.h = tcr::round_to<__half>(hi);
  o.hp = tcr::round_to<__half>(hi, lo);
  o.b = tcr::round_to<__nv_bfloat16>(hi);
  o.bp = tcr::round_to<__nv_bfloat16>(hi, lo);
  tcr::sum_accumulator<float> sf;
  const float xf[4] = {float(hi), float(lo), 0.0f, 0.0f};
  sf.add(xf);
  o.sum_f = sf.finish<__half>(sf.partial());
  tcr::sum_accumulator<double> sd;
  const double xd[4] = {hi, lo, 0.0, 0.0};
  sd.add(xd);
  o.sum_d = sd.finish<__half>(sd.partial());
  tcr::dot_accumulator<double> dd;
  const double x2[2] = {hi, lo}, ones[2] = {1.0, 1.0};
  dd.add(x2, ones);
  o.dot_d = dd.finish<__nv_bfloat16>(dd.partial());
  return o;
}

struct integer_out {
  tcr::int128 sum, asum, dot;
  std::int32_t i32;
  float f;
  double d;
  __half h;
  __nv_bfloat16 b;
  tcr::dd pair;
};

TCR_HD integer_out integer_cases(const std::int64_t (&x)[8], const std::int32_t (&y)[8],
                                 const std::uint32_t (&z)[8]) {
  integer_out o;
  tcr::integer_sum_accumulator<> s, dt;
  tcr::integer_sum_accumulator<true> a;
  s.add(x);
  a.add(x);
  dt.add(y, z);
  o.sum = s.partial();
  o.asum = a.partial();
  o.dot = dt.partial();
  const tcr::int128 all = s.merge(s.merge(o.sum, o.asum), o.dot);
  o.i32 = s.finish<std::int32_t>(all);
  o.f = s.finish<float>(all);
  o.d = s.finish<double>(all);
  o.h = s.finish<__half>(o.dot);
  o.b = s.finish<__nv_bfloat16>(all);
  o.pair = s.finish<tcr::dd>(all);
  return o;
}

__global__ void narrow_kernel(const double* hi, const double* lo, narrow_out* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = narrow_cases(hi[i], lo[i]);
}

struct integer_in {
  std::int64_t x[8];
  std::int32_t y[8];
  std::uint32_t z[8];
};

__global__ void integer_kernel(const integer_in* in, integer_out* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = integer_cases(in[i].x, in[i].y, in[i].z);
}

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}
// Field by field (integer_out has padding).
bool same(const narrow_out& a, const narrow_out& b) {
  return same_bits(a.h, b.h) && same_bits(a.hp, b.hp) && same_bits(a.b, b.b) &&
         same_bits(a.bp, b.bp) && same_bits(a.sum_f, b.sum_f) && same_bits(a.sum_d, b.sum_d) &&
         same_bits(a.dot_d, b.dot_d);
}
bool same(const integer_out& a, const integer_out& b) {
  return a.sum == b.sum && a.asum == b.asum && a.dot == b.dot && a.i32 == b.i32 &&
         same_bits(a.f, b.f) && same_bits(a.d, b.d) && same_bits(a.h, b.h) && same_bits(a.b, b.b) &&
         same_bits(a.pair.hi, b.pair.hi) && same_bits(a.pair.lo, b.pair.lo);
}

} // namespace

TEST_SUITE("gpu") {
  TEST_CASE("device half / bfloat16 results and integer sums match the host bit for bit") {
    const std::uint64_t seed = 0x9d1000;
    INFO("seed = ", seed);
    tcr::test::rng64 rng(seed);
    const int n = 1 << 14;
    std::vector<double> hi(n), lo(n);
    std::vector<integer_in> in(n);
    for (int i = 0; i < n; ++i) {
      // Half and bfloat16 midpoints (12 and 9 significant bits) and random values, low parts of
      // both signs.
      const int bits = i % 3 == 0 ? 12 : i % 3 == 1 ? 9 : 53;
      const double m = double((rng.next() >> (64 - bits)) | 1 | (std::uint64_t(1) << (bits - 1)));
      hi[i] = std::ldexp(m, int(rng.integer(-160, 140)) - bits) * (rng.coin() ? 1 : -1);
      lo[i] =
          rng.coin() ? 0.0 : std::ldexp(hi[i], -int(rng.integer(54, 90))) * (rng.coin() ? 1 : -1);
      for (int k = 0; k < 8; ++k) {
        const std::uint64_t r = rng.next();
        std::memcpy(&in[i].x[k], &r, 8);
        in[i].y[k] = std::int32_t(rng.next() >> 32);
        in[i].z[k] = std::uint32_t(rng.next() >> 32);
      }
      in[i].x[i % 8] = INT64_MIN;
    }
    tcr::test::device_buffer<double> dhi(hi), dlo(lo);
    tcr::test::device_buffer<narrow_out> dn(n);
    // Every downloaded byte initialised (compute-sanitizer initcheck): integer_out has padding
    // that the kernel never writes.
    TCR_CHECK_CUDA(cudaMemset(dn.get(), 0, n * sizeof(narrow_out)));
    narrow_kernel<<<(n + 255) / 256, 256>>>(dhi.get(), dlo.get(), dn.get(), n);
    tcr::test::device_buffer<integer_in> din(in);
    tcr::test::device_buffer<integer_out> di(n);
    TCR_CHECK_CUDA(cudaMemset(di.get(), 0, n * sizeof(integer_out)));
    integer_kernel<<<(n + 255) / 256, 256>>>(din.get(), di.get(), n);
    TCR_CHECK_CUDA(cudaGetLastError());
    TCR_CHECK_CUDA(cudaDeviceSynchronize());
    const auto gn = dn.download();
    const auto gi = di.download();
    int bad = 0;
    for (int i = 0; i < n; ++i) {
      bad += !same(gn[i], narrow_cases(hi[i], lo[i]));
      bad += !same(gi[i], integer_cases(in[i].x, in[i].y, in[i].z));
    }
    CHECK(bad == 0);
  }
}
