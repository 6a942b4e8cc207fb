// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: cuBLAS as the peer of tcr's Dot, Nrm2 and Asum (f32 and f64; cuBLAS has no
// plain sum). Device pointer mode: the result stays on the device and nothing synchronises.
#include <cublas_v2.h>
#include <climits>
#include <string>
#include "common/harness.hpp"
#include "common/registry.hpp"

namespace tcr::bench {
namespace {

cudaError_t status(cublasStatus_t s) {
  return s == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
}

// One handle for the whole run, in device pointer mode, bound to the caller's stream per call.
cublasHandle_t handle(cudaStream_t stream) {
  static cublasHandle_t h = [] {
    cublasHandle_t r = nullptr;
    if (cublasCreate(&r) != CUBLAS_STATUS_SUCCESS)
      throw cuda_error("cublasCreate failed");
    cublasSetPointerMode(r, CUBLAS_POINTER_MODE_DEVICE);
    return r;
  }();
  cublasSetStream(h, stream);
  return h;
}

// One cuBLAS level-1 reduction (Op: dot, nrm2 or asum) of T = float or double. cuBLAS needs no
// temporary storage and takes an int length.
template <class T, op_kind Op>
cudaError_t call(void* temp, std::size_t& bytes, const call_args& a) {
  if (!temp)
    return bytes = 0, cudaSuccess;
  if (a.n > INT_MAX)
    return cudaErrorInvalidValue;
  const int n = static_cast<int>(a.n);
  const auto* x = static_cast<const T*>(a.x);
  const auto* y = static_cast<const T*>(a.y);
  auto* out = static_cast<T*>(a.out);
  cublasHandle_t h = handle(a.stream);
  if constexpr (std::is_same_v<T, float>) {
    if constexpr (Op == op_kind::dot)
      return status(cublasSdot(h, n, x, 1, y, 1, out));
    else if constexpr (Op == op_kind::nrm2)
      return status(cublasSnrm2(h, n, x, 1, out));
    else
      return status(cublasSasum(h, n, x, 1, out));
  } else {
    if constexpr (Op == op_kind::dot)
      return status(cublasDdot(h, n, x, 1, y, 1, out));
    else if constexpr (Op == op_kind::nrm2)
      return status(cublasDnrm2(h, n, x, 1, out));
    else
      return status(cublasDasum(h, n, x, 1, out));
  }
}

template <class T>
void add_for() {
  const char* p = std::is_same_v<T, float> ? "S" : "D";
  auto make = [&](op_kind op, const char* fn,
                  cudaError_t (*f)(void*, std::size_t&, const call_args&)) {
    bench_case c;
    c.op = op;
    c.type = dtype_of<T>();
    c.method = "cublas";
    c.note = std::string("cublas") + p + fn + ", device pointer mode";
    c.call = f;
    cases().push_back(std::move(c));
  };
  make(op_kind::dot, "dot", &call<T, op_kind::dot>);
  make(op_kind::nrm2, "nrm2", &call<T, op_kind::nrm2>);
  make(op_kind::asum, "asum", &call<T, op_kind::asum>);
}

const case_adder add{[] {
  add_for<float>();
  add_for<double>();
  context_entries().emplace_back("cublas_version", std::to_string(CUBLAS_VERSION));
}};

} // namespace
} // namespace tcr::bench
