// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: the transforms the CUB peers reduce with (no CUB here, so that the CUB of the
// toolkit and a newer one can share them): widening to the accumulation type (f32, f64 for f64
// input), |x|, x^2, the product x_i y_i at an index, and num_items as int while it fits (CUB's
// fastest offset type).
#pragma once

#include <climits>
#include <cstdint>
#include "common/registry.hpp"

namespace tcr::bench::peer {

template <class In>
struct widen_op {
  __device__ result_t<In> operator()(In x) const { return static_cast<result_t<In>>(x); }
};

template <class In>
struct abs_op {
  __device__ result_t<In> operator()(In x) const {
    const result_t<In> v = static_cast<result_t<In>>(x);
    return v < 0 ? -v : v;
  }
};

template <class In>
struct square_op {
  __device__ result_t<In> operator()(In x) const {
    const result_t<In> v = static_cast<result_t<In>>(x);
    return v * v;
  }
};

template <class In>
struct product_at {
  const In* x;
  const In* y;
  __device__ result_t<In> operator()(std::int64_t i) const {
    return static_cast<result_t<In>>(x[i]) * static_cast<result_t<In>>(y[i]);
  }
};

// Calls f(num_items) with n as int when it fits, else as int64.
template <class F>
cudaError_t with_offset(std::int64_t n, F&& f) {
  if (n <= INT_MAX)
    return f(static_cast<int>(n));
  return f(n);
}

} // namespace tcr::bench::peer
