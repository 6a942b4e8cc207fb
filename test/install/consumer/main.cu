// Uses tcr through the installed package: a compensated block sum in a user kernel.
#include <compensated/accumulators.cuh>
#include <reduce/block.cuh>
#include <cstdio>

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
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("consumer built; no CUDA device to run on\n");
    return 0;
  }
  float* d = nullptr;
  cudaMalloc(&d, 129 * sizeof(float));
  float h[128];
  // 2^25, 1, -2^25, 1, ...: exact sum 64; a plain float sum in this order loses every 1.
  for (int i = 0; i < 128; ++i)
    h[i] = i % 2 ? 1.0f : (i % 4 ? -33554432.0f : 33554432.0f);
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  block_sum<<<1, 128>>>(d, d + 128);
  float r = 0;
  cudaMemcpy(&r, d + 128, sizeof r, cudaMemcpyDeviceToHost);
  cudaFree(d);
  std::printf("consumer: sum = %g (exact 64)\n", r);
  return r == 64.0f ? 0 : 1;
}
