// SPDX-License-Identifier: BSD-3-Clause
// Tests for tcr::DeviceSegmentedReduce's segments of several chunks (more than 16384 vectors of
// 16 bytes, or 16384 elements read one at a time), whose chunks the grid shares: every segment
// meets its proven bound (exact references); a segment gives the same bits whether the grid
// shared its chunks or one block took it alone (when the share entries or the pool run out), in
// the offsets and the fixed-size forms; chunk boundaries; one segment of 2^25 elements.
#include <doctest/doctest.h>

#include <thrust/iterator/transform_iterator.h>
#include <cstdint>
#include <cstring>
#include <vector>
#include "reduce/segmented_test_util.hpp"

namespace {

using namespace tcr::test;

constexpr std::int64_t chunk_f32 = std::int64_t(1) << 16;  // 16384 vectors of 4 floats
constexpr std::int64_t chunk_f64 = std::int64_t(1) << 15;  // of 2 doubles
constexpr std::int64_t chunk_iter = std::int64_t(1) << 14; // elements read one at a time

struct identity {
  __host__ __device__ float operator()(float v) const { return v; }
};

// `count` segments that are all the same range [at, at + n) of the buffer: more segments of
// several chunks than the grid has share entries (2048) or pool slots (16384 chunks), so some
// are shared and some taken alone, in an order that depends on timing.
segment_layout same_range(std::int64_t count, std::int64_t at, std::int64_t n) {
  segment_layout l;
  l.begin.assign(static_cast<std::size_t>(count), at);
  l.end.assign(static_cast<std::size_t>(count), at + n);
  l.total = static_cast<std::size_t>(at + n);
  return l;
}

template <class T>
bool all_same_bits(const std::vector<T>& r, const T& v) {
  for (const T& x : r)
    if (std::memcmp(&x, &v, sizeof(T)) != 0)
      return false;
  return true;
}

// o of In into Out over 2100 copies of one segment of `chunks` + a bit chunks: every result has
// the bits of the segment reduced alone, and that result meets the bound.
template <class In, class Out>
void check_copies(op o, std::int64_t chunk, std::uint64_t seed) {
  const std::int64_t n = 11 * chunk + 37;
  INFO("input ", type_name<In>(), ", ", op_name(o), ", n = ", n, ", seed = ", seed);
  const auto x = typed_random<In>(static_cast<std::size_t>(n + 3), seed);
  const auto y = typed_random<In>(static_cast<std::size_t>(n + 3), seed + 1);
  padded_device<In> dx(x.t, 0), dy(y.t, 0);
  const segment_layout one = same_range(1, 3, n);
  const auto r1 = run_segmented<Out>(o, dx.get(), dy.get(), one);
  check_segments<Out>(o, r1, x.d, y.d, one, !std::is_same_v<In, Out>);
  const auto r = run_segmented<Out>(o, dx.get(), dy.get(), same_range(2100, 3, n));
  CHECK(all_same_bits(r, r1[0]));
}

// Sum into double of the layout's segments of x, read through an iterator (one at a time).
std::vector<double> sum_of_iterator(const float* x, const segment_layout& l) {
  const auto it = thrust::make_transform_iterator(x, identity{});
  device_buffer<std::int64_t> d_begin(l.begin), d_end(l.end);
  device_buffer<double> out(l.begin.size());
  TCR_CHECK_CUDA(cudaMemset(out.get(), 0xff, out.size() * sizeof(double)));
  const std::int64_t* b = d_begin.get();
  const std::int64_t* e = d_end.get();
  std::size_t bytes = 0;
  TCR_CHECK_CUDA(tcr::DeviceSegmentedReduce::Sum(nullptr, bytes, it, out.get(), l.count(), b, e));
  temp_storage temp(bytes);
  TCR_CHECK_CUDA(
      tcr::DeviceSegmentedReduce::Sum(temp.get(), bytes, it, out.get(), l.count(), b, e));
  TCR_CHECK_CUDA(cudaDeviceSynchronize());
  return out.download();
}

} // namespace

TEST_SUITE("gpu") {
  TEST_CASE("a segment's bits are the same whether the grid shares its chunks or not") {
    check_copies<float, float>(op::sum, chunk_f32, 2000);
    check_copies<float, float>(op::nrm2, chunk_f32, 2001);
    check_copies<float, float>(op::dot, chunk_f32, 2002);
    check_copies<double, double>(op::sum, chunk_f64, 2003);
  }

  TEST_CASE("lengths at chunk boundaries in one call: bounds; offsets and fixed size agree") {
    const std::uint64_t seed = 2100;
    INFO("seed = ", seed);
    std::vector<std::int64_t> lengths;
    for (std::int64_t c : {chunk_iter, chunk_f32})
      for (std::int64_t n : {c - 1, c, c + 1, 2 * c, 2 * c + 1, 3 * c + 5})
        lengths.push_back(n);
    for (std::int64_t n : {0, 1, 33, 5000})
      lengths.push_back(n);
    for (std::int64_t gap : {0, 1}) {
      INFO("gap ", gap);
      const segment_layout l = consecutive(lengths, gap);
      const auto x = random_segments<float>(l, seed + gap);
      const auto y = random_segments<__half>(l, seed + gap + 7);
      padded_device<float> dx(x.t, 0);
      padded_device<__half> dy(y.t, 1);
      for (op o : {op::sum, op::asum, op::nrm2, op::dot}) {
        INFO(op_name(o));
        check_segments<float>(o, run_segmented<float>(o, dx.get(), dy.get(), l), x.d, y.d, l, true);
      }
      // Read one element at a time (chunks of 16384 elements).
      check_segments<double>(op::sum, sum_of_iterator(dx.get(), l), x.d, x.d, l, false);
    }
    for (std::int64_t size : {chunk_f32 + 1, 3 * chunk_f32 + 5}) {
      const std::int64_t num = 5;
      INFO("segment_size ", size);
      const segment_layout l = consecutive(std::vector<std::int64_t>(num, size));
      const auto x = random_segments<float>(l, seed + 10);
      const auto y = random_segments<float>(l, seed + 11);
      padded_device<float> dx(x.t, 1), dy(y.t, 1);
      for (op o : {op::sum, op::dot}) {
        INFO(op_name(o));
        const auto a = run_segmented<float>(o, dx.get(), dy.get(), l);
        const auto b =
            run_segmented_fixed<float>(o, dx.get(), dy.get(), num, static_cast<int>(size));
        CHECK(same_bits(a, b));
        check_segments<float>(o, b, x.d, y.d, l, true);
      }
    }
  }

  TEST_CASE("one segment of 2^25 elements among short ones meets the float bound (large)") {
    const std::uint64_t seed = 2200;
    INFO("seed = ", seed);
    const segment_layout l = consecutive({5, std::int64_t(1) << 25, 70, 100000}, 1);
    const auto x = random_segments<float>(l, seed);
    padded_device<float> dx(x.t, 0);
    for (op o : {op::sum, op::asum, op::nrm2}) {
      INFO(op_name(o));
      const auto r = run_segmented<float>(o, dx.get(), dx.get(), l);
      check_segments<float>(o, r, x.d, x.d, l, true);
      CHECK(same_bits(r, run_segmented<float>(o, dx.get(), dx.get(), l)));
    }
  }
}
