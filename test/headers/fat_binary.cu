// SPDX-License-Identifier: BSD-3-Clause
// Built for a fat binary of sm_75 and sm_90 (test/headers/CMakeLists.txt): every device-wide
// entry point, the tensor-core engines included, must compile for an architecture without the
// m16n8k16 MMAs (the host chooses the CUDA cores there at run time).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <tcr/reduce/batched.cuh>
#include <tcr/reduce/device.cuh>
#include <tcr/reduce/segmented.cuh>

namespace {
constexpr tcr::ReduceOptions fast_tc{tcr::Accuracy::fast, tcr::Engine::tensor_core};
constexpr tcr::ReduceOptions comp_tc{tcr::Accuracy::compensated, tcr::Engine::tensor_core};
} // namespace

cudaError_t fat_binary_calls(void* temp, std::size_t& bytes, const void* x, float* out,
                             double* out_d, long long n, cudaStream_t s) {
  cudaError_t e = cudaSuccess;
  const auto* h = static_cast<const __half*>(x);
  const auto* b = static_cast<const __nv_bfloat16*>(x);
  const auto* e4 = static_cast<const __nv_fp8_e4m3*>(x);
  const auto* e5 = static_cast<const __nv_fp8_e5m2*>(x);
  const auto* f = static_cast<const float*>(x);
  e = e != cudaSuccess ? e : tcr::DeviceReduce::Sum(temp, bytes, h, out, n, s, fast_tc);
  e = e != cudaSuccess ? e : tcr::DeviceReduce::Asum(temp, bytes, b, out, n, s, fast_tc);
  e = e != cudaSuccess ? e : tcr::DeviceReduce::Sum(temp, bytes, e4, out, n, s, comp_tc);
  e = e != cudaSuccess ? e : tcr::DeviceReduce::Sum(temp, bytes, e5, out_d, n, s, comp_tc);
  e = e != cudaSuccess ? e : tcr::DeviceReduce::Dot(temp, bytes, f, h, out, n, s);
  e = e != cudaSuccess ? e : tcr::DeviceReduce::Nrm2(temp, bytes, f, out_d, n, s);
  // The segmented kernel (warp ballots and reductions) and the batched calls built on it.
  const auto* offsets = static_cast<const int*>(x);
  e = e != cudaSuccess
          ? e
          : tcr::DeviceSegmentedReduce::Sum(temp, bytes, h, out, n, offsets, offsets + 1, s);
  e = e != cudaSuccess ? e : tcr::DeviceSegmentedReduce::Sum(temp, bytes, f, out_d, n, 64, s);
  e = e != cudaSuccess ? e
                       : tcr::DeviceBatchedReduce::Dot(temp, bytes, f, 1, n, f, 1, n, out, n, n, s);
  return e;
}
