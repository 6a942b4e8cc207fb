// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 The tcr authors
//
// Header hygiene: instantiates the public device and block API for a few representative cases,
// so that warnings in template code (which a bare #include never instantiates) fail the build
// (compiled with nvcc --Werror all-warnings and -Wall -Wextra -Werror on the host side; see
// test/headers/CMakeLists.txt). Compiled only, never run.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <tcr/tcr.cuh>

namespace {

struct max_op {
  __host__ __device__ float operator()(float a, float b) const { return a < b ? b : a; }
};

__global__ void block_sum(const float* g_in, float* g_out) {
  using BR = tcr::BlockReduce<tcr::neumaier<float>, 256>;
  __shared__ BR::TempStorage s_reduce;
  tcr::neumaier<float> r_acc;
  r_acc.add(g_in[blockIdx.x * 256 + threadIdx.x]);
  const tcr::neumaier<float> total = BR(s_reduce).Sum(r_acc);
  if (threadIdx.x == 0)
    g_out[blockIdx.x] = total.result();
}

// A random-access iterator of the user's own (no get(): read one element at a time): x_i * 2.
struct doubled {
  using iterator_category = std::random_access_iterator_tag;
  using value_type = float;
  using difference_type = std::ptrdiff_t;
  using pointer = const float*;
  using reference = float;
  const float* p;
  __host__ __device__ float operator[](std::ptrdiff_t i) const { return 2.0f * p[i]; }
};

struct square_op {
  __host__ __device__ float operator()(float x) const { return x * x; }
};

} // namespace

// Every call through the two-phase form (size query and run share one code path) plus one
// single-call overload; the results only matter to the compiler.
cudaError_t tcr_header_check_device_api(void* d_temp, std::size_t& temp_bytes, const __half* d_h,
                                        const float* d_f, const double* d_d,
                                        const __nv_fp8_e4m3* d_e4m3, float* d_out_f,
                                        double* d_out_d, std::int64_t n, cudaStream_t stream) {
  const tcr::ReduceOptions fast_tc{tcr::Accuracy::fast, tcr::Engine::tensor_core};
  cudaError_t err = tcr::DeviceReduce::Sum(d_temp, temp_bytes, d_h, d_out_f, n, stream, fast_tc);
  if (err == cudaSuccess)
    err = tcr::DeviceReduce::Sum(d_temp, temp_bytes, d_f, d_out_f, n, stream);
  if (err == cudaSuccess)
    err = tcr::DeviceReduce::Sum(d_temp, temp_bytes, d_d, d_out_d, n, stream);
  if (err == cudaSuccess)
    err = tcr::DeviceReduce::Sum(d_f, d_out_f, n, stream); // allocates stream-ordered
  if (err == cudaSuccess)
    err = tcr::DeviceReduce::Dot(d_temp, temp_bytes, d_f, d_f, d_out_f, n, stream);
  if (err == cudaSuccess)
    err = tcr::DeviceReduce::Nrm2(d_temp, temp_bytes, d_d, d_out_d, n, stream);
  if (err == cudaSuccess)
    err = tcr::DeviceReduce::Asum(d_temp, temp_bytes, d_e4m3, d_out_f, n, stream);
  if (err == cudaSuccess)
    err = tcr::DeviceReduce::Reduce(d_temp, temp_bytes, d_f, d_out_f, n, max_op{}, -1.0f, stream);
  // num_items of any integer type, as CUB takes it.
  if (err == cudaSuccess)
    err = tcr::DeviceReduce::Sum(d_temp, temp_bytes, d_f, d_out_f, static_cast<int>(n), stream);
  if (err == cudaSuccess)
    err = tcr::DeviceReduce::Sum(d_temp, temp_bytes, d_f, d_out_f, static_cast<std::size_t>(n));
  if (err == cudaSuccess)
    err = tcr::DeviceReduce::Dot(d_f, d_f, d_out_f, static_cast<unsigned>(n), stream);
  if (err == cudaSuccess)
    err = tcr::DeviceReduce::Reduce(d_f, d_out_f, static_cast<long>(n), max_op{}, -1.0f, stream);
  // CUB's wider surface: iterators, extrema, TransformReduce, integer inputs, half results.
  std::int64_t* d_index = reinterpret_cast<std::int64_t*>(d_out_d);
  if (err == cudaSuccess)
    err = tcr::DeviceReduce::Sum(d_temp, temp_bytes, doubled{d_f}, d_out_f, n, stream);
  if (err == cudaSuccess)
    err = tcr::DeviceReduce::Dot(d_temp, temp_bytes, doubled{d_f}, d_h, d_out_d, n, stream);
  if (err == cudaSuccess)
    err = tcr::DeviceReduce::Min(d_temp, temp_bytes, d_h, reinterpret_cast<__half*>(d_out_f), n);
  if (err == cudaSuccess)
    err = tcr::DeviceReduce::ArgMax(d_temp, temp_bytes, d_d, d_out_d, d_index, n, stream);
  if (err == cudaSuccess)
    err = tcr::DeviceReduce::ArgMin(d_temp, temp_bytes, d_f,
                                    reinterpret_cast<tcr::KeyValuePair<int, float>*>(d_out_d),
                                    static_cast<int>(n), stream);
  if (err == cudaSuccess)
    err = tcr::DeviceReduce::TransformReduce(d_temp, temp_bytes, d_f, d_out_f, n, max_op{},
                                             square_op{}, 0.0f, stream);
  if (err == cudaSuccess)
    err = tcr::DeviceReduce::Sum(d_temp, temp_bytes, reinterpret_cast<const int*>(d_f), d_index, n,
                                 stream);
  if (err == cudaSuccess)
    err = tcr::DeviceReduce::Asum(d_temp, temp_bytes, reinterpret_cast<const std::int8_t*>(d_f),
                                  d_out_d, n, stream);
  if (err == cudaSuccess)
    err = tcr::DeviceReduce::Sum(d_temp, temp_bytes, d_f, reinterpret_cast<__half*>(d_out_f), n,
                                 stream);
  if (err == cudaSuccess)
    err = tcr::DeviceReduce::Nrm2(d_temp, temp_bytes, d_d,
                                  reinterpret_cast<__nv_bfloat16*>(d_out_f), n, stream);
  // Certified results: value and error bound (compensated and exact paths; the double machinery).
  if (err == cudaSuccess)
    err = tcr::DeviceReduce::Sum(d_temp, temp_bytes, d_f,
                                 reinterpret_cast<tcr::certified<float>*>(d_out_f), n, stream);
  if (err == cudaSuccess)
    err = tcr::DeviceReduce::Dot(d_temp, temp_bytes, d_d, d_d,
                                 reinterpret_cast<tcr::certified<double>*>(d_out_d), n, stream);
  if (err == cudaSuccess) {
    block_sum<<<1, 256, 0, stream>>>(d_f, d_out_f);
    err = cudaGetLastError();
  }
  return err;
}
