// SPDX-License-Identifier: BSD-3-Clause
// Uses tcr as an outside project does, through the tcr/ include prefix: a compensated block sum
// in a user kernel and a device-wide Sum, on data whose plain float sum loses every small term.
#include <tcr/reduce/device.cuh>
#include <tcr/tcr.cuh>
#include <cstdio>

static_assert(TCR_VERSION >= 1000, "tcr 0.1.0 or newer");

__global__ void block_sum(const float* in, float* out) {
  using BlockReduce = tcr::BlockReduce<tcr::neumaier<float>, 128>;
  __shared__ BlockReduce::TempStorage s_reduce;
  tcr::neumaier<float> acc;
  acc.add(in[threadIdx.x]);
  const auto total = BlockReduce(s_reduce).Sum(acc);
  if (threadIdx.x == 0)
    *out = total.result();
}

int main() {
  std::printf("consumer: tcr %d.%d.%d\n", TCR_VERSION_MAJOR, TCR_VERSION_MINOR, TCR_VERSION_PATCH);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("consumer built; no CUDA device to run on\n");
    return 0;
  }
  float* d = nullptr;
  if (cudaMalloc(&d, 130 * sizeof(float)) != cudaSuccess)
    return 1;
  float h[128];
  // 2^25, 1, -2^25, 1, ...: exact sum 64; a plain float sum in this order loses every 1.
  for (int i = 0; i < 128; ++i)
    h[i] = i % 2 ? 1.0f : (i % 4 ? -33554432.0f : 33554432.0f);
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  block_sum<<<1, 128>>>(d, d + 128);
  const cudaError_t err = tcr::DeviceReduce::Sum(d, d + 129, 128);
  float r[2] = {0, 0};
  cudaMemcpy(r, d + 128, sizeof r, cudaMemcpyDeviceToHost);
  cudaFree(d);
  std::printf("consumer: block sum = %g, device sum = %g (exact 64; %s)\n", r[0], r[1],
              cudaGetErrorString(err));
  return err == cudaSuccess && r[0] == 64.0f && r[1] == 64.0f ? 0 : 1;
}
