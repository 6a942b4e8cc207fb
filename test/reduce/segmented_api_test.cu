// SPDX-License-Identifier: BSD-3-Clause
// Tests for tcr::DeviceSegmentedReduce's calling convention and its exact operations: size
// queries, bad input, overload resolution (offsets of any integer type, the fixed-size form),
// empty segments, end < begin, integer sums, Reduce, Min / Max / ArgMin / ArgMax, iterators.
// Host cases need no GPU (the checks run before any CUDA call); the rest are in the gpu suite.
#include <doctest/doctest.h>

#include <cub/util_type.cuh>
#include <cuda/std/functional>
#include <cuda/std/utility>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <climits>
#include <cstdint>
#include <limits>
#include "reduce/segmented_test_util.hpp"
#include "support/fake_address.hpp"

namespace {

// Temporary storage for any call of these tests (the size query answers at most about 1.2 MB).
constexpr std::size_t enough_temp = std::size_t(1) << 22;

using namespace tcr::test;
using DSR = tcr::DeviceSegmentedReduce;

struct max_op {
  __host__ __device__ int operator()(int a, int b) const { return a > b ? a : b; }
};

struct half_of {
  __host__ __device__ double operator()(int v) const { return 0.5 * v; }
};

struct times {
  long long k;
  __host__ __device__ long long operator()(int i) const { return k * i; }
};

// The host's exact sum of integers.
template <class T>
__int128 exact_int_sum(const std::vector<T>& v, std::int64_t b, std::int64_t e, bool absolute) {
  __int128 s = 0;
  for (std::int64_t i = b; i < e; ++i) {
    const __int128 x = static_cast<__int128>(v[static_cast<std::size_t>(i)]);
    s += absolute && x < 0 ? -x : x;
  }
  return s;
}

} // namespace

TEST_CASE("the size query: 1 where the host knows no segment exceeds one chunk, else more") {
  // Offsets (lengths unknown on the host) and fixed sizes above one chunk (65536 floats, 16384
  // elements read one at a time) need the storage through which the grid shares a segment's
  // chunks; shorter fixed sizes need none (1 byte, as CUB).
  const float* in = fake<const float>(0x10000);
  float* out = fake<float>(0x20000);
  const int* off = fake<const int>(0x30000);
  std::size_t b = 0;
  CHECK(DSR::Sum(nullptr, b, in, out, 10, off, off + 1) == cudaSuccess);
  const std::size_t sharing = b;
  CHECK(sharing > 1);
  b = 0;
  CHECK(DSR::Sum(nullptr, b, in, out, -1, 64) == cudaSuccess);
  CHECK(b == 1);
  b = 0;
  CHECK(DSR::Sum(nullptr, b, in, out, 3, 65536) == cudaSuccess);
  CHECK(b == 1);
  b = 0;
  CHECK(DSR::Sum(nullptr, b, in, out, 3, 65537) == cudaSuccess);
  CHECK(b == sharing);
  b = 0;
  const auto halves = thrust::make_transform_iterator(thrust::counting_iterator<int>(0), half_of{});
  CHECK(DSR::Sum(nullptr, b, halves, out, 3, 16384) == cudaSuccess);
  CHECK(b == 1);
  b = 0;
  CHECK(DSR::Sum(nullptr, b, halves, out, 3, 16385) == cudaSuccess);
  CHECK(b > 1);
  b = 0;
  CHECK(DSR::Dot(nullptr, b, in, in, static_cast<double*>(nullptr), 1 << 20, off, off + 1) ==
        cudaSuccess);
  CHECK(b > 1);
  b = 0;
  CHECK(DSR::Nrm2(nullptr, b, in, out, 3, 1 << 30) == cudaSuccess);
  CHECK(b > 1);
  b = 0;
  CHECK(DSR::ArgMin(nullptr, b, in, static_cast<tcr::KeyValuePair<int, float>*>(nullptr), 3, off,
                    off + 1) == cudaSuccess);
  CHECK(b > 1);
  CHECK(b <= enough_temp);
  b = 0;
  CHECK(DSR::Sum(nullptr, b, fake<const double>(0x10000), fake<tcr::dd>(0x20000), 3, off,
                 off + 1) == cudaSuccess); // the widest partial
  CHECK(b <= enough_temp);
  b = 0;
  CHECK(DSR::Reduce(nullptr, b, fake<const int>(0x10000), static_cast<int*>(nullptr), 5, 8,
                    max_op{}, INT_MIN) == cudaSuccess);
  CHECK(b == 1);
}

TEST_CASE("bad input gives cudaErrorInvalidValue before touching the device") {
  const float* in = fake<const float>(0x10000);
  float* out = fake<float>(0x20000);
  const std::int64_t* off = fake<const std::int64_t>(0x30000);
  void* temp = fake<void>(0x40000);
  std::size_t b = std::size_t(1) << 30; // enough for any call: only the flaw under test is bad
  const auto bad = cudaErrorInvalidValue;
  // Too little temporary storage (the size query's answer less one byte).
  std::size_t need = 0;
  REQUIRE(DSR::Sum(nullptr, need, in, out, 4, off, off + 1) == cudaSuccess);
  std::size_t short_b = need - 1;
  CHECK(DSR::Sum(temp, short_b, in, out, 4, off, off + 1) == bad);
  REQUIRE(DSR::Dot(nullptr, need, in, in, out, 4, 70000) == cudaSuccess);
  short_b = need - 1;
  CHECK(DSR::Dot(temp, short_b, in, in, out, 4, 70000) == bad);
  // Counts and sizes.
  CHECK(DSR::Sum(temp, b, in, out, -1, off, off + 1) == bad);
  CHECK(DSR::Sum(temp, b, in, out, -1, 16) == bad);
  CHECK(DSR::Sum(temp, b, in, out, 4, -1) == bad);
  CHECK(DSR::Sum(temp, b, in, out, 0, -1) == bad);
  CHECK(DSR::Sum(temp, b, in, out, std::int64_t(1) << 62, 4) == bad); // 2^64 elements
  CHECK(DSR::Max(temp, b, in, out, std::int64_t(1) << 62, 1 << 30) == bad);
  // Null pointers with work to do.
  CHECK(DSR::Sum(temp, b, in, static_cast<float*>(nullptr), 4, off, off + 1) == bad);
  CHECK(DSR::Sum(temp, b, in, static_cast<float*>(nullptr), 4, 16) == bad);
  CHECK(DSR::Sum(temp, b, in, static_cast<float*>(nullptr), 4, 0) == bad);
  CHECK(DSR::Sum(temp, b, static_cast<const float*>(nullptr), out, 4, off, off + 1) == bad);
  CHECK(DSR::Sum(temp, b, static_cast<const float*>(nullptr), out, 4, 16) == bad);
  CHECK(DSR::Sum(temp, b, in, out, 4, static_cast<const std::int64_t*>(nullptr), off + 1) == bad);
  CHECK(DSR::Sum(temp, b, in, out, 4, off, static_cast<const std::int64_t*>(nullptr)) == bad);
  CHECK(DSR::Dot(temp, b, in, static_cast<const float*>(nullptr), out, 4, off, off + 1) == bad);
  CHECK(DSR::Dot(temp, b, in, static_cast<const float*>(nullptr), out, 4, 16) == bad);
  CHECK(DSR::Nrm2(temp, b, static_cast<const float*>(nullptr), out, 4, 16) == bad);
  CHECK(DSR::ArgMax(temp, b, in, static_cast<tcr::KeyValuePair<int, float>*>(nullptr), 4, off,
                    off + 1) == bad);
  CHECK(DSR::Min(temp, b, static_cast<const float*>(nullptr), out, 4, 16) == bad);
  CHECK(DSR::Reduce(temp, b, static_cast<const int*>(nullptr), fake<int>(0x20000), 4, off, off + 1,
                    max_op{}, INT_MIN) == bad);
  // Pointers not aligned to their element types.
  CHECK(DSR::Sum(temp, b, fake<const float>(0x10002), out, 4, off, off + 1) == bad);
  CHECK(DSR::Sum(temp, b, in, fake<float>(0x20001), 4, 16) == bad);
  CHECK(DSR::Sum(temp, b, in, out, 4, fake<const std::int64_t>(0x30004), off + 1) == bad);
  CHECK(DSR::Dot(temp, b, in, fake<const double>(0x50004), fake<double>(0x20000), 4, 16) == bad);
  CHECK(DSR::ArgMin(temp, b, fake<const double>(0x10004),
                    fake<tcr::KeyValuePair<int, double>>(0x20000), 4, 16) == bad);
}

TEST_CASE("no segments: success without a launch, whatever the pointers") {
  std::size_t b = 1;
  void* temp = fake<void>(0x40000);
  CHECK(DSR::Sum(temp, b, static_cast<const float*>(nullptr), static_cast<float*>(nullptr), 0,
                 static_cast<const int*>(nullptr),
                 static_cast<const int*>(nullptr)) == cudaSuccess);
  CHECK(DSR::Dot(temp, b, static_cast<const float*>(nullptr), static_cast<const float*>(nullptr),
                 static_cast<float*>(nullptr), 0, 16) == cudaSuccess);
  CHECK(DSR::ArgMin(temp, b, static_cast<const float*>(nullptr),
                    static_cast<tcr::KeyValuePair<int, float>*>(nullptr), 0, 0) == cudaSuccess);
}

TEST_CASE("the exact modes: Nrm2 into df32 / dd has no segmented path, cudaErrorNotSupported "
          "after the checks") {
  // (Sum, Asum, Dot and Nrm2 of every floating-point type have one: segmented_exact_test.cu,
  // segmented_exact_dot_test.cu and, for double operands, segmented_exact_f64_test.cu.)
  std::size_t b = std::size_t(1) << 30;
  void* temp = fake<void>(0x40000);
  const auto* x = fake<const double>(0x10000);
  const auto* xf = fake<const float>(0x10000);
  tcr::df32* out_df = fake<tcr::df32>(0x20000);
  tcr::dd* out_dd = fake<tcr::dd>(0x20000);
  for (tcr::Accuracy a : {tcr::Accuracy::reproducible, tcr::Accuracy::correctly_rounded}) {
    tcr::ReduceOptions o;
    o.accuracy = a;
    CHECK(DSR::Nrm2(temp, b, x, out_dd, 4, 16, 0, o) == cudaErrorNotSupported);
    CHECK(DSR::Nrm2(temp, b, xf, out_df, 4, 16, 0, o) == cudaErrorNotSupported);
    CHECK(DSR::Nrm2(temp, b, x, out_dd, -1, 16, 0, o) == cudaErrorInvalidValue); // checks first
    std::size_t q = 0;
    CHECK(DSR::Nrm2(nullptr, q, x, out_dd, 4, 16, 0, o) == cudaSuccess); // the size query answers
  }
}

TEST_CASE("Engine::tensor_core outside the row path: cudaErrorNotSupported") {
  // The row path takes fixed-size Sum / Asum of e4m3 (sizes a multiple of 32) and of __half in
  // Accuracy::fast (a multiple of 16), up to 4096, from 8-byte aligned inputs.
  std::size_t b = 1;
  tcr::ReduceOptions tc;
  tc.engine = tcr::Engine::tensor_core;
  tcr::ReduceOptions tc_fast = tc;
  tc_fast.accuracy = tcr::Accuracy::fast;
  void* temp = fake<void>(0x40000);
  const auto* h = fake<const __half>(0x10000);
  const auto* e4 = fake<const __nv_fp8_e4m3>(0x10000);
  float* out = fake<float>(0x20000);
  CHECK(DSR::Sum(temp, b, h, out, 4, 16, 0, tc) == cudaErrorNotSupported); // compensated __half
  CHECK(DSR::Sum(temp, b, h, out, 4, 24, 0, tc_fast) == cudaErrorNotSupported);
  CHECK(DSR::Sum(temp, b, h, out, 4, 8192, 0, tc_fast) == cudaErrorNotSupported);
  CHECK(DSR::Sum(temp, b, fake<const __half>(0x10002), out, 4, 16, 0, tc_fast) ==
        cudaErrorNotSupported); // not 8-byte aligned
  CHECK(DSR::Sum(temp, b, e4, out, 4, 16, 0, tc) == cudaErrorNotSupported);
  CHECK(DSR::Sum(temp, b, fake<const __nv_bfloat16>(0x10000), out, 4, 32, 0, tc_fast) ==
        cudaErrorNotSupported);
  CHECK(DSR::Dot(temp, b, h, h, out, 4, 32, 0, tc_fast) == cudaErrorNotSupported);
  CHECK(DSR::Nrm2(temp, b, h, out, 4, 32, 0, tc_fast) == cudaErrorNotSupported);
  const std::int64_t* off = fake<const std::int64_t>(0x30000);
  std::size_t big = std::size_t(1) << 30;
  CHECK(DSR::Sum(temp, big, e4, out, 4, off, off + 1, 0, tc) == cudaErrorNotSupported); // offsets
  CHECK(DSR::Sum(temp, b, h, out, -1, 16, 0, tc_fast) == cudaErrorInvalidValue); // checks first
  std::size_t q = 0;
  CHECK(DSR::Sum(nullptr, q, fake<const __half>(0x10000), fake<float>(0x20000), 4, 16, 0, tc) ==
        cudaSuccess); // the size query still answers
  CHECK(q == 1);
}

TEST_CASE("overloads resolve as CUB's: offsets of any integer type, sizes of any integer type") {
  // Size queries only: each call instantiates (compiles) its kernel and returns before a launch.
  std::size_t b = 0;
  const float* in = fake<const float>(0x10000);
  float* out = fake<float>(0x20000);
  CHECK(DSR::Sum(nullptr, b, in, out, 4, fake<const unsigned>(0x30000),
                 fake<const unsigned>(0x30004)) == cudaSuccess);
  CHECK(DSR::Sum(nullptr, b, in, out, 4, fake<const std::size_t>(0x30000),
                 fake<const long long>(0x30008)) == cudaSuccess);
  CHECK(DSR::Sum(nullptr, b, in, out, 4, std::size_t(16), cudaStream_t(0)) == cudaSuccess);
  CHECK(DSR::Sum(nullptr, b, in, out, 4, 16, 0) == cudaSuccess);
  CHECK(DSR::Sum(nullptr, b, thrust::counting_iterator<int>(0), static_cast<long long*>(nullptr), 4,
                 thrust::counting_iterator<int>(0),
                 thrust::counting_iterator<int>(1)) == cudaSuccess);
  CHECK(DSR::Sum(nullptr, b, fake<const __nv_bfloat16>(0x10000), fake<__half>(0x20000), 4, 16) ==
        cudaSuccess);
  CHECK(DSR::Asum(nullptr, b, fake<const __nv_fp8_e5m2>(0x10000), fake<tcr::dd>(0x20000), 4, 16) ==
        cudaSuccess);
  CHECK(DSR::ArgMax(nullptr, b, in, fake<cub::KeyValuePair<int, float>>(0x20000), 4, 16) ==
        cudaSuccess);
  static_assert(std::is_same_v<decltype(DSR::Min(nullptr, b, in, out, 4, 16)), cudaError_t>);
}

TEST_SUITE("gpu") {
  TEST_CASE("nothing is written on bad input") {
    device_buffer<float> in(std::vector<float>(64, 1.0f));
    device_buffer<float> out(8);
    TCR_CHECK_CUDA(cudaMemset(out.get(), 0x5a, 8 * sizeof(float)));
    device_buffer<int> off(std::vector<int>{0, 8, 16, 24, 32, 40, 48, 56, 64});
    std::size_t b = enough_temp;
    temp_storage temp(b);
    const auto bad = cudaErrorInvalidValue;
    const int* o = off.get();
    CHECK(DSR::Sum(temp.get(), b, in.get(), out.get(), -8, o, o + 1) == bad);
    CHECK(DSR::Sum(temp.get(), b, static_cast<const float*>(nullptr), out.get(), 8, o, o + 1) ==
          bad);
    CHECK(DSR::Sum(temp.get(), b, in.get(), out.get(), 8, -8) == bad);
    CHECK(DSR::Sum(temp.get(), b,
                   reinterpret_cast<const float*>(reinterpret_cast<const char*>(in.get()) + 2),
                   out.get(), 8, 8) == bad); // misaligned input
    CHECK(DSR::Sum(temp.get(), b, in.get(), out.get(), std::int64_t(1) << 61, 8) == bad);
    std::size_t too_little = 1; // offsets need the sharing storage
    CHECK(DSR::Sum(temp.get(), too_little, in.get(), out.get(), 8, o, o + 1) == bad);
    TCR_CHECK_CUDA(cudaDeviceSynchronize());
    for (float v : out.download()) {
      std::uint32_t w;
      std::memcpy(&w, &v, 4);
      CHECK(w == 0x5a5a5a5au);
    }
  }

  TEST_CASE("offsets of any integer type; end <= begin reads as an empty segment") {
    std::vector<float> h(100);
    for (std::size_t i = 0; i < h.size(); ++i)
      h[i] = static_cast<float>(i);
    device_buffer<float> in(h);
    // Overlapping, out-of-order and reversed segments.
    const std::vector<long long> begin = {0, 10, 5, 50, 99, 30, 0};
    const std::vector<long long> end = {100, 20, 5, 40, 100, 31, 1};
    const auto check = [&](auto type_tag) {
      using Off = decltype(type_tag);
      INFO("offsets of ", sizeof(Off), " bytes, signed ", std::is_signed_v<Off>);
      device_buffer<Off> db(std::vector<Off>(begin.begin(), begin.end()));
      device_buffer<Off> de(std::vector<Off>(end.begin(), end.end()));
      device_buffer<double> out(begin.size());
      std::size_t b = enough_temp; // the sharing storage of any of these calls
      temp_storage temp(b);
      TCR_CHECK_CUDA(DSR::Sum(temp.get(), b, in.get(), out.get(), begin.size(),
                              static_cast<const Off*>(db.get()),
                              static_cast<const Off*>(de.get())));
      TCR_CHECK_CUDA(cudaDeviceSynchronize());
      const auto r = out.download();
      for (std::size_t s = 0; s < begin.size(); ++s) {
        double e = 0;
        for (long long i = begin[s]; i < end[s]; ++i)
          e += h[static_cast<std::size_t>(i)];
        INFO("segment ", s);
        CHECK(r[s] == e);
        if (end[s] <= begin[s])
          CHECK(!std::signbit(r[s]));
      }
    };
    check(int{});
    check(unsigned{});
    check(std::int64_t{});
    check(std::uint64_t{});
    check(short{});
  }

  TEST_CASE("empty segments get CUB's values") {
    device_buffer<float> in(std::vector<float>(4, -1.0f));
    device_buffer<int> iin(std::vector<int>(4, -1));
    const int n = 3;
    std::size_t b = enough_temp; // the sharing storage of any of these calls
    temp_storage temp(b);
    device_buffer<float> fs(n), fmin(n), fmax(n);
    device_buffer<int> ir(n);
    device_buffer<tcr::KeyValuePair<int, float>> amin(n), amax(n);
    TCR_CHECK_CUDA(DSR::Sum(temp.get(), b, in.get(), fs.get(), n, 0));
    TCR_CHECK_CUDA(DSR::Min(temp.get(), b, in.get(), fmin.get(), n, 0));
    TCR_CHECK_CUDA(DSR::Max(temp.get(), b, in.get(), fmax.get(), n, 0));
    TCR_CHECK_CUDA(DSR::Reduce(temp.get(), b, iin.get(), ir.get(), n, 0, max_op{}, 42));
    TCR_CHECK_CUDA(DSR::ArgMin(temp.get(), b, in.get(), amin.get(), n, 0));
    TCR_CHECK_CUDA(DSR::ArgMax(temp.get(), b, in.get(), amax.get(), n, 0));
    // Null input with empty segments: nothing is read.
    device_buffer<float> fnull(n);
    TCR_CHECK_CUDA(DSR::Nrm2(temp.get(), b, static_cast<const float*>(nullptr), fnull.get(), n, 0));
    TCR_CHECK_CUDA(cudaDeviceSynchronize());
    for (int s = 0; s < n; ++s) {
      CHECK(fs.download()[s] == 0.0f);
      CHECK(!std::signbit(fs.download()[s]));
      CHECK(fnull.download()[s] == 0.0f);
      CHECK(fmin.download()[s] == std::numeric_limits<float>::max());
      CHECK(fmax.download()[s] == std::numeric_limits<float>::lowest());
      CHECK(ir.download()[s] == 42);
      CHECK(amin.download()[s].key == 1);
      CHECK(amin.download()[s].value == std::numeric_limits<float>::max());
      CHECK(amax.download()[s].key == 1);
      CHECK(amax.download()[s].value == std::numeric_limits<float>::lowest());
    }
  }

  TEST_CASE("integer sums, magnitudes and dots are exact per segment") {
    const std::uint64_t seed = 2100;
    INFO("seed = ", seed);
    rng64 rng(seed);
    const segment_layout l = consecutive(sweep_lengths(), 1);
    std::vector<std::int32_t> x(l.total), y(l.total);
    for (auto& v : x)
      v = static_cast<std::int32_t>(rng.integer(INT_MIN, INT_MAX));
    for (auto& v : y)
      v = static_cast<std::int32_t>(rng.integer(INT_MIN, INT_MAX));
    std::vector<std::int8_t> x8(l.total);
    for (auto& v : x8)
      v = static_cast<std::int8_t>(rng.integer(-128, 127));
    device_buffer<std::int32_t> dx(x), dy(y);
    device_buffer<std::int8_t> dx8(x8);
    const auto sum = run_segmented<long long>(op::sum, dx.get(), dx.get(), l);
    const auto asum = run_segmented<long long>(op::asum, dx.get(), dx.get(), l);
    const auto sum8 = run_segmented<int>(op::sum, dx8.get(), dx8.get(), l);
    const auto dsum = run_segmented<double>(op::sum, dx.get(), dx.get(), l);
    const auto dot = run_segmented<tcr::int128>(op::dot, dx.get(), dy.get(), l);
    for (std::size_t s = 0; s < sum.size(); ++s) {
      INFO("segment ", s, ", length ", l.length(s));
      const __int128 e = exact_int_sum(x, l.begin[s], l.end[s], false);
      CHECK(sum[s] == static_cast<long long>(e));
      CHECK(asum[s] == static_cast<long long>(exact_int_sum(x, l.begin[s], l.end[s], true)));
      CHECK(sum8[s] == static_cast<int>(exact_int_sum(x8, l.begin[s], l.end[s], false)));
      CHECK(dsum[s] == static_cast<double>(e)); // |e| < 2^53 here: exact
      __int128 d = 0;
      for (std::int64_t i = l.begin[s]; i < l.end[s]; ++i)
        d += static_cast<__int128>(static_cast<std::int64_t>(x[static_cast<std::size_t>(i)]) *
                                   y[static_cast<std::size_t>(i)]);
      CHECK(dot[s].lo == static_cast<std::uint64_t>(d));
      CHECK(dot[s].hi == static_cast<std::uint64_t>(d >> 64));
    }
  }

  TEST_CASE("Min, Max, ArgMin, ArgMax per segment against the host (first index for ties)") {
    const std::uint64_t seed = 2200;
    INFO("seed = ", seed);
    rng64 rng(seed);
    for (int gap : {0, 1}) {
      const segment_layout l = consecutive(sweep_lengths(), gap);
      std::vector<float> x(l.total);
      for (auto& v : x)
        v = static_cast<float>(rng.integer(-20, 20)); // many ties
      device_buffer<float> dx(x);
      device_buffer<std::int64_t> db(l.begin), de(l.end);
      const std::size_t n = l.begin.size();
      device_buffer<float> mn(n), mx(n);
      device_buffer<tcr::KeyValuePair<int, float>> amn(n), amx(n);
      std::size_t b = enough_temp; // the sharing storage of any of these calls
      temp_storage temp(b);
      const std::int64_t* pb = db.get();
      const std::int64_t* pe = de.get();
      TCR_CHECK_CUDA(DSR::Min(temp.get(), b, dx.get(), mn.get(), l.count(), pb, pe));
      TCR_CHECK_CUDA(DSR::Max(temp.get(), b, dx.get(), mx.get(), l.count(), pb, pe));
      TCR_CHECK_CUDA(DSR::ArgMin(temp.get(), b, dx.get(), amn.get(), l.count(), pb, pe));
      TCR_CHECK_CUDA(DSR::ArgMax(temp.get(), b, dx.get(), amx.get(), l.count(), pb, pe));
      TCR_CHECK_CUDA(cudaDeviceSynchronize());
      const auto rmn = mn.download(), rmx = mx.download();
      const auto ramn = amn.download(), ramx = amx.download();
      for (std::size_t s = 0; s < n; ++s) {
        INFO("segment ", s, ", length ", l.length(s));
        if (l.length(s) == 0)
          continue; // empty segments: the case above
        std::int64_t imin = 0, imax = 0;
        for (std::int64_t i = 1; i < l.length(s); ++i) {
          const float v = x[static_cast<std::size_t>(l.begin[s] + i)];
          if (v < x[static_cast<std::size_t>(l.begin[s] + imin)])
            imin = i;
          if (v > x[static_cast<std::size_t>(l.begin[s] + imax)])
            imax = i;
        }
        CHECK(rmn[s] == x[static_cast<std::size_t>(l.begin[s] + imin)]);
        CHECK(rmx[s] == x[static_cast<std::size_t>(l.begin[s] + imax)]);
        CHECK(ramn[s].key == imin);
        CHECK(ramn[s].value == rmn[s]);
        CHECK(ramx[s].key == imax);
        CHECK(ramx[s].value == rmx[s]);
      }
    }
  }

  TEST_CASE("fixed-size ArgMin into cuda::std::pair and half input") {
    const std::uint64_t seed = 2300;
    INFO("seed = ", seed);
    rng64 rng(seed);
    const int size = 37;
    const std::int64_t num = 1000;
    std::vector<__half> x(static_cast<std::size_t>(num * size));
    for (auto& v : x)
      v = __float2half(static_cast<float>(rng.integer(-50, 50)) / 4);
    device_buffer<__half> dx(x);
    device_buffer<cuda::std::pair<int, __half>> out(static_cast<std::size_t>(num));
    // The pairs' padding bytes are never written; filled so that their download is defined.
    TCR_CHECK_CUDA(cudaMemset(out.get(), 0, static_cast<std::size_t>(num) * sizeof(*out.get())));
    std::size_t b = enough_temp; // the sharing storage of any of these calls
    temp_storage temp(b);
    TCR_CHECK_CUDA(DSR::ArgMin(temp.get(), b, dx.get(), out.get(), num, size));
    TCR_CHECK_CUDA(cudaDeviceSynchronize());
    const auto r = out.download();
    for (std::int64_t s = 0; s < num; ++s) {
      int imin = 0;
      for (int i = 1; i < size; ++i)
        if (__half2float(x[static_cast<std::size_t>(s * size + i)]) <
            __half2float(x[static_cast<std::size_t>(s * size + imin)]))
          imin = i;
      INFO("segment ", s);
      CHECK(r[static_cast<std::size_t>(s)].first == imin);
      CHECK(__half2float(r[static_cast<std::size_t>(s)].second) ==
            __half2float(x[static_cast<std::size_t>(s * size + imin)]));
    }
  }

  TEST_CASE("Reduce(op, init) per segment, offsets and fixed size") {
    const std::uint64_t seed = 2400;
    INFO("seed = ", seed);
    rng64 rng(seed);
    for (int size : {1, 31, 4096, 6000}) {
      const std::int64_t num = 40;
      std::vector<int> x(static_cast<std::size_t>(num * size));
      for (auto& v : x)
        v = static_cast<int>(rng.integer(-1000000, 1000000));
      std::vector<int> offs(static_cast<std::size_t>(num + 1));
      for (std::size_t s = 0; s < offs.size(); ++s)
        offs[s] = static_cast<int>(s) * size;
      device_buffer<int> dx(x), doff(offs), rmax(static_cast<std::size_t>(num)),
          rsum(static_cast<std::size_t>(num)), rfix(static_cast<std::size_t>(num));
      std::size_t b = enough_temp; // the sharing storage of any of these calls
      temp_storage temp(b);
      const int* o = doff.get();
      TCR_CHECK_CUDA(
          DSR::Reduce(temp.get(), b, dx.get(), rmax.get(), num, o, o + 1, max_op{}, INT_MIN));
      TCR_CHECK_CUDA(DSR::Reduce(temp.get(), b, dx.get(), rsum.get(), num, o, o + 1,
                                 cuda::std::plus<int>{}, 17));
      TCR_CHECK_CUDA(DSR::Reduce(temp.get(), b, dx.get(), rfix.get(), num, size, max_op{}, 0));
      TCR_CHECK_CUDA(cudaDeviceSynchronize());
      const auto a = rmax.download(), c = rsum.download(), f = rfix.download();
      for (std::int64_t s = 0; s < num; ++s) {
        int m = INT_MIN, sum = 17;
        for (int i = 0; i < size; ++i) {
          const int v = x[static_cast<std::size_t>(s * size + i)];
          m = v > m ? v : m;
          sum += v;
        }
        INFO("size ", size, ", segment ", s);
        CHECK(a[static_cast<std::size_t>(s)] == m);
        CHECK(c[static_cast<std::size_t>(s)] == sum);
        CHECK(f[static_cast<std::size_t>(s)] == (m > 0 ? m : 0));
      }
    }
  }

  TEST_CASE("iterator inputs and iterator offsets (one element at a time)") {
    // Sums of counting_iterator segments [100 s, 197 s + 100): exact integers, and through a
    // transform iterator into double (values k / 2, exact); then offsets from iterators too.
    const std::int64_t num = 50;
    std::vector<long long> begin(num), end(num);
    for (std::size_t s = 0; s < begin.size(); ++s) {
      begin[s] = 100 * static_cast<long long>(s);
      end[s] = 197 * static_cast<long long>(s) + 100;
    }
    device_buffer<long long> db(begin), de(end), out(begin.size());
    device_buffer<double> dout(begin.size()), dit(begin.size());
    std::size_t b = enough_temp; // the sharing storage of any of these calls
    temp_storage temp(b);
    const thrust::counting_iterator<int> it(0);
    const auto halves = thrust::make_transform_iterator(it, half_of{});
    const long long* pb = db.get();
    const long long* pe = de.get();
    TCR_CHECK_CUDA(DSR::Sum(temp.get(), b, it, out.get(), num, pb, pe));
    TCR_CHECK_CUDA(DSR::Sum(temp.get(), b, halves, dout.get(), num, pb, pe));
    // Segments [100 s, 100 s + 100) from offset iterators.
    TCR_CHECK_CUDA(DSR::Sum(temp.get(), b, halves, dit.get(), num,
                            thrust::make_transform_iterator(it, times{100}),
                            thrust::make_transform_iterator(it + 1, times{100})));
    TCR_CHECK_CUDA(cudaDeviceSynchronize());
    const auto r = out.download();
    const auto rd = dout.download();
    const auto ri = dit.download();
    for (std::size_t s = 0; s < begin.size(); ++s) {
      long long e = 0, e100 = 0;
      for (long long i = begin[s]; i < end[s]; ++i)
        e += i;
      for (long long i = begin[s]; i < begin[s] + 100; ++i)
        e100 += i;
      INFO("segment ", s);
      CHECK(r[s] == e);
      CHECK(rd[s] == 0.5 * static_cast<double>(e));
      CHECK(ri[s] == 0.5 * static_cast<double>(e100));
    }
  }
}
