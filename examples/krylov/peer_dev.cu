// SPDX-License-Identifier: BSD-3-Clause
// Krylov example: the peer with its scalars on the device. The CG and BiCGStab of peer.cu,
// cuSPARSE SpMV and cuBLAS dot / axpy / scal / copy, with both libraries in device pointer
// mode: dots land in device memory, a one-thread kernel turns them into alpha, beta, omega (and
// their negatives, for axpy), and axpy, scal and cusparseSpMV read their scalars from there.
// Nothing waits for the host but the check every check_every iterations, as in tcr's solvers
// (driver.cuh), so what separates the two per iteration is launches and memory traffic, not
// round trips. Launches per iteration: CG 9 (SpMV, 2 dots, 2 scalar kernels, 3 axpy, scal),
// BiCGStab 19 (2 SpMV, 5 dots, 3 scalar kernels, 2 copies, 6 axpy, scal).
//
// Like peer.cu it stops on its recurrence residual; the true residual is computed afterwards
// and reported beside it. The scalar kernel that records a recurrence residual at or below tol
// latches peer_met_tol and freezes the state (every coefficient 0, so x and r keep that
// iteration's values); a breakdown freezes it the same way. The host reads the stop code at the
// next check, so a crossing between checks is not lost when the residual (neither CG's nor
// BiCGStab's norm is monotone) rises above tol again before the check: x is the iterate peer.cu
// stops at, the history ends at that iteration, and iterations counts the launched ones up to
// the check (the time per iteration is launches' time either way).
#include <cmath>
#include "peer_common.cuh"

namespace krylov {
namespace {

enum peer_stop : int {
  peer_running = 0,
  peer_met_tol = 1, // frozen at the first recurrence residual at or below tol
  peer_breakdown_pap = 2,
  peer_breakdown_rv = 3,
  peer_breakdown_omega = 4,
  peer_breakdown_rho = 5,
  peer_nonfinite = 6,
};

const char* peer_stop_message(int code) {
  switch (code) {
  case peer_breakdown_pap:
    return "breakdown: (p, A p) <= 0";
  case peer_breakdown_rv:
    return "breakdown: (r_hat, A p) = 0";
  case peer_breakdown_omega:
    return "breakdown: omega = 0";
  case peer_breakdown_rho:
    return "breakdown: rho = 0";
  case peer_nonfinite:
    return "breakdown: a scalar became Inf or NaN";
  default:
    return "";
  }
}

// The device scalars: the dots' destinations and the coefficients the vector updates read.
template <class T>
struct peer_scalars {
  T one, zero;        // SpMV's alpha and beta, axpy's 1
  T rr, rr_new, pq;   // (r, r) and CG's (p, A p)
  T rho, rho_new, rv; // BiCGStab: (r_hat, r), (r_hat, A p)
  T ts, tt;           // BiCGStab: (t, s), (t, t)
  T alpha, neg_alpha, beta, omega, neg_omega;
  double normb, tol; // relative-residual scale and target
  int stop, iter;    // peer_stop, iterations recorded in the history
};

template <class T>
__device__ bool finite_scalar(T v) {
  return v == v && v - v == T(0);
}

// Freezes the state: every coefficient 0, so x and r keep their values until the check (the
// first stop code stays).
template <class T>
__device__ void freeze(peer_scalars<T>& sc, int code) {
  if (sc.stop == peer_running)
    sc.stop = code;
  sc.alpha = sc.neg_alpha = sc.beta = sc.omega = sc.neg_omega = T(0);
}

// Records rr_new as iteration iter's recurrence residual and makes it the current rr; returns
// whether it met tol (peer.cu's test on the same double value), having then frozen the state.
template <class T>
__device__ bool record_met_tol(peer_scalars<T>& sc, double* history) {
  sc.rr = sc.rr_new;
  const double rel = std::sqrt(static_cast<double>(sc.rr)) / sc.normb;
  history[sc.iter++] = rel;
  if (!(rel <= sc.tol))
    return false;
  freeze(sc, peer_met_tol);
  return true;
}

// CG: alpha = rr / (p, A p).
template <class T>
__global__ void cg_alpha(peer_scalars<T>* g_sc) {
  peer_scalars<T>& sc = *g_sc;
  if (sc.stop != peer_running)
    return freeze(sc, sc.stop);
  if (!(sc.pq > T(0)) || !finite_scalar(sc.pq))
    return freeze(sc, peer_breakdown_pap);
  sc.alpha = sc.rr / sc.pq;
  sc.neg_alpha = -sc.alpha;
}

// CG: the new (r, r) into the history, beta = rr_new / rr.
template <class T>
__global__ void cg_beta(peer_scalars<T>* g_sc, double* history) {
  peer_scalars<T>& sc = *g_sc;
  if (sc.stop != peer_running)
    return freeze(sc, sc.stop);
  if (!finite_scalar(sc.rr_new))
    return freeze(sc, peer_nonfinite);
  const T rr_old = sc.rr;
  if (record_met_tol(sc, history))
    return;
  sc.beta = sc.rr / rr_old;
}

// BiCGStab: alpha = rho / (r_hat, A p).
template <class T>
__global__ void bicgstab_alpha(peer_scalars<T>* g_sc) {
  peer_scalars<T>& sc = *g_sc;
  if (sc.stop != peer_running)
    return freeze(sc, sc.stop);
  if (sc.rv == T(0) || !finite_scalar(sc.rv))
    return freeze(sc, peer_breakdown_rv);
  sc.alpha = sc.rho / sc.rv;
  sc.neg_alpha = -sc.alpha;
}

// BiCGStab: omega = (t, s) / (t, t) (0 when t = 0, as peer.cu).
template <class T>
__global__ void bicgstab_omega(peer_scalars<T>* g_sc) {
  peer_scalars<T>& sc = *g_sc;
  if (sc.stop != peer_running)
    return freeze(sc, sc.stop);
  sc.omega = sc.tt == T(0) ? T(0) : sc.ts / sc.tt;
  sc.neg_omega = -sc.omega;
}

// BiCGStab: the new (r, r) into the history and peer.cu's tol test, then its breakdown tests in
// its order and beta = (rho_new / rho) (alpha / omega).
template <class T>
__global__ void bicgstab_beta(peer_scalars<T>* g_sc, double* history) {
  peer_scalars<T>& sc = *g_sc;
  if (sc.stop != peer_running)
    return freeze(sc, sc.stop);
  if (!finite_scalar(sc.rr_new))
    return freeze(sc, peer_nonfinite);
  if (record_met_tol(sc, history))
    return;
  if (sc.omega == T(0))
    return freeze(sc, peer_breakdown_omega);
  if (sc.rho_new == T(0))
    return freeze(sc, peer_breakdown_rho);
  sc.beta = (sc.rho_new / sc.rho) * (sc.alpha / sc.omega);
  sc.rho = sc.rho_new;
  if (!finite_scalar(sc.beta))
    return freeze(sc, peer_nonfinite);
}

template <class T>
class peer_dev {
public:
  peer_dev(const csr<double>& A, const std::vector<double>& b, const solve_options& o)
      : base(A, b, o.max_iterations), o(o), lib(base.A, true), d_sc(1) {
    peer_scalars<T> h{};
    h.one = T(1);
    h.zero = T(0);
    h.normb = std::sqrt(base.normb2);
    h.tol = o.tol;
    KRYLOV_CUDA(cudaMemcpy(d_sc.get(), &h, sizeof h, cudaMemcpyHostToDevice));
    sc = d_sc.get();
  }

  solve_result cg() {
    const int n = base.n;
    const cublasHandle_t h = lib.blas();
    dev_array<T> p(n), q(n);
    auto dp = lib.vec(p.get()), dq = lib.vec(q.get());
    T *x = base.x.get(), *r = base.r.get();
    peer_lib::copy(h, n, base.b.get(), r);
    peer_lib::copy(h, n, r, p.get());
    peer_lib::dot(h, n, r, r, &sc->rr);
    return loop([&] {
      lib.spmv(&sc->one, dp, &sc->zero, dq);
      peer_lib::dot(h, n, p.get(), q.get(), &sc->pq);
      cg_alpha<<<1, 1>>>(sc);
      peer_lib::axpy(h, n, &sc->alpha, p.get(), x);
      peer_lib::axpy(h, n, &sc->neg_alpha, q.get(), r);
      peer_lib::dot(h, n, r, r, &sc->rr_new);
      cg_beta<<<1, 1>>>(sc, base.d_history.get());
      peer_lib::scal(h, n, &sc->beta, p.get());
      peer_lib::axpy(h, n, &sc->one, r, p.get());
      return 1;
    });
  }

  solve_result bicgstab() {
    const int n = base.n;
    const cublasHandle_t h = lib.blas();
    dev_array<T> r_hat(n), p(n), v(n), s(n), t(n);
    auto dp = lib.vec(p.get()), dv = lib.vec(v.get()), ds = lib.vec(s.get()), dt = lib.vec(t.get());
    T *x = base.x.get(), *r = base.r.get();
    peer_lib::copy(h, n, base.b.get(), r);
    peer_lib::copy(h, n, r, r_hat.get());
    peer_lib::copy(h, n, r, p.get());
    peer_lib::dot(h, n, r_hat.get(), r, &sc->rho);
    peer_lib::dot(h, n, r, r, &sc->rr);
    return loop([&] {
      lib.spmv(&sc->one, dp, &sc->zero, dv);
      peer_lib::dot(h, n, r_hat.get(), v.get(), &sc->rv);
      bicgstab_alpha<<<1, 1>>>(sc);
      peer_lib::copy(h, n, r, s.get());
      peer_lib::axpy(h, n, &sc->neg_alpha, v.get(), s.get());
      lib.spmv(&sc->one, ds, &sc->zero, dt);
      peer_lib::dot(h, n, t.get(), s.get(), &sc->ts);
      peer_lib::dot(h, n, t.get(), t.get(), &sc->tt);
      bicgstab_omega<<<1, 1>>>(sc);
      peer_lib::axpy(h, n, &sc->alpha, p.get(), x);
      peer_lib::axpy(h, n, &sc->omega, s.get(), x);
      peer_lib::copy(h, n, s.get(), r);
      peer_lib::axpy(h, n, &sc->neg_omega, t.get(), r);
      peer_lib::dot(h, n, r, r, &sc->rr_new);
      peer_lib::dot(h, n, r_hat.get(), r, &sc->rho_new);
      bicgstab_beta<<<1, 1>>>(sc, base.d_history.get());
      peer_lib::axpy(h, n, &sc->neg_omega, v.get(), p.get());
      peer_lib::scal(h, n, &sc->beta, p.get());
      peer_lib::axpy(h, n, &sc->one, r, p.get());
      return 2;
    });
  }

private:
  // Launches iterations; every check_every of them reads the scalars (the one synchronisation)
  // and stops on the stop code the device latched: the recurrence residual met tol at some
  // iteration since the last check, or a breakdown.
  template <class Iteration>
  solve_result loop(Iteration iteration) {
    solve_result res;
    res.st = status::max_iterations;
    gpu_timer timer;
    KRYLOV_CUDA(cudaDeviceSynchronize());
    timer.start();
    peer_scalars<T> h{};
    int it = 0;
    if (base.normb2 == 0) { // x = 0 solves A x = 0
      res.st = status::converged;
      res.message = "b = 0";
    }
    while (res.st == status::max_iterations && it < o.max_iterations) {
      res.spmvs += iteration();
      KRYLOV_CUDA(cudaGetLastError());
      ++it;
      if (it % o.check_every != 0 && it < o.max_iterations)
        continue;
      KRYLOV_CUDA(cudaMemcpy(&h, sc, sizeof h, cudaMemcpyDeviceToHost));
      if (h.stop == peer_met_tol) {
        res.st = status::converged;
        res.message = "recurrence residual (the peer's own test)";
        break;
      }
      if (h.stop != peer_running) {
        res.st = status::breakdown;
        res.message = peer_stop_message(h.stop);
        break;
      }
    }
    res.seconds = timer.stop();
    res.iterations = it;
    KRYLOV_CUDA(cudaMemcpy(&h, sc, sizeof h, cudaMemcpyDeviceToHost));
    res.history = base.history_of(h.iter);
    peer_lib::finish(res, base, o.tol);
    return res;
  }

  solver_base<T, T> base;
  solve_options o;
  peer_lib::handles<T> lib;
  dev_array<peer_scalars<T>> d_sc;
  peer_scalars<T>* sc = nullptr; // d_sc.get(): &sc->alpha etc. are device addresses
};

} // namespace

solve_result solve_peer_dev(const csr<double>& A, const std::vector<double>& b, solver_kind kind,
                            const solve_options& options) {
  if (kind.p == precision::peer_dev_f32)
    return peer_lib::solve_with<peer_dev<float>>(A, b, kind.m, options);
  return peer_lib::solve_with<peer_dev<double>>(A, b, kind.m, options);
}

} // namespace krylov
