// SPDX-License-Identifier: BSD-3-Clause
// Compiled by the ctest tcr_headers_reject_unary_op, which expects DeviceReduce::Reduce's
// static_assert: a one-argument op is a misuse that must cost one readable error.
#include <tcr/reduce/device.cuh>

struct negate_op {
  __host__ __device__ float operator()(float x) const { return -x; }
};

cudaError_t misuse(void* t, std::size_t& b, const float* x, float* out, int n) {
  return tcr::DeviceReduce::Reduce(t, b, x, out, n, negate_op{}, 0.0f);
}
