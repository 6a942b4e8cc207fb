// SPDX-License-Identifier: BSD-3-Clause
// tcr block-level benchmark: main. The kernels and what they measure: bench/block_bench.cuh;
// one translation unit per input type (block_bench_<type>.cu) registers its benchmarks.
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <cstdio>

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("SKIP: no CUDA device\n");
    return 0;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
