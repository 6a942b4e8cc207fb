// SPDX-License-Identifier: BSD-3-Clause
// Krylov example: BiCGStab (van der Vorst 1992), five launches and two SpMVs per iteration:
//   1. p = r + beta (p - omega v)
//   2. v = A p, (r_hat, v) fused; last block: alpha = rho / (r_hat, v)
//   3. s = r - alpha v, x += alpha p
//   4. t = A s, (t, s) and (t, t) fused; last block: omega = (t, s) / (t, t)
//   5. x += omega s, r = s - omega t, (r_hat, r) and (r, r) fused; last block: beta, rho
// A residual replacement restarts the method from the true residual (r_hat = r, p = v = 0).
// A near breakdown of rho (near_breakdown.hpp) restarts it on the device from the recurrence
// residual: step 5's last block sets rho = (r, r), beta = 0 and a pending flag, step 1 then
// copies r_hat := r and sets p = r, step 2's last block clears the flag. The recurrence residual,
// not b - A x: that would cost an SpMV and a host round trip, and the driver's checks already
// hold r to the true residual; r_hat only has to make rho = (r_hat, r) informative, and
// r_hat = r makes it ||r||^2. A second near breakdown in the first iteration after a restart
// (r_hat = r did not help) is a breakdown; so is omega = 0.
#pragma once

#include "near_breakdown.hpp"
#include "precision.cuh"

namespace krylov {

template <class S>
struct bicgstab_scalars {
  S rho, alpha, omega, beta, rr;
  double normb;
  double r_hat2; // ||r_hat||^2 (r_hat changes only at restarts, where it is ||r||^2)
  int stop, iter;
  int restarts;        // near-breakdown restarts (r_hat := r) so far
  int restart_pending; // set by step 5, read by step 1 (copies r_hat := r), cleared by step 2
  int since_restart;   // iterations since r_hat was last set
};

// The scalar steps, run by one thread of the last block of each fused kernel on the reduced
// dot products; the same for every storage scheme of the vectors (bicgstab_df32.cuh uses them).
template <class S>
struct bicgstab_steps {
  using sc_t = bicgstab_scalars<S>;

  // After r = r_hat = r_0: rho = rr = (r, r), alpha = omega = 1, beta = 0.
  __device__ static void start(sc_t& sc, S rr) {
    sc.rr = sc.rho = rr;
    sc.r_hat2 = static_cast<double>(rr);
    sc.alpha = sc.omega = S(1);
    sc.beta = S(0);
    sc.restart_pending = 0;
    sc.since_restart = 0;
    if (sc.rr == S(0))
      sc.stop = exact_zero;
  }

  // Step 2: alpha = rho / (r_hat, v); clears the restart flag (every block of step 1 read it).
  __device__ static void alpha(sc_t& sc, S rv) {
    sc.restart_pending = 0;
    if (rv == S(0) || !finite(rv)) {
      sc.stop = rv == S(0) ? breakdown_rv : breakdown_nonfinite;
      return;
    }
    sc.alpha = sc.rho / rv;
  }

  // Step 4: omega = (t, s) / (t, t). t = 0 means s = 0 for a nonsingular A: x is the solution.
  __device__ static void omega(sc_t& sc, S ts, S tt) {
    if (tt == S(0)) {
      sc.omega = S(0);
      sc.stop = exact_zero;
      return;
    }
    sc.omega = ts / tt;
    if (sc.omega == S(0) || !finite(sc.omega))
      sc.stop = sc.omega == S(0) ? breakdown_omega : breakdown_nonfinite;
  }

  // Step 5: records ||r|| / ||b||, then beta from the new rho = (r_hat, r), or the near-breakdown
  // rule (near_breakdown.hpp): a restart (r_hat := r, rho = (r, r), beta = 0, flag for step 1),
  // or, in the first iteration after the last one, a breakdown.
  __device__ static void rho(sc_t& sc, S rho, S rr, double* history, double threshold) {
    sc.rr = rr;
    history[sc.iter++] = std::sqrt(static_cast<double>(rr)) / sc.normb;
    if (rr == S(0)) {
      sc.stop = exact_zero;
      return;
    }
    if (!finite(rho) || !finite(rr)) {
      sc.stop = breakdown_nonfinite;
      return;
    }
    ++sc.since_restart;
    if (rho_near_breakdown(static_cast<double>(rho), sc.r_hat2, static_cast<double>(rr),
                           threshold)) {
      if (sc.since_restart == 1) {
        sc.stop = breakdown_rho;
        return;
      }
      sc.rho = rr;
      sc.r_hat2 = static_cast<double>(rr);
      sc.beta = S(0);
      sc.restart_pending = 1;
      sc.since_restart = 0;
      ++sc.restarts;
      return;
    }
    sc.beta = (rho / sc.rho) * (sc.alpha / sc.omega);
    sc.rho = rho;
  }
};

template <class P>
struct bicgstab_ops {
  using M = typename P::matrix_t;
  using V = typename P::vec_t;
  using S = typename P::scalar_t;
  using D = typename P::dot;
  using sc_t = bicgstab_scalars<S>;
  using steps = bicgstab_steps<S>;
  using dir_t = V; // p and r_hat

  struct guarded {
    sc_t* sc;
    __device__ bool active() const { return sc->stop == running; }
  };

  // r = r_hat = src, p = v = 0; rho = rr = (r, r), alpha = omega = 1, beta = 0.
  struct start : guarded {
    using dots_t = acc_array<D, 1>;
    const V* src;
    V *r, *r_hat, *p, *v;
    __device__ void load() {}
    __device__ void element(std::int64_t i, dots_t& d) const {
      const V ri = src[i];
      r[i] = ri;
      r_hat[i] = ri;
      p[i] = V(0);
      v[i] = V(0);
      add_product(d.a[0], ri, ri);
    }
    __device__ void finish(const dots_t& d) const {
      steps::start(*this->sc, static_cast<S>(tcr::result(d.a[0])));
    }
  };

  // p = r + beta (p - omega v); after a near-breakdown restart r_hat = p = r.
  struct direction : guarded {
    using dots_t = no_dots;
    V *p, *r_hat;
    const V *r, *v;
    S beta, omega;
    int restart;
    __device__ void load() {
      beta = this->sc->beta, omega = this->sc->omega, restart = this->sc->restart_pending;
    }
    __device__ void element(std::int64_t i, no_dots&) const {
      const V ri = r[i];
      if (restart) {
        r_hat[i] = ri;
        p[i] = ri;
      } else {
        p[i] = ri + beta * (p[i] - omega * v[i]);
      }
    }
  };

  struct matvec_v : guarded {
    using row_acc = typename P::row_acc;
    using dots_t = acc_array<D, 1>;
    csr_view<M> A;
    const V *p, *r_hat;
    V* v;
    __device__ void load() {}
    __device__ V x_at(int j) const { return p[j]; }
    __device__ void row(int i, const row_acc& acc, dots_t& d) const {
      const V y = static_cast<V>(tcr::result(acc));
      v[i] = y;
      add_product(d.a[0], r_hat[i], y);
    }
    __device__ void finish(const dots_t& d) const {
      steps::alpha(*this->sc, static_cast<S>(tcr::result(d.a[0])));
    }
  };

  struct half_step : guarded {
    using dots_t = no_dots;
    V *s, *x;
    const V *r, *v, *p;
    S alpha;
    __device__ void load() { alpha = this->sc->alpha; }
    __device__ void element(std::int64_t i, no_dots&) const {
      s[i] = r[i] - alpha * v[i];
      x[i] = x[i] + alpha * p[i];
    }
  };

  struct matvec_t : guarded {
    using row_acc = typename P::row_acc;
    using dots_t = acc_array<D, 2>;
    csr_view<M> A;
    const V* s;
    V* t;
    __device__ void load() {}
    __device__ V x_at(int j) const { return s[j]; }
    __device__ void row(int i, const row_acc& acc, dots_t& d) const {
      const V y = static_cast<V>(tcr::result(acc));
      t[i] = y;
      add_product(d.a[0], y, s[i]);
      add_product(d.a[1], y, y);
    }
    __device__ void finish(const dots_t& d) const {
      steps::omega(*this->sc, static_cast<S>(tcr::result(d.a[0])),
                   static_cast<S>(tcr::result(d.a[1])));
    }
  };

  struct full_step : guarded {
    using dots_t = acc_array<D, 2>;
    V *x, *r;
    const V *s, *t, *r_hat;
    double* history;
    S omega;
    __device__ void load() { omega = this->sc->omega; }
    __device__ void element(std::int64_t i, dots_t& d) const {
      const V si = s[i];
      x[i] = x[i] + omega * si;
      const V ri = si - omega * t[i];
      r[i] = ri;
      add_product(d.a[0], r_hat[i], ri);
      add_product(d.a[1], ri, ri);
    }
    __device__ void finish(const dots_t& d) const {
      steps::rho(*this->sc, static_cast<S>(tcr::result(d.a[0])),
                 static_cast<S>(tcr::result(d.a[1])), history, P::rho_restart);
    }
  };
};

// The host side of BiCGStab for a policy P and the steps Ops that implement it for P's vectors
// (bicgstab_ops, or bicgstab_df32_ops with float directions: Ops::dir_t, the type of p, r_hat).
template <class P, class Ops = bicgstab_ops<P>>
class bicgstab_solver : public solver_base<typename P::matrix_t, typename P::vec_t> {
  using base = solver_base<typename P::matrix_t, typename P::vec_t>;
  using V = typename P::vec_t;
  using W = typename Ops::dir_t;
  using S = typename P::scalar_t;
  using ops = Ops;

public:
  bicgstab_solver(const csr<double>& A, const std::vector<double>& b, const solve_options& o)
      : base(A, b, o.max_iterations), r_hat(b.size()), p(b.size()), v(b.size()), s(b.size()),
        t(b.size()), sc(1) {
    restart(this->b.get());
  }

  int step() {
    const auto A = this->A.view();
    V *x = this->x.get(), *r = this->r.get();
    auto* c = sc.get();
    launch_vector(this->shape, this->n,
                  typename ops::direction{{c}, p.get(), r_hat.get(), r, v.get(), S(0), S(0), 0},
                  this->ws, nullptr);
    launch_spmv(this->shape, this->lanes,
                typename ops::matvec_v{{c}, A, p.get(), r_hat.get(), v.get()}, this->ws, nullptr);
    launch_vector(this->shape, this->n,
                  typename ops::half_step{{c}, s.get(), x, r, v.get(), p.get(), S(0)}, this->ws,
                  nullptr);
    launch_spmv(this->shape, this->lanes, typename ops::matvec_t{{c}, A, s.get(), t.get()},
                this->ws, nullptr);
    launch_vector(this->shape, this->n,
                  typename ops::full_step{
                      {c}, x, r, s.get(), t.get(), r_hat.get(), this->d_history.get(), S(0)},
                  this->ws, nullptr);
    return 2;
  }
  bool can_replace_residual() const { return true; }
  solver_state read_state() {
    const bicgstab_scalars<S> h = read_back(sc.get());
    return {h.stop, static_cast<double>(h.rr), h.restarts};
  }
  void replace_residual() { restart(this->r_true.get()); }
  std::vector<double> history(int count) const { return this->history_of(count); }

private:
  void restart(const V* src) {
    bicgstab_scalars<S> h{};
    if (src != this->b.get())
      h = read_back(sc.get());
    h.normb = std::sqrt(this->normb2);
    h.stop = running;
    KRYLOV_CUDA(cudaMemcpy(sc.get(), &h, sizeof h, cudaMemcpyHostToDevice));
    launch_vector(
        this->shape, this->n,
        typename ops::start{{sc.get()}, src, this->r.get(), r_hat.get(), p.get(), v.get()},
        this->ws, nullptr);
  }

  dev_array<W> r_hat, p;
  dev_array<V> v, s, t;
  dev_array<bicgstab_scalars<S>> sc;
};

} // namespace krylov
