// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: CUB as a peer. cub::DeviceReduce accumulating in f32 (f64 for f64 input):
// Sum where the input is the accumulator type, TransformReduce with a widening transform for
// narrower inputs (Sum of __half would accumulate in __half), and for dot / nrm2 / asum, which
// CUB does not have, TransformReduce with the product, square or |x| as the transform.
// num_items is passed as int (CUB's fastest offset type) while n fits.
#pragma once

#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>
#include <thrust/iterator/counting_iterator.h>
#include <climits>
#include <cstdint>
#include "common/peer_ops.hpp"
#include "common/registry.hpp"

namespace tcr::bench::cub_peer {

using peer::abs_op;
using peer::product_at;
using peer::square_op;
using peer::widen_op;
using peer::with_offset;

template <class In>
cudaError_t sum(void* temp, std::size_t& bytes, const call_args& a) {
  using Out = result_t<In>;
  const auto* x = static_cast<const In*>(a.x);
  auto* out = static_cast<Out*>(a.out);
  return with_offset(a.n, [&](auto n) {
    if constexpr (std::is_same_v<In, Out>) {
      return cub::DeviceReduce::Sum(temp, bytes, x, out, n, a.stream);
    } else {
      return cub::DeviceReduce::TransformReduce(temp, bytes, x, out, n, ::cuda::std::plus<Out>{},
                                                widen_op<In>{}, Out(0), a.stream);
    }
  });
}

// Reduce with plus<float> and a float init: CUB converts each __half / bf16 item itself.
template <class In>
cudaError_t sum_reduce(void* temp, std::size_t& bytes, const call_args& a) {
  using Out = result_t<In>;
  const auto* x = static_cast<const In*>(a.x);
  auto* out = static_cast<Out*>(a.out);
  return with_offset(a.n, [&](auto n) {
    return cub::DeviceReduce::Reduce(temp, bytes, x, out, n, ::cuda::std::plus<Out>{}, Out(0),
                                     a.stream);
  });
}

template <class In>
cudaError_t asum(void* temp, std::size_t& bytes, const call_args& a) {
  using Out = result_t<In>;
  return with_offset(a.n, [&](auto n) {
    return cub::DeviceReduce::TransformReduce(temp, bytes, static_cast<const In*>(a.x),
                                              static_cast<Out*>(a.out), n, ::cuda::std::plus<Out>{},
                                              abs_op<In>{}, Out(0), a.stream);
  });
}

// The sum of squares; the square root is left out of the timing (the accuracy run takes it).
template <class In>
cudaError_t nrm2_squared(void* temp, std::size_t& bytes, const call_args& a) {
  using Out = result_t<In>;
  return with_offset(a.n, [&](auto n) {
    return cub::DeviceReduce::TransformReduce(temp, bytes, static_cast<const In*>(a.x),
                                              static_cast<Out*>(a.out), n, ::cuda::std::plus<Out>{},
                                              square_op<In>{}, Out(0), a.stream);
  });
}

template <class In>
cudaError_t dot(void* temp, std::size_t& bytes, const call_args& a) {
  using Out = result_t<In>;
  const product_at<In> at{static_cast<const In*>(a.x), static_cast<const In*>(a.y)};
  return with_offset(a.n, [&](auto n) {
    return cub::DeviceReduce::TransformReduce(
        temp, bytes, thrust::counting_iterator<std::int64_t>(0), static_cast<Out*>(a.out), n,
        ::cuda::std::plus<Out>{}, at, Out(0), a.stream);
  });
}

template <class In>
bench_case make(op_kind op, const char* method, const char* note,
                cudaError_t (*f)(void*, std::size_t&, const call_args&), bool squared = false) {
  bench_case c;
  c.op = op;
  c.type = dtype_of<In>();
  c.method = method;
  c.note = note;
  c.squared = squared;
  c.call = f;
  return c;
}

} // namespace tcr::bench::cub_peer
