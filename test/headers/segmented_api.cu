// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 The tcr authors
//
// Header hygiene: instantiates tcr::DeviceSegmentedReduce for a few representative cases (both
// forms, both machineries, integers, extrema, Reduce, an iterator of the user's own), so that
// warnings in its template code fail the build (the flags of test/headers/CMakeLists.txt).
// Compiled only, never run.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <tcr/compensated/accumulators.cuh>
#include <tcr/reduce/block_segmented.cuh>
#include <tcr/reduce/segmented.cuh>

namespace {

struct min_op {
  __host__ __device__ float operator()(float a, float b) const { return b < a ? b : a; }
};

// A random-access iterator with operator[] only: x_i / 2.
struct halved {
  using iterator_category = std::random_access_iterator_tag;
  using value_type = float;
  using difference_type = std::ptrdiff_t;
  using pointer = const float*;
  using reference = float;
  const float* p;
  __host__ __device__ float operator[](std::ptrdiff_t i) const { return 0.5f * p[i]; }
};

// BlockSegmentedReduce: teams of 8 and of 64 threads in a block of 128.
__global__ void team_sums(const float* g_in, float* g_out) {
  using Small = tcr::BlockSegmentedReduce<tcr::neumaier<float>, 128, 8>;
  using Large = tcr::BlockSegmentedReduce<tcr::dot2<float>, 128, 64>; // Dot: a dot accumulator
  __shared__ typename Small::TempStorage s_small;
  __shared__ typename Large::TempStorage s_large;
  const float x[2] = {g_in[2 * threadIdx.x], g_in[2 * threadIdx.x + 1]};
  const float a = static_cast<float>(tcr::result(Small(s_small).Sum(x, 9)));
  const float b = static_cast<float>(tcr::result(Large(s_large).Dot(x, x)));
  g_out[threadIdx.x] = a + b;
}

} // namespace

cudaError_t tcr_header_check_segmented_api(void* d_temp, std::size_t& temp_bytes, const __half* d_h,
                                           const float* d_f, const double* d_d,
                                           const __nv_fp8_e4m3* d_e4m3, float* d_out_f,
                                           double* d_out_d, const int* d_off, std::int64_t n,
                                           int size, cudaStream_t stream) {
  using DSR = tcr::DeviceSegmentedReduce;
  const int* b = d_off;
  const int* e = d_off + 1;
  cudaError_t err = DSR::Sum(d_temp, temp_bytes, d_f, d_out_f, n, b, e, stream);
  if (err == cudaSuccess)
    err = DSR::Sum(d_temp, temp_bytes, d_h, d_out_f, n, size, stream);
  if (err == cudaSuccess)
    err = DSR::Dot(d_temp, temp_bytes, d_h, d_f, d_out_d, n, b, e, stream);
  if (err == cudaSuccess)
    err = DSR::Nrm2(d_temp, temp_bytes, d_d, d_out_d, n, size, stream);
  if (err == cudaSuccess)
    err = DSR::Asum(d_temp, temp_bytes, d_e4m3, d_out_f, n, b, e, stream);
  if (err == cudaSuccess)
    err = DSR::Sum(d_temp, temp_bytes, d_d, reinterpret_cast<tcr::dd*>(d_out_d), n, b, e, stream);
  if (err == cudaSuccess)
    err = DSR::Sum(d_temp, temp_bytes, halved{d_f}, d_out_f, n, b, e, stream);
  if (err == cudaSuccess)
    err = DSR::Sum(d_temp, temp_bytes, reinterpret_cast<const int*>(d_f),
                   reinterpret_cast<long long*>(d_out_d), n, size, stream);
  if (err == cudaSuccess)
    err = DSR::Reduce(d_temp, temp_bytes, d_f, d_out_f, n, b, e, min_op{}, 1.0f, stream);
  if (err == cudaSuccess)
    err = DSR::Max(d_temp, temp_bytes, d_h, reinterpret_cast<__half*>(d_out_f), n, size, stream);
  if (err == cudaSuccess)
    err = DSR::ArgMin(d_temp, temp_bytes, d_f,
                      reinterpret_cast<tcr::KeyValuePair<int, float>*>(d_out_d), n, b, e, stream);
  if (err == cudaSuccess) {
    team_sums<<<1, 128, 0, stream>>>(d_f, d_out_f);
    err = cudaPeekAtLastError();
  }
  return err;
}
