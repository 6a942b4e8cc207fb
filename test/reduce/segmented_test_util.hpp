// SPDX-License-Identifier: BSD-3-Clause
// tcr tests for reduce/segmented.cuh: segment layouts, the calls in both forms (offsets and fixed
// size), and the per-segment check of the proven bounds (reduce/device_check.hpp).
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>
#include <tcr/reduce/segmented.cuh>
#include "reduce/device_test_util.hpp"

namespace tcr::test {

// Segments of one array as begin / end offsets; `total` elements in the array.
struct segment_layout {
  std::vector<std::int64_t> begin, end;
  std::size_t total = 0;
  std::int64_t count() const { return static_cast<std::int64_t>(begin.size()); }
  std::int64_t length(std::size_t s) const { return end[s] > begin[s] ? end[s] - begin[s] : 0; }
};

// Consecutive segments of the given lengths, `gap` elements that belong to no segment before
// each one (gap > 0 also moves the segments' starts off 16-byte boundaries).
inline segment_layout consecutive(const std::vector<std::int64_t>& lengths, std::int64_t gap = 0) {
  segment_layout l;
  std::int64_t at = 0;
  for (std::int64_t n : lengths) {
    at += gap;
    l.begin.push_back(at);
    l.end.push_back(at + n);
    at += n;
  }
  l.total = static_cast<std::size_t>(at + gap);
  return l;
}

// Every length 0..70, then longer ones (both sides of the warp / block threshold of 4096).
inline std::vector<std::int64_t> sweep_lengths() {
  std::vector<std::int64_t> v;
  for (std::int64_t n = 0; n <= 70; ++n)
    v.push_back(n);
  for (std::int64_t n : {1000, 4095, 4096, 4097, 5000, 70000})
    v.push_back(n);
  return v;
}

// Lengths from a power law on [1, max_length] (density ~ 1 / length: log2 of the length
// uniform), until about `total` elements; some empty segments in between.
inline std::vector<std::int64_t> power_law_lengths(std::size_t total, std::int64_t max_length,
                                                   std::uint64_t seed) {
  rng64 rng(seed);
  std::vector<std::int64_t> v;
  std::size_t sum = 0;
  const double top = std::log2(static_cast<double>(max_length));
  while (sum < total) {
    std::int64_t n = static_cast<std::int64_t>(std::exp2(rng.uniform() * top));
    if (rng.integer(0, 15) == 0)
      n = 0;
    v.push_back(n);
    sum += static_cast<std::size_t>(n);
  }
  return v;
}

// Values of T for the layout: each segment's values from gen(length, segment index) (doubles,
// rounded to T), NaN in the gaps (a read outside the segments poisons a result).
template <class T, class Gen>
typed_data<T> segment_data(const segment_layout& l, Gen&& gen) {
  std::vector<double> v(l.total, std::nan(""));
  for (std::size_t s = 0; s < l.begin.size(); ++s) {
    const std::vector<double> part = gen(static_cast<std::size_t>(l.length(s)), s);
    for (std::size_t i = 0; i < part.size(); ++i)
      v[static_cast<std::size_t>(l.begin[s]) + i] = part[i];
  }
  return typed_data<T>(v);
}

// Random values of T per segment (magnitudes 2^[-8, 8]).
template <class T>
typed_data<T> random_segments(const segment_layout& l, std::uint64_t seed) {
  return segment_data<T>(l, [&](std::size_t n, std::size_t s) {
    const auto r = typed_random<T>(n, seed * 1000003 + s);
    return r.d;
  });
}

// o in the offsets form.
template <class InX, class InY, class Out, class Off>
cudaError_t segmented_call(op o, void* temp, std::size_t& bytes, const InX* x, const InY* y,
                           Out* out, std::int64_t num, const Off* begin, const Off* end,
                           cudaStream_t stream = 0, ReduceOptions opt = {}) {
  using DSR = DeviceSegmentedReduce;
  switch (o) {
  case op::sum:
    return DSR::Sum(temp, bytes, x, out, num, begin, end, stream, opt);
  case op::asum:
    return DSR::Asum(temp, bytes, x, out, num, begin, end, stream, opt);
  case op::dot:
    return DSR::Dot(temp, bytes, x, y, out, num, begin, end, stream, opt);
  default:
    if constexpr (std::is_integral_v<InX>)
      return cudaErrorInvalidValue; // no Nrm2 of integers
    else
      return DSR::Nrm2(temp, bytes, x, out, num, begin, end, stream, opt);
  }
}

// o in the fixed-size form.
template <class InX, class InY, class Out>
cudaError_t segmented_call_fixed(op o, void* temp, std::size_t& bytes, const InX* x, const InY* y,
                                 Out* out, std::int64_t num, int size, cudaStream_t stream = 0,
                                 ReduceOptions opt = {}) {
  using DSR = DeviceSegmentedReduce;
  switch (o) {
  case op::sum:
    return DSR::Sum(temp, bytes, x, out, num, size, stream, opt);
  case op::asum:
    return DSR::Asum(temp, bytes, x, out, num, size, stream, opt);
  case op::dot:
    return DSR::Dot(temp, bytes, x, y, out, num, size, stream, opt);
  default:
    if constexpr (std::is_integral_v<InX>)
      return cudaErrorInvalidValue; // no Nrm2 of integers
    else
      return DSR::Nrm2(temp, bytes, x, out, num, size, stream, opt);
  }
}

// Runs o over the layout's segments of device data (offsets form, 64-bit offsets) and returns
// the results; the output buffer starts filled with 0xff bytes (a result never written shows).
template <class Out, class InX, class InY>
std::vector<Out> run_segmented(op o, const InX* dx, const InY* dy, const segment_layout& l,
                               ReduceOptions opt = {}) {
  device_buffer<std::int64_t> d_begin(l.begin), d_end(l.end);
  device_buffer<Out> out(l.begin.size());
  if (out.size())
    TCR_CHECK_CUDA(cudaMemset(out.get(), 0xff, out.size() * sizeof(Out)));
  std::size_t bytes = 0;
  TCR_CHECK_CUDA(segmented_call(o, nullptr, bytes, dx, dy, out.get(), l.count(),
                                static_cast<const std::int64_t*>(d_begin.get()),
                                static_cast<const std::int64_t*>(d_end.get()), 0, opt));
  temp_storage temp(bytes);
  TCR_CHECK_CUDA(segmented_call(o, temp.get(), bytes, dx, dy, out.get(), l.count(),
                                static_cast<const std::int64_t*>(d_begin.get()),
                                static_cast<const std::int64_t*>(d_end.get()), 0, opt));
  TCR_CHECK_CUDA(cudaDeviceSynchronize());
  return out.download();
}

// The same in the fixed-size form: num segments of `size` elements from dx (and dy).
template <class Out, class InX, class InY>
std::vector<Out> run_segmented_fixed(op o, const InX* dx, const InY* dy, std::int64_t num, int size,
                                     ReduceOptions opt = {}) {
  device_buffer<Out> out(static_cast<std::size_t>(num));
  if (out.size())
    TCR_CHECK_CUDA(cudaMemset(out.get(), 0xff, out.size() * sizeof(Out)));
  std::size_t bytes = 0;
  TCR_CHECK_CUDA(segmented_call_fixed(o, nullptr, bytes, dx, dy, out.get(), num, size, 0, opt));
  temp_storage temp(bytes);
  TCR_CHECK_CUDA(segmented_call_fixed(o, temp.get(), bytes, dx, dy, out.get(), num, size, 0, opt));
  TCR_CHECK_CUDA(cudaDeviceSynchronize());
  return out.download();
}

// The elements of segment s of the layout.
inline std::vector<double> segment_of(const std::vector<double>& v, const segment_layout& l,
                                      std::size_t s) {
  const auto b = v.begin() + l.begin[s];
  return std::vector<double>(b, b + l.length(s));
}

// Checks every segment's result against o's contract (check_contract); empty segments must
// hold +0 exactly.
template <class Out>
void check_segments(op o, const std::vector<Out>& res, const std::vector<double>& x,
                    const std::vector<double>& y, const segment_layout& l, bool narrow) {
  REQUIRE(res.size() == l.begin.size());
  for (std::size_t s = 0; s < res.size(); ++s) {
    INFO("segment ", s, " of ", res.size(), ": [", l.begin[s], ", ", l.end[s], ")");
    const double r = static_cast<double>(res[s]);
    if (l.length(s) == 0) {
      CHECK((r == 0 && !std::signbit(r)));
      continue;
    }
    check_contract<Out>(o, r, segment_of(x, l, s), segment_of(y, l, s), narrow);
  }
}

// The special segments of the exact segmented Sum tests for inputs of type T (values as doubles,
// each exact in T), with their exact sums rounded to T in the comments: `big` is a value whose
// double overflows T (2^127 for float, DBL_MAX for double) and `small` a value far below eps / 2
// (2^-140 for float, 2^-1000 for double), so that 1 + eps / 2 + small lies just above the tie
// 1 + eps / 2. flatten gives their layout (consecutive, no gaps) and their values in one array.
template <class T>
std::vector<std::vector<double>> special_sum_segments(double big, double small) {
  const double inf = std::numeric_limits<double>::infinity();
  const double half_eps = std::numeric_limits<T>::epsilon() / 2;
  const double least = std::numeric_limits<T>::denorm_min();
  return {
      {},                     // +0
      {-0.0, -0.0, -0.0},     // -0
      {-0.0, 0.0},            // +0
      {1.5, -1.5},            // +0
      {1.0, inf, 2.0},        // +inf
      {-inf, 1.0},            // -inf
      {inf, -inf},            // NaN
      {std::nan(""), 1.0},    // NaN
      {3.0, least, -3.0},     // the least subnormal
      {big, big},             // overflow: +inf
      {big, big, -big},       // big, finite although a partial sum is not
      {1.0, half_eps},        // a tie: rounds to even (1)
      {1.0, half_eps, small}, // just above the tie: 1 + eps
  };
}
struct flat_segments {
  segment_layout layout;
  std::vector<double> values;
};
inline flat_segments flatten(const std::vector<std::vector<double>>& segs) {
  std::vector<std::int64_t> lengths;
  flat_segments f;
  for (const auto& sgm : segs) {
    lengths.push_back(static_cast<std::int64_t>(sgm.size()));
    f.values.insert(f.values.end(), sgm.begin(), sgm.end());
  }
  f.layout = consecutive(lengths, 0);
  return f;
}

// Bitwise equality of two result arrays.
template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

} // namespace tcr::test
