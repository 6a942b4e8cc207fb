// SPDX-License-Identifier: BSD-3-Clause
// Krylov example: conjugate gradients (Hestenes-Stiefel), three launches per iteration:
//   1. q = A p, (p, q) fused; last block: alpha = rr / (p, q)
//   2. x += alpha p, r -= alpha q, (r, r) fused; last block: beta = rr' / rr, history
//   3. p = r + beta p
// Scalars live on the device; the host only reads rr at checks (driver.cuh).
#pragma once

#include "precision.cuh"

namespace krylov {

template <class S>
struct cg_scalars {
  S rr, alpha, beta;
  double normb;
  int stop, iter;
};

template <class P>
struct cg_ops {
  using M = typename P::matrix_t;
  using V = typename P::vec_t;
  using S = typename P::scalar_t;
  using dots1 = acc_array<typename P::dot, 1>;

  struct guarded {
    cg_scalars<S>* sc;
    __device__ bool active() const { return sc->stop == running; }
  };

  // r = b, p = b, x = 0 (or r = p = r_true after a replacement), rr = (r, r).
  struct start : guarded {
    using dots_t = dots1;
    const V* src;
    V *r, *p;
    __device__ void load() {}
    __device__ void element(std::int64_t i, dots_t& d) const {
      const V v = src[i];
      r[i] = v;
      p[i] = v;
      add_product(d.a[0], v, v);
    }
    __device__ void finish(const dots_t& d) const {
      this->sc->rr = static_cast<S>(tcr::result(d.a[0]));
      if (this->sc->rr == S(0))
        this->sc->stop = exact_zero;
    }
  };

  struct matvec : guarded {
    using row_acc = typename P::row_acc;
    using dots_t = dots1;
    csr_view<M> A;
    const V* p;
    V* q;
    __device__ void load() {}
    __device__ V x_at(int j) const { return p[j]; }
    __device__ void row(int i, const row_acc& acc, dots_t& d) const {
      const V y = static_cast<V>(tcr::result(acc));
      q[i] = y;
      add_product(d.a[0], p[i], y);
    }
    __device__ void finish(const dots_t& d) const {
      cg_scalars<S>& sc = *this->sc;
      const S pq = static_cast<S>(tcr::result(d.a[0]));
      if (!(pq > S(0)) || !finite(pq)) {
        sc.stop = sc.rr == S(0) ? exact_zero : breakdown_pap;
        return;
      }
      sc.alpha = sc.rr / pq;
    }
  };

  struct update : guarded {
    using dots_t = dots1;
    V *x, *r;
    const V *p, *q;
    double* history;
    S alpha;
    __device__ void load() { alpha = this->sc->alpha; }
    __device__ void element(std::int64_t i, dots_t& d) const {
      x[i] = x[i] + alpha * p[i];
      const V ri = r[i] - alpha * q[i];
      r[i] = ri;
      add_product(d.a[0], ri, ri);
    }
    __device__ void finish(const dots_t& d) const {
      cg_scalars<S>& sc = *this->sc;
      const S rr = static_cast<S>(tcr::result(d.a[0]));
      history[sc.iter++] = std::sqrt(static_cast<double>(rr)) / sc.normb;
      if (!finite(rr)) {
        sc.stop = breakdown_nonfinite;
        return;
      }
      sc.beta = rr / sc.rr;
      sc.rr = rr;
      if (rr == S(0))
        sc.stop = exact_zero;
    }
  };

  struct direction : guarded {
    using dots_t = no_dots;
    V* p;
    const V* r;
    S beta;
    __device__ void load() { beta = this->sc->beta; }
    __device__ void element(std::int64_t i, no_dots&) const { p[i] = r[i] + beta * p[i]; }
  };
};

template <class P>
class cg_solver : public solver_base<typename P::matrix_t, typename P::vec_t> {
  using base = solver_base<typename P::matrix_t, typename P::vec_t>;
  using V = typename P::vec_t;
  using S = typename P::scalar_t;
  using ops = cg_ops<P>;

public:
  cg_solver(const csr<double>& A, const std::vector<double>& b, const solve_options& o)
      : base(A, b, o.max_iterations), p(b.size()), q(b.size()), sc(1) {
    cg_scalars<S> h{};
    h.normb = std::sqrt(this->normb2);
    KRYLOV_CUDA(cudaMemcpy(sc.get(), &h, sizeof h, cudaMemcpyHostToDevice));
    launch_vector(this->shape, this->n,
                  typename ops::start{{sc.get()}, this->b.get(), this->r.get(), p.get()}, this->ws,
                  nullptr);
  }

  int step() {
    launch_spmv(this->shape, this->lanes,
                typename ops::matvec{{sc.get()}, this->A.view(), p.get(), q.get()}, this->ws,
                nullptr);
    launch_vector(this->shape, this->n,
                  typename ops::update{{sc.get()},
                                       this->x.get(),
                                       this->r.get(),
                                       p.get(),
                                       q.get(),
                                       this->d_history.get(),
                                       S(0)},
                  this->ws, nullptr);
    launch_vector(this->shape, this->n,
                  typename ops::direction{{sc.get()}, p.get(), this->r.get(), S(0)}, this->ws,
                  nullptr);
    return 1;
  }
  bool can_replace_residual() const { return true; }
  solver_state read_state() {
    const cg_scalars<S> h = read_back(sc.get());
    return {h.stop, static_cast<double>(h.rr)};
  }
  // Restart from the true residual: r = p = b - A x, rr = (r, r). Keeping p (van der Vorst
  // and Ye) is only sound while r and b - A x agree to a few digits; a replacement here comes
  // when they do not (the recurrence met tol, the true residual did not), and an old p with the
  // new rr gives a step alpha = rr / (p, A p) that no longer minimises anything: it diverges.
  void replace_residual() {
    cg_scalars<S> h = read_back(sc.get());
    h.stop = running;
    KRYLOV_CUDA(cudaMemcpy(sc.get(), &h, sizeof h, cudaMemcpyHostToDevice));
    launch_vector(this->shape, this->n,
                  typename ops::start{{sc.get()}, this->r_true.get(), this->r.get(), p.get()},
                  this->ws, nullptr);
  }
  std::vector<double> history(int count) const { return this->history_of(count); }

private:
  dev_array<V> p, q;
  dev_array<cg_scalars<S>> sc;
};

} // namespace krylov
