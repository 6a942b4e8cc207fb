// SPDX-License-Identifier: BSD-3-Clause
// Tests for tcr::DeviceReduce's calling convention: temporary-storage sizes, bad input, n = 0,
// single-call overloads, generic Reduce, determinism, graph capture, concurrent streams.
// Host cases need no GPU (the checks run before any CUDA call); the rest are in the gpu suite.
#include <doctest/doctest.h>

#include <cuda/std/functional>
#include <climits>
#include <thread>
#include "reduce/device_test_util.hpp"
#include "support/fake_address.hpp"

namespace {

using namespace tcr::test;
using tcr::DeviceReduce;

template <class In, class Out>
void check_temp_bytes_monotone() {
  std::size_t prev = 0;
  for (std::int64_t n = 0; n < (std::int64_t(1) << 42); n = n < 64 ? n + 1 : n + n / 3) {
    std::size_t bytes = 0, bytes_dot = 0, bytes_nrm2 = 0;
    REQUIRE(DeviceReduce::Sum(nullptr, bytes, static_cast<const In*>(nullptr),
                              static_cast<Out*>(nullptr), n) == cudaSuccess);
    REQUIRE(DeviceReduce::Dot(nullptr, bytes_dot, static_cast<const In*>(nullptr),
                              static_cast<const In*>(nullptr), static_cast<Out*>(nullptr),
                              n) == cudaSuccess);
    REQUIRE(DeviceReduce::Nrm2(nullptr, bytes_nrm2, static_cast<const In*>(nullptr),
                               static_cast<Out*>(nullptr), n) == cudaSuccess);
    CHECK(bytes > 0);
    CHECK(bytes >= prev);
    prev = bytes;
    std::size_t again = 0;
    DeviceReduce::Sum(nullptr, again, static_cast<const In*>(nullptr), static_cast<Out*>(nullptr),
                      n);
    CHECK(again == bytes); // a function of n and the types only
  }
  CHECK(prev < (std::size_t(1) << 20)); // bounded: at most 2048 partials
}

struct max_op {
  __host__ __device__ int operator()(int a, int b) const { return a > b ? a : b; }
};

} // namespace

TEST_CASE("temp_storage_bytes depends only on n and the types and never shrinks") {
  check_temp_bytes_monotone<float, float>();
  check_temp_bytes_monotone<__nv_fp8_e4m3, float>();
  check_temp_bytes_monotone<__half, float>();
  check_temp_bytes_monotone<double, double>();
}

TEST_CASE("bad input gives cudaErrorInvalidValue (or NotSupported) before touching the device") {
  std::size_t bytes = 0;
  const float* in = fake<const float>(0x10000);
  float* out = fake<float>(0x20000);
  void* temp = fake<void>(0x30000);
  REQUIRE(DeviceReduce::Sum(nullptr, bytes, in, out, 1000) == cudaSuccess);
  std::size_t b = bytes;
  CHECK(DeviceReduce::Sum(temp, b, static_cast<const float*>(nullptr), out, 1000) ==
        cudaErrorInvalidValue);
  CHECK(DeviceReduce::Sum(temp, b, in, static_cast<float*>(nullptr), 1000) ==
        cudaErrorInvalidValue);
  CHECK(DeviceReduce::Sum(temp, b, in, static_cast<float*>(nullptr), 0) == cudaErrorInvalidValue);
  CHECK(DeviceReduce::Sum(temp, b, in, out, -1) == cudaErrorInvalidValue);
  std::size_t small = bytes - 1;
  CHECK(DeviceReduce::Sum(temp, small, in, out, 1000) == cudaErrorInvalidValue);
  CHECK(DeviceReduce::Sum(temp, b, fake<const float>(0x10002), out, 1000) == cudaErrorInvalidValue);
  CHECK(DeviceReduce::Dot(temp, b, in, static_cast<const float*>(nullptr), out, 1000) ==
        cudaErrorInvalidValue);
  CHECK(DeviceReduce::Nrm2(temp, b, static_cast<const float*>(nullptr), out, 5) ==
        cudaErrorInvalidValue);
  CHECK(DeviceReduce::Asum(temp, small, in, out, 1000) == cudaErrorInvalidValue);
  tcr::ReduceOptions tc;
  tc.engine = tcr::Engine::tensor_core;
  CHECK(DeviceReduce::Sum(temp, b, in, out, 1000, 0, tc) == cudaErrorNotSupported);
  // num_items of any integer type, as CUB takes it: the same size query for int, size_t and
  // unsigned; an unsigned count beyond INT64_MAX is rejected like a negative one.
  std::size_t b_int = 0, b_size = 0, b_unsigned = 0;
  REQUIRE(DeviceReduce::Sum(nullptr, b_int, in, out, 1000) == cudaSuccess);
  REQUIRE(DeviceReduce::Sum(nullptr, b_size, in, out, std::size_t(1000)) == cudaSuccess);
  REQUIRE(DeviceReduce::Dot(nullptr, b_unsigned, in, in, out, 1000u) == cudaSuccess);
  CHECK(b_int == bytes);
  CHECK(b_size == bytes);
  CHECK(DeviceReduce::Sum(temp, b, in, out, std::uint64_t(1) << 63) == cudaErrorInvalidValue);
  CHECK(DeviceReduce::Nrm2(temp, b, in, out, ~std::size_t(0)) == cudaErrorInvalidValue);
  // A null input is fine for n = 0 (nothing is read).
  std::size_t b0 = 0;
  REQUIRE(DeviceReduce::Sum(nullptr, b0, static_cast<const float*>(nullptr), out, 0) ==
          cudaSuccess);
  CHECK(b0 > 0);
}

TEST_SUITE("gpu") {
  TEST_CASE("too-small temp storage writes nothing; n = 0 writes the identity") {
    device_buffer<float> in(std::vector<float>(5000, 1.0f));
    device_buffer<float> out(std::vector<float>{42.0f});
    std::size_t bytes = 0;
    REQUIRE(DeviceReduce::Sum(nullptr, bytes, in.get(), out.get(), 5000) == cudaSuccess);
    temp_storage temp(bytes);
    std::size_t small = bytes - 1;
    CHECK(DeviceReduce::Sum(temp.get(), small, in.get(), out.get(), 5000) == cudaErrorInvalidValue);
    TCR_CHECK_CUDA(cudaDeviceSynchronize());
    CHECK(out.download()[0] == 42.0f);
    CHECK(DeviceReduce::Sum(temp.get(), bytes, in.get(), out.get(), 0) == cudaSuccess);
    TCR_CHECK_CUDA(cudaDeviceSynchronize());
    CHECK(out.download()[0] == 0.0f);
    CHECK_FALSE(std::signbit(out.download()[0])); // the empty sum is +0, as CUB writes
    device_buffer<int> iout(std::vector<int>{7});
    device_buffer<int> iin(std::vector<int>{1, 2, 3});
    CHECK(DeviceReduce::Reduce(temp.get(), bytes, iin.get(), iout.get(), 0, cuda::std::plus<int>{},
                               -5) == cudaSuccess);
    TCR_CHECK_CUDA(cudaDeviceSynchronize());
    CHECK(iout.download()[0] == -5);
    device_buffer<double> dout(std::vector<double>{42.0});
    CHECK(DeviceReduce::Nrm2(temp.get(), bytes, static_cast<const double*>(nullptr), dout.get(),
                             0) == cudaSuccess);
    TCR_CHECK_CUDA(cudaDeviceSynchronize());
    CHECK(dout.download()[0] == 0.0);
    CHECK_FALSE(std::signbit(dout.download()[0]));
  }

  TEST_CASE("num_items of any integer type gives the same bits") {
    const std::uint64_t seed = 3050;
    INFO("seed = ", seed);
    const auto x = gen_sum<float>(100000, 1e8, seed);
    device_buffer<float> dx(x);
    device_buffer<float> out(4);
    std::size_t bytes = 0;
    REQUIRE(DeviceReduce::Sum(nullptr, bytes, dx.get(), out.get(), std::int64_t(100000)) ==
            cudaSuccess);
    temp_storage temp(bytes);
    TCR_CHECK_CUDA(DeviceReduce::Sum(temp.get(), bytes, dx.get(), out.get(), std::int64_t(100000)));
    TCR_CHECK_CUDA(DeviceReduce::Sum(temp.get(), bytes, dx.get(), out.get() + 1, 100000));
    TCR_CHECK_CUDA(DeviceReduce::Sum(temp.get(), bytes, dx.get(), out.get() + 2, 100000u));
    TCR_CHECK_CUDA(
        DeviceReduce::Sum(temp.get(), bytes, dx.get(), out.get() + 3, std::size_t(100000)));
    TCR_CHECK_CUDA(cudaDeviceSynchronize());
    const auto r = out.download();
    for (int i = 1; i < 4; ++i)
      CHECK(std::memcmp(&r[i], &r[0], sizeof(float)) == 0);
  }

  TEST_CASE("single-call overloads allocate stream-ordered and agree with the two-phase form") {
    const std::uint64_t seed = 3100;
    INFO("seed = ", seed);
    const auto x = typed_random<float>(300001, seed);
    const auto y = typed_random<float>(300001, seed + 1);
    device_buffer<float> dx(x.t), dy(y.t), out(4);
    cudaStream_t s;
    TCR_CHECK_CUDA(cudaStreamCreate(&s));
    TCR_CHECK_CUDA(DeviceReduce::Sum(dx.get(), out.get() + 0, 300001, s));
    TCR_CHECK_CUDA(DeviceReduce::Asum(dx.get(), out.get() + 1, 300001, s));
    TCR_CHECK_CUDA(DeviceReduce::Dot(dx.get(), dy.get(), out.get() + 2, 300001, s));
    TCR_CHECK_CUDA(DeviceReduce::Nrm2(dx.get(), out.get() + 3, 300001, s));
    TCR_CHECK_CUDA(cudaStreamSynchronize(s));
    const auto r = out.download();
    CHECK(r[0] == run_device<float>(op::sum, dx.get(), dx.get(), 300001));
    CHECK(r[1] == run_device<float>(op::asum, dx.get(), dx.get(), 300001));
    CHECK(r[2] == run_device<float>(op::dot, dx.get(), dy.get(), 300001));
    CHECK(r[3] == run_device<float>(op::nrm2, dx.get(), dx.get(), 300001));
    check_contract<float>(op::sum, r[0], x.d, x.d, true);
    check_contract<float>(op::dot, r[2], x.d, y.d, true);
    TCR_CHECK_CUDA(cudaStreamDestroy(s));
  }

  TEST_CASE("Reduce(op, init): generic operators, in a fixed order") {
    const std::uint64_t seed = 3200;
    INFO("seed = ", seed);
    rng64 rng(seed);
    for (std::int64_t n : {1, 33, 4097, 1000003}) {
      std::vector<int> v(n);
      for (auto& e : v)
        e = static_cast<int>(rng.integer(-1000000, 1000000));
      device_buffer<int> dv(v);
      device_buffer<int> out(1);
      device_buffer<long long> lout(1);
      TCR_CHECK_CUDA(DeviceReduce::Reduce(dv.get(), out.get(), n, cuda::std::plus<int>{}, 17));
      TCR_CHECK_CUDA(
          DeviceReduce::Reduce(dv.get(), lout.get(), n, cuda::std::plus<long long>{}, 0));
      TCR_CHECK_CUDA(cudaDeviceSynchronize());
      long long sum = 0;
      int mx = INT_MIN;
      for (int e : v)
        sum += e, mx = e > mx ? e : mx;
      CHECK(out.download()[0] == static_cast<int>(static_cast<unsigned>(sum + 17)));
      CHECK(lout.download()[0] == sum);
      TCR_CHECK_CUDA(DeviceReduce::Reduce(dv.get(), out.get(), n, max_op{}, INT_MIN));
      TCR_CHECK_CUDA(cudaDeviceSynchronize());
      CHECK(out.download()[0] == mx);
    }
  }

  TEST_CASE("repeated calls are bitwise identical, whatever the temp storage held") {
    const std::uint64_t seed = 3300;
    INFO("seed = ", seed);
    const auto x = gen_sum<float>(3000017, 1e12, seed);
    device_buffer<float> dx(x);
    device_buffer<float> out(1);
    std::size_t bytes = 0;
    REQUIRE(DeviceReduce::Sum(nullptr, bytes, dx.get(), out.get(), 3000017) == cudaSuccess);
    float first = 0;
    for (int pattern : {0x00, 0xff, 0xa5, 0x5a}) {
      device_buffer<unsigned char> raw(bytes + 8);
      TCR_CHECK_CUDA(cudaMemset(raw.get(), pattern, bytes + 8));
      void* t = raw.get() + (pattern == 0xff ? 8 : 0); // also a temp pointer off 256-byte alignment
      for (int rep = 0; rep < 5; ++rep) {
        TCR_CHECK_CUDA(DeviceReduce::Sum(t, bytes, dx.get(), out.get(), 3000017));
        TCR_CHECK_CUDA(cudaDeviceSynchronize());
        const float r = out.download()[0];
        if (pattern == 0 && rep == 0)
          first = r;
        CHECK(std::memcmp(&r, &first, sizeof r) == 0);
      }
    }
    check_contract<float>(op::sum, first, std::vector<double>(x.begin(), x.end()), {}, true);
  }

  TEST_CASE("Accuracy::fast on the CUDA cores meets the compensated bound too") {
    const std::uint64_t seed = 3400;
    INFO("seed = ", seed);
    const auto x = gen_sum<float>(1 << 20, 1e16, seed);
    device_buffer<float> dx(x);
    device_buffer<float> out(1);
    {
      tcr::ReduceOptions opt;
      opt.accuracy = tcr::Accuracy::fast;
      opt.engine = tcr::Engine::cuda_core;
      TCR_CHECK_CUDA(DeviceReduce::Sum(dx.get(), out.get(), 1 << 20, 0, opt));
      TCR_CHECK_CUDA(cudaDeviceSynchronize());
      check_contract<float>(op::sum, out.download()[0], std::vector<double>(x.begin(), x.end()), {},
                            true);
    }
  }

  TEST_CASE("df32 and dd results carry the unrounded pair") {
    for (double cond : {1.0, 1e16, 1e32}) {
      const std::uint64_t seed = 3700 + static_cast<std::uint64_t>(std::log10(cond));
      INFO("seed = ", seed, ", cond = ", cond);
      const std::size_t n = (1 << 20) + 3;
      const auto xf = gen_sum<float>(n, cond, seed);
      const auto xd = gen_sum<double>(n, cond, seed);
      device_buffer<float> dxf(xf);
      device_buffer<double> dxd(xd);
      device_buffer<tcr::df32> of(1);
      device_buffer<tcr::dd> od(2);
      TCR_CHECK_CUDA(DeviceReduce::Sum(dxf.get(), of.get(), n));
      TCR_CHECK_CUDA(DeviceReduce::Sum(dxd.get(), od.get(), n));
      TCR_CHECK_CUDA(DeviceReduce::Nrm2(dxd.get(), od.get() + 1, n));
      TCR_CHECK_CUDA(cudaDeviceSynchronize());
      const tcr::df32 rf = of.download()[0];
      const auto rd = od.download();
      const std::vector<double> vf(xf.begin(), xf.end());
      CHECK(pair_within_bound(rf.hi, rf.lo, fast_exact_sum(vf), fast_exact_sum(vf, true), 0x1p-47,
                              0x1p-42));
      CHECK(pair_within_bound(rd[0].hi, rd[0].lo, fast_exact_sum(xd), fast_exact_sum(xd, true),
                              0x1p-104, 0x1p-100));
      // Nrm2 as a pair: |hi + lo - ||x||| <= 2^-100 ||x||.
      const mp ssq = exact_dot(xd, xd);
      mp r(400);
      mpfr_sqrt(r.get(), ssq.get(), MPFR_RNDN);
      mp zero(64);
      CHECK(pair_within_bound(rd[1].hi, rd[1].lo, r, zero, 0x1p-100 - 0x1p-300, 0));
    }
  }

  TEST_CASE("graph capture and replay of the two-phase call") {
    const std::uint64_t seed = 3500;
    INFO("seed = ", seed);
    const std::int64_t n = 1 << 21;
    auto x = typed_random<float>(n, seed);
    device_buffer<float> dx(x.t);
    device_buffer<float> out(1);
    std::size_t bytes = 0;
    REQUIRE(DeviceReduce::Sum(nullptr, bytes, dx.get(), out.get(), n) == cudaSuccess);
    temp_storage temp(bytes);
    cudaStream_t s;
    TCR_CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaGraph_t graph;
    // Capture also works on the very first call (the occupancy query is not a stream operation);
    // a first call outside capture is the common case and is what this does.
    (void)run_device<float>(op::sum, dx.get(), dx.get(), n);
    TCR_CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    TCR_CHECK_CUDA(DeviceReduce::Sum(temp.get(), bytes, dx.get(), out.get(), n, s));
    TCR_CHECK_CUDA(cudaStreamEndCapture(s, &graph));
    cudaGraphExec_t exec;
    TCR_CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    for (int rep = 0; rep < 3; ++rep) {
      const auto y = typed_random<float>(n, seed + 10 + rep);
      dx.upload(y.t);
      TCR_CHECK_CUDA(cudaGraphLaunch(exec, s));
      TCR_CHECK_CUDA(cudaStreamSynchronize(s));
      const float r = out.download()[0];
      CHECK(r == run_device<float>(op::sum, dx.get(), dx.get(), n));
      check_contract<float>(op::sum, r, y.d, {}, true);
    }
    TCR_CHECK_CUDA(cudaGraphExecDestroy(exec));
    TCR_CHECK_CUDA(cudaGraphDestroy(graph));
    // The single-call form (stream-ordered allocation) is capturable too.
    TCR_CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    TCR_CHECK_CUDA(DeviceReduce::Sum(dx.get(), out.get(), n, s));
    TCR_CHECK_CUDA(cudaStreamEndCapture(s, &graph));
    TCR_CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    TCR_CHECK_CUDA(cudaGraphLaunch(exec, s));
    TCR_CHECK_CUDA(cudaStreamSynchronize(s));
    CHECK(out.download()[0] == run_device<float>(op::sum, dx.get(), dx.get(), n));
    TCR_CHECK_CUDA(cudaGraphExecDestroy(exec));
    TCR_CHECK_CUDA(cudaGraphDestroy(graph));
    TCR_CHECK_CUDA(cudaStreamDestroy(s));
  }

  TEST_CASE("two streams at once, separate temp storage") {
    const std::uint64_t seed = 3600;
    INFO("seed = ", seed);
    const std::int64_t n = (1 << 22) + 5;
    const auto a = typed_random<float>(n, seed);
    const auto b = typed_random<__half>(n, seed + 1);
    device_buffer<float> da(a.t);
    device_buffer<__half> db(b.t);
    const float ra = run_device<float>(op::sum, da.get(), da.get(), n);
    const float rb = run_device<float>(op::sum, db.get(), db.get(), n);
    std::size_t bytes_a = 0, bytes_b = 0;
    device_buffer<float> out(2 * 64);
    DeviceReduce::Sum(nullptr, bytes_a, da.get(), out.get(), n);
    DeviceReduce::Sum(nullptr, bytes_b, db.get(), out.get(), n);
    temp_storage ta(bytes_a), tb(bytes_b);
    cudaStream_t s1, s2;
    TCR_CHECK_CUDA(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    TCR_CHECK_CUDA(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    for (int rep = 0; rep < 64; ++rep) {
      TCR_CHECK_CUDA(DeviceReduce::Sum(ta.get(), bytes_a, da.get(), out.get() + 2 * rep, n, s1));
      TCR_CHECK_CUDA(
          DeviceReduce::Sum(tb.get(), bytes_b, db.get(), out.get() + 2 * rep + 1, n, s2));
    }
    TCR_CHECK_CUDA(cudaStreamSynchronize(s1));
    TCR_CHECK_CUDA(cudaStreamSynchronize(s2));
    const auto r = out.download();
    for (int rep = 0; rep < 64; ++rep) {
      INFO("rep ", rep);
      CHECK(r[2 * rep] == ra);
      CHECK(r[2 * rep + 1] == rb);
    }
    TCR_CHECK_CUDA(cudaStreamDestroy(s1));
    TCR_CHECK_CUDA(cudaStreamDestroy(s2));
  }
}
