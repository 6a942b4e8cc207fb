// SPDX-License-Identifier: BSD-3-Clause
// tcr tests: doctest main. GPU cases live in the "gpu" test suite; without a CUDA device they
// are filtered out and reported as skipped (exit code 77 when only they were asked for).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  doctest::Context context;
  context.applyCommandLine(argc, argv);

  bool gpu_only = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--test-suite=gpu") == 0 || std::strcmp(argv[i], "-ts=gpu") == 0)
      gpu_only = true;
  }

  int devices = 0;
  const cudaError_t err = cudaGetDeviceCount(&devices);
  if (err != cudaSuccess || devices == 0) {
    std::printf("SKIP: no CUDA device (%s)\n",
                err != cudaSuccess ? cudaGetErrorString(err) : "cudaGetDeviceCount returned 0");
    if (gpu_only)
      return 77;
    context.addFilter("test-suite-exclude", "gpu");
  } else {
    cudaDeviceProp prop{};
    cudaGetDeviceProperties(&prop, 0);
    std::printf("CUDA device 0: %s (sm_%d%d, %d SMs)\n", prop.name, prop.major, prop.minor,
                prop.multiProcessorCount);
  }
  return context.run();
}
