// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: batched BLAS-1 of f32 (reduce/batched.cuh) against what people use today.
//   tcr.pointers         DeviceBatchedReduce::Dot over pointer arrays, a length each
//   tcr.strided          DeviceBatchedReduce::Dot / Nrm2 over a strided batch (incx = 1)
//   tcr.*.cr             the same in Accuracy::correctly_rounded (exact_dot_sum per lane)
//   cublas.gemm_strided  cublasSgemmStridedBatched with m = n = 1, k = the length: the dot
//                        product of each pair as a 1 x 1 GEMM (A transposed), the usual workaround
//                        for a batched dot in cuBLAS
#include <cublas_v2.h>
#include "common/harness.hpp"
#include "common/seg_registry.hpp"
#include <tcr/reduce/batched.cuh>

namespace tcr::bench {
namespace {

template <Accuracy A = Accuracy::compensated>
cudaError_t dot_pointers(void* temp, std::size_t& bytes, const seg_args& a) {
  return DeviceBatchedReduce::Dot(temp, bytes, reinterpret_cast<const float* const*>(a.x_ptrs),
                                  reinterpret_cast<const float* const*>(a.y_ptrs),
                                  static_cast<float*>(a.out), a.segments, a.lengths, a.stream,
                                  ReduceOptions{A});
}

template <Accuracy A = Accuracy::compensated>
cudaError_t dot_strided(void* temp, std::size_t& bytes, const seg_args& a) {
  return DeviceBatchedReduce::Dot(temp, bytes, static_cast<const float*>(a.x), 1, a.size,
                                  static_cast<const float*>(a.y), 1, a.size,
                                  static_cast<float*>(a.out), a.segments, a.size, a.stream,
                                  ReduceOptions{A});
}

template <Accuracy A = Accuracy::compensated>
cudaError_t nrm2_strided(void* temp, std::size_t& bytes, const seg_args& a) {
  return DeviceBatchedReduce::Nrm2(temp, bytes, static_cast<const float*>(a.x), 1, a.size,
                                   static_cast<float*>(a.out), a.segments, a.size, a.stream,
                                   ReduceOptions{A});
}

// One handle for the program, made at the first call (never destroyed: CUDA may be torn down
// before static destructors run).
cublasHandle_t cublas() {
  static cublasHandle_t h = [] {
    cublasHandle_t r = nullptr;
    if (cublasCreate(&r) != CUBLAS_STATUS_SUCCESS)
      throw cuda_error("cublasCreate failed");
    return r;
  }();
  return h;
}

cudaError_t dot_gemm(void* temp, std::size_t& bytes, const seg_args& a) {
  if (!temp) {
    bytes = 0;
    return cudaSuccess;
  }
  const cublasHandle_t h = cublas();
  if (cublasSetStream(h, a.stream) != CUBLAS_STATUS_SUCCESS)
    return cudaErrorUnknown;
  const float one = 1.0f, zero = 0.0f;
  const int k = a.size;
  // C (1 x 1) = A^T (1 x k) B (k x 1) per pair: A = x_i, B = y_i, both k x 1 column-major.
  const cublasStatus_t s = cublasSgemmStridedBatched(
      h, CUBLAS_OP_T, CUBLAS_OP_N, 1, 1, k, &one, static_cast<const float*>(a.x), k, k,
      static_cast<const float*>(a.y), k, k, &zero, static_cast<float*>(a.out), 1, 1,
      static_cast<int>(a.segments));
  return s == CUBLAS_STATUS_SUCCESS ? cudaGetLastError() : cudaErrorUnknown;
}

seg_case batch_case(const char* impl, workload w, const char* form, bool two, const char* note,
                    cudaError_t (*f)(void*, std::size_t&, const seg_args&)) {
  seg_case c;
  c.impl = impl;
  c.type = dtype::f32;
  c.load = w;
  c.form = form;
  c.two = two;
  c.note = note;
  c.sizes = {w == workload::pointers ? -1 : strided_size};
  c.scales = {batch_scale};
  c.call = f;
  return c;
}

const case_adder add{[] {
  seg_cases().push_back(batch_case("tcr.pointers", workload::pointers, "dot.pointers", true,
                                   "tcr::DeviceBatchedReduce::Dot, pointer arrays, a length each",
                                   &dot_pointers<>));
  seg_cases().push_back(batch_case("tcr.strided", workload::strided, "dot.strided", true,
                                   "tcr::DeviceBatchedReduce::Dot, strided batch, incx = incy = 1",
                                   &dot_strided<>));
  seg_cases().push_back(batch_case("cublas.gemm_strided", workload::strided, "dot.strided", true,
                                   "cublasSgemmStridedBatched, m = n = 1, k = length, A^T B",
                                   &dot_gemm));
  seg_cases().push_back(batch_case("tcr.strided", workload::strided, "nrm2.strided", false,
                                   "tcr::DeviceBatchedReduce::Nrm2, strided batch, incx = 1",
                                   &nrm2_strided<>));
  constexpr Accuracy cr = Accuracy::correctly_rounded;
  seg_cases().push_back(batch_case("tcr.pointers.cr", workload::pointers, "dot.pointers", true,
                                   "tcr::DeviceBatchedReduce::Dot, pointer arrays, a length each, "
                                   "correctly rounded",
                                   &dot_pointers<cr>));
  seg_cases().push_back(batch_case("tcr.strided.cr", workload::strided, "dot.strided", true,
                                   "tcr::DeviceBatchedReduce::Dot, strided batch, incx = incy = 1, "
                                   "correctly rounded",
                                   &dot_strided<cr>));
  seg_cases().push_back(batch_case("tcr.strided.cr", workload::strided, "nrm2.strided", false,
                                   "tcr::DeviceBatchedReduce::Nrm2, strided batch, incx = 1, "
                                   "correctly rounded",
                                   &nrm2_strided<cr>));
}};

} // namespace
} // namespace tcr::bench
