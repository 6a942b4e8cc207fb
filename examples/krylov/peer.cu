// SPDX-License-Identifier: BSD-3-Clause
// Krylov example: the peer, CG and BiCGStab as users write them today with cuSPARSE SpMV
// (cusparseSpMV, CSR, default algorithm) and cuBLAS dot / axpy / scal / copy in host pointer
// mode (the CUDA samples' conjugateGradient: every dot returns to the host). They stop on the
// recurrence residual, as such code does; the true residual is computed afterwards (compensated
// double rows, not timed) and reported beside it.
#include <cublas_v2.h>
#include <cusparse.h>
#include <chrono>
#include <cmath>
#include "precision.cuh"

namespace krylov {
namespace {

void check_cusparse(cusparseStatus_t s, const char* what) {
  if (s != CUSPARSE_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + ": " + cusparseGetErrorString(s));
}
void check_cublas(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + ": cuBLAS status " + std::to_string(s));
}
#define PEER_SPARSE(expr) check_cusparse((expr), #expr)
#define PEER_BLAS(expr) check_cublas((expr), #expr)

// cuBLAS by type.
struct blas {
  cublasHandle_t h{};
  int n = 0;
  float dot(const float* x, const float* y) {
    float r;
    PEER_BLAS(cublasSdot(h, n, x, 1, y, 1, &r));
    return r;
  }
  double dot(const double* x, const double* y) {
    double r;
    PEER_BLAS(cublasDdot(h, n, x, 1, y, 1, &r));
    return r;
  }
  void axpy(float a, const float* x, float* y) { PEER_BLAS(cublasSaxpy(h, n, &a, x, 1, y, 1)); }
  void axpy(double a, const double* x, double* y) { PEER_BLAS(cublasDaxpy(h, n, &a, x, 1, y, 1)); }
  void scal(float a, float* x) { PEER_BLAS(cublasSscal(h, n, &a, x, 1)); }
  void scal(double a, double* x) { PEER_BLAS(cublasDscal(h, n, &a, x, 1)); }
  void copy(const float* x, float* y) { PEER_BLAS(cublasScopy(h, n, x, 1, y, 1)); }
  void copy(const double* x, double* y) { PEER_BLAS(cublasDcopy(h, n, x, 1, y, 1)); }
};

template <class T>
constexpr cudaDataType_t cuda_type() {
  return std::is_same_v<T, float> ? CUDA_R_32F : CUDA_R_64F;
}

// y = A x through cuSPARSE for a fixed pair of vector descriptors.
template <class T>
struct sparse_mv {
  cusparseHandle_t h{};
  cusparseSpMatDescr_t a{};
  dev_array<unsigned char> buffer;
  void operator()(cusparseDnVecDescr_t x, cusparseDnVecDescr_t y) {
    const T one = 1, zero = 0;
    if (!buffer.size()) {
      std::size_t bytes = 0;
      PEER_SPARSE(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a, x, &zero, y,
                                          cuda_type<T>(), CUSPARSE_SPMV_ALG_DEFAULT, &bytes));
      buffer = dev_array<unsigned char>(bytes ? bytes : 1);
    }
    PEER_SPARSE(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a, x, &zero, y,
                             cuda_type<T>(), CUSPARSE_SPMV_ALG_DEFAULT, buffer.get()));
  }
};

template <class T>
class peer {
public:
  peer(const csr<double>& A, const std::vector<double>& b, const solve_options& o)
      : base(A, b, o.max_iterations), o(o) {
    PEER_SPARSE(cusparseCreate(&mv.h));
    PEER_BLAS(cublasCreate(&bl.h));
    bl.n = base.n;
    const auto v = base.A.view();
    PEER_SPARSE(cusparseCreateCsr(&mv.a, base.n, base.n, base.A.nnz, const_cast<int*>(v.row_ptr),
                                  const_cast<int*>(v.col), const_cast<T*>(v.val),
                                  CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                  cuda_type<T>()));
  }
  ~peer() {
    for (auto d : descr)
      cusparseDestroyDnVec(d);
    cusparseDestroySpMat(mv.a);
    cusparseDestroy(mv.h);
    cublasDestroy(bl.h);
  }

  cusparseDnVecDescr_t vec(T* p) {
    cusparseDnVecDescr_t d{};
    PEER_SPARSE(cusparseCreateDnVec(&d, base.n, p, cuda_type<T>()));
    descr.push_back(d);
    return d;
  }

  solve_result cg() {
    dev_array<T> p(base.n), q(base.n);
    auto dp = vec(p.get()), dq = vec(q.get());
    T *x = base.x.get(), *r = base.r.get();
    const double normb = std::sqrt(base.normb2);
    bl.copy(base.b.get(), r);
    bl.copy(r, p.get());
    T rr = bl.dot(r, r);
    return loop([&](solve_result& res) {
      mv(dp, dq);
      ++res.spmvs;
      const T pq = bl.dot(p.get(), q.get());
      if (!(pq > T(0)))
        return fail(res, "breakdown: (p, A p) <= 0");
      const T alpha = rr / pq;
      bl.axpy(alpha, p.get(), x);
      bl.axpy(-alpha, q.get(), r);
      const T rr_new = bl.dot(r, r);
      res.history.push_back(std::sqrt(static_cast<double>(rr_new)) / normb);
      if (res.history.back() <= o.tol)
        return true;
      bl.scal(rr_new / rr, p.get());
      bl.axpy(T(1), r, p.get());
      rr = rr_new;
      return false;
    });
  }

  solve_result bicgstab() {
    const int n = base.n;
    dev_array<T> r_hat(n), p(n), v(n), s(n), t(n);
    auto dp = vec(p.get()), dv = vec(v.get()), ds = vec(s.get()), dt = vec(t.get());
    T *x = base.x.get(), *r = base.r.get();
    const double normb = std::sqrt(base.normb2);
    bl.copy(base.b.get(), r);
    bl.copy(r, r_hat.get());
    bl.copy(r, p.get());
    T rho = bl.dot(r_hat.get(), r);
    return loop([&](solve_result& res) {
      mv(dp, dv);
      const T rv = bl.dot(r_hat.get(), v.get());
      if (rv == T(0))
        return fail(res, "breakdown: (r_hat, A p) = 0");
      const T alpha = rho / rv;
      bl.copy(r, s.get());
      bl.axpy(-alpha, v.get(), s.get());
      mv(ds, dt);
      res.spmvs += 2;
      const T ts = bl.dot(t.get(), s.get()), tt = bl.dot(t.get(), t.get());
      const T omega = tt == T(0) ? T(0) : ts / tt;
      bl.axpy(alpha, p.get(), x);
      bl.axpy(omega, s.get(), x);
      bl.copy(s.get(), r);
      bl.axpy(-omega, t.get(), r);
      const T rr = bl.dot(r, r);
      res.history.push_back(std::sqrt(static_cast<double>(rr)) / normb);
      if (res.history.back() <= o.tol)
        return true;
      if (omega == T(0))
        return fail(res, "breakdown: omega = 0");
      const T rho_new = bl.dot(r_hat.get(), r);
      if (rho_new == T(0))
        return fail(res, "breakdown: rho = 0");
      const T beta = (rho_new / rho) * (alpha / omega);
      rho = rho_new;
      bl.axpy(-omega, v.get(), p.get());
      bl.scal(beta, p.get());
      bl.axpy(T(1), r, p.get());
      return false;
    });
  }

private:
  static bool fail(solve_result& res, const char* why) {
    res.st = status::breakdown;
    res.message = why;
    return true;
  }

  // Runs iterations until one returns true; converged if it stopped on the recurrence.
  template <class Iteration>
  solve_result loop(Iteration iteration) {
    solve_result res;
    res.st = status::max_iterations;
    gpu_timer timer;
    KRYLOV_CUDA(cudaDeviceSynchronize());
    timer.start();
    while (res.iterations < o.max_iterations) {
      ++res.iterations;
      if (iteration(res)) {
        if (res.st == status::max_iterations)
          res.st = status::converged;
        break;
      }
    }
    res.seconds = timer.stop();
    res.message =
        res.st == status::converged ? "recurrence residual (the peer's own test)" : res.message;
    res.recurrence_relres = res.history.empty() ? 1 : res.history.back();
    for (std::size_t i = 0; i < res.history.size(); ++i)
      if (res.history[i] <= o.tol) {
        res.first_below_tol = static_cast<int>(i) + 1;
        break;
      }
    res.true_relres = std::sqrt(base.true_residual2() / base.normb2);
    res.x = base.solution();
    res.x_hash = base.solution_hash();
    return res;
  }

  solver_base<T, T> base;
  solve_options o;
  sparse_mv<T> mv;
  blas bl;
  std::vector<cusparseDnVecDescr_t> descr;
};

template <class T>
solve_result run_peer(const csr<double>& A, const std::vector<double>& b, method m,
                      const solve_options& o) {
  const auto t0 = std::chrono::steady_clock::now();
  peer<T> pr(A, b, o);
  const double setup = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  solve_result r = m == method::cg ? pr.cg() : pr.bicgstab();
  r.setup_seconds = setup;
  return r;
}

} // namespace

solve_result solve_peer(const csr<double>& A, const std::vector<double>& b, solver_kind kind,
                        const solve_options& options) {
  if (kind.m == method::idrs) {
    solve_result r;
    r.message = "peer: CG and BiCGStab only";
    return r;
  }
  if (kind.p == precision::peer_f32)
    return run_peer<float>(A, b, kind.m, options);
  return run_peer<double>(A, b, kind.m, options);
}

} // namespace krylov
