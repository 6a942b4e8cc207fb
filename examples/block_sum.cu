// SPDX-License-Identifier: BSD-3-Clause
// A compensated block sum inside a user kernel (README example).
#include <tcr/compensated/accumulators.cuh>
#include <tcr/reduce/block.cuh>

constexpr int threads = 256;
using BlockSum = tcr::BlockReduce<tcr::neumaier<float>, threads>;

__global__ void row_sums(const float* g_in, float* g_out, int cols) {
  __shared__ BlockSum::TempStorage s_reduce;
  tcr::neumaier<float> acc; // per-thread Sum2 accumulator
  for (int c = threadIdx.x; c < cols; c += threads)
    acc.add(g_in[blockIdx.x * cols + c]);
  const tcr::neumaier<float> row = BlockSum(s_reduce).Sum(acc); // every thread gets it
  if (threadIdx.x == 0)
    g_out[blockIdx.x] = row.result();
}
