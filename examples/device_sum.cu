// SPDX-License-Identifier: BSD-3-Clause
// A drop-in for cub::DeviceReduce::Sum (README example): same arguments, compensated result.
#include <tcr/reduce/device.cuh>

cudaError_t accurate_sum(const float* d_in, float* d_out, std::int64_t n, cudaStream_t stream) {
  std::size_t temp_bytes = 0; // 1. size query, as with CUB
  cudaError_t err = tcr::DeviceReduce::Sum(nullptr, temp_bytes, d_in, d_out, n, stream);
  void* d_temp = nullptr;
  if (err == cudaSuccess)
    err = cudaMallocAsync(&d_temp, temp_bytes, stream);
  // 2. one kernel launch: |result - exact| <= 2^-23 |exact| + 2^-40 sum |x_i|
  if (err == cudaSuccess)
    err = tcr::DeviceReduce::Sum(d_temp, temp_bytes, d_in, d_out, n, stream);
  if (d_temp)
    cudaFreeAsync(d_temp, stream);
  return err;
}
