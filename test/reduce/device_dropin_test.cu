// SPDX-License-Identifier: BSD-3-Clause
// tcr as a drop-in for cub::DeviceReduce: the same code (test/reduce/dropin_calls.inc) compiled
// against cub:: and tcr::, run on the same data, compared; and Min / Max / ArgMin / ArgMax with
// CUB's rules on every input type and kernel path, the one documented difference, bad input.
#define CCCL_IGNORE_DEPRECATED_API // CUB's KeyValuePair overloads of ArgMin / ArgMax
#include <doctest/doctest.h>

#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>
#include <thrust/device_ptr.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <cmath>
#include <initializer_list>
#include <cstdint>
#include <limits>
#include <vector>
#include "reduce/device_test_util.hpp"

#define DROPIN_NS cub
#define DROPIN_NAME with_cub
#include "reduce/dropin_calls.inc"
#undef DROPIN_NS
#undef DROPIN_NAME
#define DROPIN_NS tcr
#define DROPIN_NAME with_tcr
#include "reduce/dropin_calls.inc"
#undef DROPIN_NS
#undef DROPIN_NAME

namespace {

using namespace tcr::test;
using tcr::DeviceReduce;

struct half_identity {
  __host__ __device__ __half operator()(__half x) const { return x; }
};

template <class T>
double as_double(T v) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<double>(v);
  else
    return to_double(v);
}
template <class T>
const char* name_of() {
  if constexpr (std::is_integral_v<T>)
    return std::is_signed_v<T> ? "signed integer" : "unsigned integer";
  else
    return type_name<T>();
}

// Host reference with CUB's rules: the first least (max: greatest) element, in T's own order.
template <class T>
std::pair<std::int64_t, double> first_extremum(const std::vector<T>& x, bool max) {
  std::int64_t best = -1;
  double v = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double xi = as_double(x[i]);
    if (best < 0 || (max ? xi > v : xi < v)) {
      best = static_cast<std::int64_t>(i);
      v = xi;
    }
  }
  return {best, v};
}

// Values with many repeats, so that the extremum is tied at several positions: k / 8 for k in
// [-lim, lim] (unsigned integers: k + lim).
template <class T>
std::vector<T> tied_values(std::size_t n, std::uint64_t seed, int lim) {
  rng64 rng(seed);
  std::vector<T> x(n);
  for (auto& v : x) {
    const int k = static_cast<int>(rng.integer(-lim, lim));
    if constexpr (std::is_integral_v<T>)
      v = static_cast<T>(std::is_signed_v<T> ? k : k + lim);
    else
      v = to_type<T>(k * 0.125);
  }
  return x;
}

// Min, Max, ArgMin, ArgMax (both overloads) of x stored at element offset `offset`, against the
// host reference: the same value and the first index.
template <class T>
void check_extrema(const std::vector<T>& x, std::size_t offset) {
  const std::size_t n = x.size();
  INFO(name_of<T>(), " n = ", n, ", offset ", offset);
  std::vector<T> host(n + offset + 1, n ? x[0] : T{});
  std::copy(x.begin(), x.end(), host.begin() + offset);
  device_buffer<T> buf(host);
  const T* d = buf.get() + offset;
  device_buffer<T> out(4);
  device_buffer<std::int64_t> idx(2);
  device_buffer<tcr::KeyValuePair<int, T>> kv(2);
  // Zero-filled, so that the whole download is initialised (KeyValuePair<int, T> has padding
  // that the kernels never write; compute-sanitizer initcheck flags it).
  TCR_CHECK_CUDA(cudaMemset(out.get(), 0, 4 * sizeof(T)));
  TCR_CHECK_CUDA(cudaMemset(idx.get(), 0, 2 * sizeof(std::int64_t)));
  TCR_CHECK_CUDA(cudaMemset(kv.get(), 0, 2 * sizeof(tcr::KeyValuePair<int, T>)));
  std::size_t bytes = 0, b = 0;
  REQUIRE(DeviceReduce::Min(nullptr, bytes, d, out.get(), n) == cudaSuccess);
  REQUIRE(DeviceReduce::ArgMin(nullptr, b, d, out.get(), idx.get(), std::int64_t(n)) ==
          cudaSuccess);
  bytes = std::max(bytes, b);
  REQUIRE(DeviceReduce::ArgMax(nullptr, b, d, kv.get(), int(n)) == cudaSuccess);
  bytes = std::max(bytes, b);
  temp_storage temp(bytes);
  TCR_CHECK_CUDA(DeviceReduce::Min(temp.get(), bytes, d, out.get() + 0, n));
  TCR_CHECK_CUDA(DeviceReduce::Max(temp.get(), bytes, d, out.get() + 1, n));
  TCR_CHECK_CUDA(
      DeviceReduce::ArgMin(temp.get(), bytes, d, out.get() + 2, idx.get() + 0, std::int64_t(n)));
  TCR_CHECK_CUDA(
      DeviceReduce::ArgMax(temp.get(), bytes, d, out.get() + 3, idx.get() + 1, std::int64_t(n)));
  TCR_CHECK_CUDA(DeviceReduce::ArgMin(temp.get(), bytes, d, kv.get() + 0, int(n)));
  TCR_CHECK_CUDA(DeviceReduce::ArgMax(temp.get(), bytes, d, kv.get() + 1, int(n)));
  TCR_CHECK_CUDA(cudaDeviceSynchronize());
  const std::vector<T> r = out.download();
  const std::vector<std::int64_t> ri = idx.download();
  const std::vector<tcr::KeyValuePair<int, T>> rkv = kv.download();
  const auto [imin, vmin] = first_extremum(x, false);
  const auto [imax, vmax] = first_extremum(x, true);
  CHECK(as_double(r[0]) == vmin);
  CHECK(as_double(r[1]) == vmax);
  CHECK(as_double(r[2]) == vmin);
  CHECK(ri[0] == imin);
  CHECK(as_double(r[3]) == vmax);
  CHECK(ri[1] == imax);
  CHECK(rkv[0].key == imin);
  CHECK(as_double(rkv[0].value) == vmin);
  CHECK(rkv[1].key == imax);
  CHECK(as_double(rkv[1].value) == vmax);
}

// Sizes that reach every kernel path: one small block, the one big block, the grid (for 16- and
// 8-bit types from the large sizes on, which the "(large)" cases add).
constexpr std::size_t path_sizes[] = {1, 2, 31, 1000, 4099, 20000, 70001};
constexpr std::size_t large_sizes[] = {(std::size_t(1) << 20) + 3};

template <class T, std::size_t K>
void check_extrema_all_paths(std::uint64_t seed, const std::size_t (&sizes)[K]) {
  for (std::size_t n : sizes)
    for (std::size_t offset : {0, 1}) {
      // Few distinct values (ties everywhere) and many (a unique extremum somewhere).
      check_extrema(tied_values<T>(n, seed++, 3), offset);
      check_extrema(tied_values<T>(n, seed++, std::is_same_v<T, __nv_fp8_e4m3> ? 60 : 100), offset);
    }
}

// Runs dropin_calls.inc with CUB and with tcr on the same data and compares.
void compare_with_cub(std::initializer_list<int> sizes) {
  cudaStream_t s;
  TCR_CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  for (int n : sizes) {
    INFO("n = ", n);
    rng64 rng(900 + n);
    std::vector<float> f(n);
    std::vector<__half> h(n);
    std::vector<int> i(n);
    std::vector<double> fd(n), hd(n);
    for (int k = 0; k < n; ++k) {
      f[k] = static_cast<float>(rng.integer(-50, 50)) * 0.25f; // ties for the extrema
      if (k % 3 == 0)
        f[k] = static_cast<float>(std::ldexp(rng.symmetric(), int(rng.integer(-20, 20))));
      fd[k] = f[k];
      h[k] = __float2half(static_cast<float>(rng.symmetric() * 100));
      hd[k] = __half2float(h[k]);
      i[k] = static_cast<int>(rng.integer(-(1 << 30), 1 << 30)); // int sums wrap
    }
    device_buffer<float> df(f);
    device_buffer<__half> dh(h);
    device_buffer<int> di(i);
    const with_cub::results c = with_cub::run(df.get(), dh.get(), di.get(), n, s);
    const with_tcr::results t = with_tcr::run(df.get(), dh.get(), di.get(), n, s);
    REQUIRE(c.err == cudaSuccess);
    REQUIRE(t.err == cudaSuccess);
    // Exact operations: the same bits.
    CHECK(t.sum_i64 == c.sum_i64);
    CHECK(t.sum_i32 == c.sum_i32);
    CHECK(t.sum_counting == c.sum_counting);
    CHECK(t.transform_sum == c.transform_sum);
    CHECK(t.min_i == c.min_i);
    CHECK(t.max_i == c.max_i);
    CHECK(t.reduce_max == c.reduce_max);
    CHECK(t.min_f == c.min_f);
    CHECK(t.max_f == c.max_f);
    if (n == 0) {
      // CUB 3.0.1's ArgMin / ArgMax with two output iterators write nothing for n = 0 (measured
      // on an H200: the outputs kept their previous contents), although CUB's documentation says
      // they write max() (ArgMax: lowest()) and index 1; the KeyValuePair overloads do write
      // {1, max()}. tcr writes the documented values. CUB's index: 1, or -1 (dropin_calls.inc's
      // 0xff fill: nothing written).
      CHECK(t.argmin_v == std::numeric_limits<float>::max());
      CHECK(t.argmin_i == 1);
      CHECK(t.argmax_v == -std::numeric_limits<float>::max());
      CHECK(t.argmax_i == 1);
      CHECK((c.argmin_i == 1 || c.argmin_i == -1));
      CHECK((c.argmax_i == 1 || c.argmax_i == -1));
    } else {
      CHECK(t.argmin_v == c.argmin_v);
      CHECK(t.argmin_i == c.argmin_i);
      CHECK(t.argmax_v == c.argmax_v);
      CHECK(t.argmax_i == c.argmax_i);
    }
    CHECK(t.kv_min_v == c.kv_min_v);
    CHECK(t.kv_min_i == c.kv_min_i);
    CHECK(t.kv_max_v == c.kv_max_v);
    CHECK(t.kv_max_i == c.kv_max_i);
    // Floating-point sums: tcr within its compensated bound (CUB's plain sums need not be);
    // thrust::device_ptr takes the pointer path (the same bits as the raw pointer).
    check_contract<float>(op::sum, t.sum_f, fd, fd, true);
    CHECK(t.sum_ptr_f == t.sum_f);
    check_contract<float>(op::sum, t.sum_transform_f, hd, hd, true);
  }
  TCR_CHECK_CUDA(cudaStreamDestroy(s));
}

} // namespace

TEST_SUITE("gpu") {
  TEST_CASE("code written for cub::DeviceReduce gives CUB's results with tcr") {
    compare_with_cub({0, 1, 7, 1000, 5003, 70001});
  }
  TEST_CASE("code written for cub::DeviceReduce gives CUB's results with tcr, 2^20 (large)") {
    compare_with_cub({(1 << 20) + 7, (1 << 22) + 1});
  }

  TEST_CASE("Min / Max / ArgMin / ArgMax: CUB's rules on every type and kernel path") {
    check_extrema_all_paths<__half>(10, path_sizes);
    check_extrema_all_paths<__nv_bfloat16>(20, path_sizes);
    check_extrema_all_paths<__nv_fp8_e4m3>(30, path_sizes);
    check_extrema_all_paths<float>(40, path_sizes);
    check_extrema_all_paths<double>(50, path_sizes);
    check_extrema_all_paths<std::int8_t>(60, path_sizes);
    check_extrema_all_paths<std::uint64_t>(70, path_sizes);
  }
  TEST_CASE("Min / Max / ArgMin / ArgMax: CUB's rules, 2^20 elements (large)") {
    check_extrema_all_paths<__half>(110, large_sizes);
    check_extrema_all_paths<__nv_bfloat16>(120, large_sizes);
    check_extrema_all_paths<__nv_fp8_e4m3>(130, large_sizes);
    check_extrema_all_paths<float>(140, large_sizes);
    check_extrema_all_paths<double>(150, large_sizes);
    check_extrema_all_paths<std::int8_t>(160, large_sizes);
    check_extrema_all_paths<std::uint64_t>(170, large_sizes);
  }

  TEST_CASE("Min over +inf elements is +inf (CUB folds in max()); empty inputs as CUB") {
    const float inf = std::numeric_limits<float>::infinity();
    device_buffer<float> in(std::vector<float>(3000, inf));
    device_buffer<float> out(std::vector<float>(2, 1.f));
    device_buffer<std::int64_t> idx(std::vector<std::int64_t>{-7});
    std::size_t bytes = 0;
    REQUIRE(DeviceReduce::ArgMin(nullptr, bytes, in.get(), out.get(), idx.get(),
                                 std::int64_t(3000)) == cudaSuccess);
    temp_storage temp(bytes);
    TCR_CHECK_CUDA(DeviceReduce::Min(temp.get(), bytes, in.get(), out.get(), 3000));
    TCR_CHECK_CUDA(DeviceReduce::ArgMin(temp.get(), bytes, in.get(), out.get() + 1, idx.get(),
                                        std::int64_t(3000)));
    TCR_CHECK_CUDA(cudaDeviceSynchronize());
    CHECK(out.download()[0] == inf);
    CHECK(out.download()[1] == inf);
    CHECK(idx.download()[0] == 0);
    // n = 0: numeric_limits<T>::max() / lowest(), index 1.
    TCR_CHECK_CUDA(DeviceReduce::Min(temp.get(), bytes, in.get(), out.get(), 0));
    TCR_CHECK_CUDA(DeviceReduce::ArgMin(temp.get(), bytes, in.get(), out.get() + 1, idx.get(),
                                        std::int64_t(0)));
    TCR_CHECK_CUDA(cudaDeviceSynchronize());
    CHECK(out.download()[0] == std::numeric_limits<float>::max());
    CHECK(out.download()[1] == std::numeric_limits<float>::max());
    CHECK(idx.download()[0] == 1);
    device_buffer<__half> hin(1);
    device_buffer<__half> hout(1);
    TCR_CHECK_CUDA(DeviceReduce::Max(temp.get(), bytes, hin.get(), hout.get(), 0));
    TCR_CHECK_CUDA(cudaDeviceSynchronize());
    CHECK(__half2float(hout.download()[0]) == -65504.f);
  }

  TEST_CASE("NaN in Min / ArgMin: the same result on every call (the order is fixed)") {
    std::vector<float> x(70001);
    rng64 rng(77);
    for (auto& v : x)
      v = static_cast<float>(rng.symmetric());
    for (int k = 0; k < 40; ++k)
      x[rng.integer(0, 70000)] = std::numeric_limits<float>::quiet_NaN();
    device_buffer<float> in(x);
    device_buffer<float> out(2);
    device_buffer<std::int64_t> idx(2);
    std::size_t bytes = 0;
    REQUIRE(DeviceReduce::ArgMin(nullptr, bytes, in.get(), out.get(), idx.get(),
                                 std::int64_t(x.size())) == cudaSuccess);
    temp_storage temp(bytes);
    for (int call = 0; call < 2; ++call)
      TCR_CHECK_CUDA(DeviceReduce::ArgMin(temp.get(), bytes, in.get(), out.get() + call,
                                          idx.get() + call, std::int64_t(x.size())));
    TCR_CHECK_CUDA(cudaDeviceSynchronize());
    const auto v = out.download();
    const auto i = idx.download();
    CHECK(i[0] == i[1]);
    CHECK(std::memcmp(&v[0], &v[1], sizeof(float)) == 0);
    REQUIRE(i[0] >= 0);
    REQUIRE(i[0] < std::int64_t(x.size()));
    CHECK(std::memcmp(&v[0], &x[i[0]], sizeof(float)) == 0); // the value at the index written
  }
}

TEST_CASE("bad input to the CUB-surface entry points: cudaErrorInvalidValue, nothing launched") {
  const float* in = reinterpret_cast<const float*>(std::uintptr_t(0x10000));
  float* out = reinterpret_cast<float*>(std::uintptr_t(0x20000));
  std::int64_t* idx = reinterpret_cast<std::int64_t*>(std::uintptr_t(0x30000));
  void* temp = reinterpret_cast<void*>(std::uintptr_t(0x40000));
  std::size_t bytes = 0;
  REQUIRE(DeviceReduce::ArgMin(nullptr, bytes, in, out, idx, std::int64_t(100)) == cudaSuccess);
  std::size_t b = bytes;
  CHECK(DeviceReduce::ArgMin(temp, b, in, out, static_cast<std::int64_t*>(nullptr),
                             std::int64_t(100)) == cudaErrorInvalidValue);
  CHECK(DeviceReduce::ArgMin(temp, b, in, static_cast<float*>(nullptr), idx, std::int64_t(100)) ==
        cudaErrorInvalidValue);
  CHECK(DeviceReduce::ArgMax(temp, b, static_cast<const float*>(nullptr), out, idx,
                             std::int64_t(100)) == cudaErrorInvalidValue);
  CHECK(DeviceReduce::ArgMin(temp, b, in, out, idx + 0, std::int64_t(-1)) == cudaErrorInvalidValue);
  CHECK(DeviceReduce::ArgMin(temp, b, in, out, reinterpret_cast<std::int64_t*>(0x30004),
                             std::int64_t(100)) == cudaErrorInvalidValue); // misaligned
  REQUIRE(DeviceReduce::Min(nullptr, bytes, in, out, 100) == cudaSuccess);
  b = bytes;
  CHECK(DeviceReduce::Min(temp, b, static_cast<const float*>(nullptr), out, 100) ==
        cudaErrorInvalidValue);
  CHECK(DeviceReduce::Max(temp, b, in, reinterpret_cast<float*>(0x20002), 100) ==
        cudaErrorInvalidValue); // misaligned output
  std::size_t small = bytes - 1;
  CHECK(DeviceReduce::Max(temp, small, in, out, 100) == cudaErrorInvalidValue);
  REQUIRE(DeviceReduce::TransformReduce(nullptr, bytes, in, out, 100, cuda::std::plus<float>{},
                                        cuda::std::negate<float>{}, 0.f) == cudaSuccess);
  b = bytes;
  CHECK(DeviceReduce::TransformReduce(temp, b, static_cast<const float*>(nullptr), out, 100,
                                      cuda::std::plus<float>{}, cuda::std::negate<float>{},
                                      0.f) == cudaErrorInvalidValue);
  // Iterator inputs run on the CUDA cores: a forced tensor-core engine is not supported (the same
  // half data through a pointer has a tensor-core path in Accuracy::fast).
  const auto it =
      thrust::make_transform_iterator(reinterpret_cast<const __half*>(0x10000), half_identity{});
  const tcr::ReduceOptions tc{tcr::Accuracy::fast, tcr::Engine::tensor_core};
  CHECK(DeviceReduce::Sum(nullptr, bytes, it, out, 100, 0, tc) == cudaErrorNotSupported);
}
