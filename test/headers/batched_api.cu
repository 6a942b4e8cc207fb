// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 The tcr authors
//
// Header hygiene: instantiates tcr::DeviceBatchedReduce for a few representative cases (pointer
// arrays with lengths and with one length, strided batches on both the vector and the one-by-one
// path, both machineries, integers, an output iterator of the user's own), so that warnings in
// its template code fail the build (the flags of test/headers/CMakeLists.txt). Compiled only,
// never run.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <tcr/reduce/batched.cuh>

namespace {

// An output iterator with operator[] only: stores results as doubles.
struct widening {
  using iterator_category = std::random_access_iterator_tag;
  using value_type = float;
  using difference_type = std::ptrdiff_t;
  using pointer = float*;
  using reference = float&;
  double* p;
  struct proxy {
    double* q;
    __host__ __device__ proxy& operator=(float v) {
      *q = v;
      return *this;
    }
  };
  __host__ __device__ proxy operator[](std::ptrdiff_t i) const { return {p + i}; }
};

} // namespace

cudaError_t tcr_header_check_batched_api(void* d_temp, std::size_t& temp_bytes,
                                         const __half* const* d_h_ptrs,
                                         const float* const* d_f_ptrs, const double* d_d,
                                         const float* d_f, const int* d_i, float* d_out_f,
                                         double* d_out_d, const int* d_lengths, std::int64_t batch,
                                         std::int64_t n, std::int64_t inc, std::int64_t stride,
                                         cudaStream_t stream) {
  using DBR = tcr::DeviceBatchedReduce;
  cudaError_t err = DBR::Sum(d_temp, temp_bytes, d_f_ptrs, d_out_f, batch, d_lengths, stream);
  if (err == cudaSuccess)
    err = DBR::Asum(d_temp, temp_bytes, d_h_ptrs, d_out_d, batch, n, stream);
  if (err == cudaSuccess)
    err = DBR::Dot(d_temp, temp_bytes, d_h_ptrs, d_f_ptrs, d_out_f, batch, d_lengths, stream);
  if (err == cudaSuccess)
    err = DBR::Nrm2(d_temp, temp_bytes, d_f_ptrs, widening{d_out_d}, batch, n, stream);
  if (err == cudaSuccess)
    err = DBR::Sum(d_temp, temp_bytes, d_f, inc, stride, d_out_f, batch, n, stream);
  if (err == cudaSuccess)
    err = DBR::Nrm2(d_temp, temp_bytes, d_d, inc, stride, d_out_d, batch, n, stream);
  if (err == cudaSuccess)
    err = DBR::Dot(d_temp, temp_bytes, d_f, inc, stride, d_d, 1, 0, d_out_d, batch, n, stream);
  if (err == cudaSuccess)
    err = DBR::Asum(d_temp, temp_bytes, d_i, inc, stride, reinterpret_cast<long long*>(d_out_d),
                    batch, n, stream);
  return err;
}
