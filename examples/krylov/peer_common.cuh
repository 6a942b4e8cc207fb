// SPDX-License-Identifier: BSD-3-Clause
// Krylov example: what the two cuSPARSE + cuBLAS peers share (peer.cu keeps its scalars on the
// host, peer_dev.cu on the device): status checks, the library handles with the matrix and
// vector descriptors, cuBLAS by type, and the end of a run (true residual, first recurrence
// residual below tol, the iterate). Scalars passed to these wrappers are pointers, read from
// host or device memory as the handles' pointer mode says.
#pragma once

#include <cublas_v2.h>
#include <cusparse.h>
#include <chrono>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>
#include "precision.cuh"

namespace krylov {
namespace peer_lib {

inline void check_cusparse(cusparseStatus_t s, const char* what) {
  if (s != CUSPARSE_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + ": " + cusparseGetErrorString(s));
}
inline void check_cublas(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + ": cuBLAS status " + std::to_string(s));
}
#define PEER_SPARSE(expr) ::krylov::peer_lib::check_cusparse((expr), #expr)
#define PEER_BLAS(expr) ::krylov::peer_lib::check_cublas((expr), #expr)

template <class T>
constexpr cudaDataType_t cuda_type() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "peer: float or double vectors");
  return std::is_same_v<T, float> ? CUDA_R_32F : CUDA_R_64F;
}

// cuBLAS by type, n elements, unit strides; a, r: host or device pointers per the pointer mode.
inline void dot(cublasHandle_t h, int n, const float* x, const float* y, float* r) {
  PEER_BLAS(cublasSdot(h, n, x, 1, y, 1, r));
}
inline void dot(cublasHandle_t h, int n, const double* x, const double* y, double* r) {
  PEER_BLAS(cublasDdot(h, n, x, 1, y, 1, r));
}
inline void axpy(cublasHandle_t h, int n, const float* a, const float* x, float* y) {
  PEER_BLAS(cublasSaxpy(h, n, a, x, 1, y, 1));
}
inline void axpy(cublasHandle_t h, int n, const double* a, const double* x, double* y) {
  PEER_BLAS(cublasDaxpy(h, n, a, x, 1, y, 1));
}
inline void scal(cublasHandle_t h, int n, const float* a, float* x) {
  PEER_BLAS(cublasSscal(h, n, a, x, 1));
}
inline void scal(cublasHandle_t h, int n, const double* a, double* x) {
  PEER_BLAS(cublasDscal(h, n, a, x, 1));
}
inline void copy(cublasHandle_t h, int n, const float* x, float* y) {
  PEER_BLAS(cublasScopy(h, n, x, 1, y, 1));
}
inline void copy(cublasHandle_t h, int n, const double* x, double* y) {
  PEER_BLAS(cublasDcopy(h, n, x, 1, y, 1));
}

// The cuSPARSE and cuBLAS handles (legacy default stream, as the solvers' kernels), the CSR
// descriptor of A, one dense descriptor per vector an SpMV touches, and the SpMV buffer.
template <class T>
class handles {
public:
  handles(const device_csr<T>& A, bool device_scalars) : n_(A.rows) {
    PEER_SPARSE(cusparseCreate(&sparse_));
    PEER_BLAS(cublasCreate(&blas_));
    const auto mode_sparse =
        device_scalars ? CUSPARSE_POINTER_MODE_DEVICE : CUSPARSE_POINTER_MODE_HOST;
    const auto mode_blas = device_scalars ? CUBLAS_POINTER_MODE_DEVICE : CUBLAS_POINTER_MODE_HOST;
    PEER_SPARSE(cusparseSetPointerMode(sparse_, mode_sparse));
    PEER_BLAS(cublasSetPointerMode(blas_, mode_blas));
    const auto v = A.view();
    PEER_SPARSE(cusparseCreateCsr(&mat_, n_, n_, A.nnz, const_cast<int*>(v.row_ptr),
                                  const_cast<int*>(v.col), const_cast<T*>(v.val),
                                  CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                  cuda_type<T>()));
  }
  handles(const handles&) = delete;
  handles& operator=(const handles&) = delete;
  ~handles() {
    for (auto d : vecs_)
      cusparseDestroyDnVec(d);
    cusparseDestroySpMat(mat_);
    cusparseDestroy(sparse_);
    cublasDestroy(blas_);
  }

  cublasHandle_t blas() const { return blas_; }
  int n() const { return n_; }

  cusparseDnVecDescr_t vec(T* p) {
    cusparseDnVecDescr_t d{};
    PEER_SPARSE(cusparseCreateDnVec(&d, n_, p, cuda_type<T>()));
    vecs_.push_back(d);
    return d;
  }

  // y = alpha A x + beta y (default algorithm; the buffer is sized on the first call).
  void spmv(const T* alpha, cusparseDnVecDescr_t x, const T* beta, cusparseDnVecDescr_t y) {
    if (!buffer_.size()) {
      std::size_t bytes = 0;
      PEER_SPARSE(cusparseSpMV_bufferSize(sparse_, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, mat_, x,
                                          beta, y, cuda_type<T>(), CUSPARSE_SPMV_ALG_DEFAULT,
                                          &bytes));
      buffer_ = dev_array<unsigned char>(bytes ? bytes : 1);
    }
    PEER_SPARSE(cusparseSpMV(sparse_, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, mat_, x, beta, y,
                             cuda_type<T>(), CUSPARSE_SPMV_ALG_DEFAULT, buffer_.get()));
  }

private:
  int n_ = 0;
  cusparseHandle_t sparse_{};
  cublasHandle_t blas_{};
  cusparseSpMatDescr_t mat_{};
  std::vector<cusparseDnVecDescr_t> vecs_;
  dev_array<unsigned char> buffer_;
};

// The end of a peer run whose history is res.history: the recurrence residual at the end, the
// first iteration below tol, the true residual of x (compensated double rows), x and its hash.
template <class T>
void finish(solve_result& res, solver_base<T, T>& base, double tol) {
  res.recurrence_relres = base.normb2 == 0 ? 0 : res.history.empty() ? 1 : res.history.back();
  for (std::size_t i = 0; i < res.history.size(); ++i)
    if (res.history[i] <= tol) {
      res.first_below_tol = static_cast<int>(i) + 1;
      break;
    }
  res.true_relres = base.normb2 == 0 ? 0 : std::sqrt(base.true_residual2() / base.normb2);
  res.x = base.solution();
  res.x_hash = base.solution_hash();
}

// A peer solve: Peer built from A, b and o (its setup timed), then CG or BiCGStab; the peers
// have no IDR(s).
template <class Peer>
solve_result solve_with(const csr<double>& A, const std::vector<double>& b, method m,
                        const solve_options& o) {
  if (m == method::idrs) {
    solve_result r;
    r.message = "peer: CG and BiCGStab only";
    return r;
  }
  const auto t0 = std::chrono::steady_clock::now();
  Peer pr(A, b, o);
  const double setup = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  solve_result r = m == method::cg ? pr.cg() : pr.bicgstab();
  r.setup_seconds = setup;
  return r;
}

} // namespace peer_lib
} // namespace krylov
