// SPDX-License-Identifier: BSD-3-Clause
// Krylov example: the peer, CG and BiCGStab as users write them today with cuSPARSE SpMV
// (cusparseSpMV, CSR, default algorithm) and cuBLAS dot / axpy / scal / copy in host pointer
// mode (the CUDA samples' conjugateGradient: every dot returns to the host). They stop on the
// recurrence residual, as such code does; the true residual is computed afterwards (compensated
// double rows, not timed) and reported beside it.
#include <cmath>
#include "peer_common.cuh"

namespace krylov {
namespace {

// cuBLAS by type with host scalars: every dot returns its value to the host.
template <class T>
struct blas {
  cublasHandle_t h{};
  int n = 0;
  T dot(const T* x, const T* y) {
    T r;
    peer_lib::dot(h, n, x, y, &r);
    return r;
  }
  void axpy(T a, const T* x, T* y) { peer_lib::axpy(h, n, &a, x, y); }
  void scal(T a, T* x) { peer_lib::scal(h, n, &a, x); }
  void copy(const T* x, T* y) { peer_lib::copy(h, n, x, y); }
};

template <class T>
class peer {
public:
  peer(const csr<double>& A, const std::vector<double>& b, const solve_options& o)
      : base(A, b, o.max_iterations), o(o), lib(base.A, false) {
    bl.h = lib.blas();
    bl.n = base.n;
  }

  // q = A p
  void mv(cusparseDnVecDescr_t p, cusparseDnVecDescr_t q) {
    const T one = 1, zero = 0;
    lib.spmv(&one, p, &zero, q);
  }
  cusparseDnVecDescr_t vec(T* p) { return lib.vec(p); }

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
    if (base.normb2 == 0) { // x = 0 solves A x = 0
      res.st = status::converged;
      res.message = "b = 0";
    }
    while (res.st == status::max_iterations && res.iterations < o.max_iterations) {
      ++res.iterations;
      if (iteration(res)) {
        if (res.st == status::max_iterations)
          res.st = status::converged;
        break;
      }
    }
    res.seconds = timer.stop();
    if (res.st == status::converged && res.message.empty())
      res.message = "recurrence residual (the peer's own test)";
    peer_lib::finish(res, base, o.tol);
    return res;
  }

  solver_base<T, T> base;
  solve_options o;
  peer_lib::handles<T> lib;
  blas<T> bl;
};

} // namespace

solve_result solve_peer(const csr<double>& A, const std::vector<double>& b, solver_kind kind,
                        const solve_options& options) {
  if (kind.p == precision::peer_f32)
    return peer_lib::solve_with<peer<float>>(A, b, kind.m, options);
  return peer_lib::solve_with<peer<double>>(A, b, kind.m, options);
}

} // namespace krylov
