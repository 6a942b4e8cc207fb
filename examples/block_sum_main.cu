// SPDX-License-Identifier: BSD-3-Clause
// Runs the README's block-level example and checks it against an exact host sum.
#include <cstdio>
#include <vector>

__global__ void row_sums(const float* g_in, float* g_out, int cols);

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("SKIP: no CUDA device\n");
    return 77;
  }
  const int rows = 4, cols = 100000;
  std::vector<float> h(rows * cols);
  // Row r: 2^24 followed by ones and a final -2^24: the exact sum is cols - 2, which a plain
  // float loop (2^24 + 1 == 2^24) gets wrong.
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c)
      h[r * cols + c] = 1.0f;
    h[r * cols] = 16777216.0f;
    h[r * cols + cols - 1] = -16777216.0f;
  }
  float *d_in = nullptr, *d_out = nullptr;
  cudaMalloc(&d_in, h.size() * sizeof(float));
  cudaMalloc(&d_out, rows * sizeof(float));
  cudaMemcpy(d_in, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice);
  row_sums<<<rows, 256>>>(d_in, d_out, cols);
  std::vector<float> out(rows);
  const cudaError_t err =
      cudaMemcpy(out.data(), d_out, rows * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(d_in);
  cudaFree(d_out);
  if (err != cudaSuccess) {
    std::printf("CUDA error: %s\n", cudaGetErrorString(err));
    return 1;
  }
  int bad = 0;
  for (int r = 0; r < rows; ++r) {
    std::printf("row %d: %.1f (exact %d)\n", r, out[r], cols - 2);
    bad += out[r] != float(cols - 2);
  }
  return bad ? 1 : 0;
}
