// SPDX-License-Identifier: BSD-3-Clause
// Runs the README's device-level example on data whose plain float sum is far off.
#include <cstdint>
#include <cstdio>
#include <vector>

cudaError_t accurate_sum(const float* d_in, float* d_out, std::int64_t n, cudaStream_t stream);

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("SKIP: no CUDA device\n");
    return 77;
  }
  // 2^24, then 2^20 ones, then -2^24: the exact sum is 2^20; a float loop in order gives 0.
  const std::int64_t n = (1 << 20) + 2;
  std::vector<float> h(n, 1.0f);
  h.front() = 16777216.0f;
  h.back() = -16777216.0f;
  float *d_in = nullptr, *d_out = nullptr;
  cudaMalloc(&d_in, n * sizeof(float));
  cudaMalloc(&d_out, sizeof(float));
  cudaMemcpy(d_in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaError_t err = accurate_sum(d_in, d_out, n, 0);
  float r = 0;
  if (err == cudaSuccess)
    err = cudaMemcpy(&r, d_out, sizeof r, cudaMemcpyDeviceToHost);
  cudaFree(d_in);
  cudaFree(d_out);
  if (err != cudaSuccess) {
    std::printf("CUDA error: %s\n", cudaGetErrorString(err));
    return 1;
  }
  std::printf("sum = %.1f (exact %d)\n", r, 1 << 20);
  return r == float(1 << 20) ? 0 : 1;
}
