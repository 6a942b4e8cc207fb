// SPDX-License-Identifier: BSD-3-Clause
// Krylov example: IDR(s) with biorthogonalisation (van Gijzen and Sonneveld, ACM TOMS 38(1),
// 2011, Alg. 913; the reference MATLAB idrs.m without preconditioning or smoothing). P holds s
// orthonormalised random shadow vectors, G = A U, and M = P^T G is lower triangular.
//
// Inner step k = 0 .. s-1 (one SpMV, three launches):
//   1. U_k = U_{k:s} c + omega (r - G_{k:s} c)            (c = M_{k:s,k:s} \ f_{k:s}, computed
//                                                          by the previous step's last block)
//   2. G_k = A U_k, a = P^T G_k fused (s dots); last block: the biorthogonalisation
//      coefficients alpha = M_{0:k,0:k} \ a_{0:k}, M_{k:s,k} = a_{k:s} - M_{k:s,0:k} alpha,
//      beta = f_k / M_kk, f_{k+1:s} -= beta M_{k+1:s,k}
//   3. G_k -= G_{0:k} alpha, U_k -= U_{0:k} alpha, r -= beta G_k, x += beta U_k, (r, r) fused
// MATLAB subtracts alpha_i G_i one at a time, each alpha_i from a fresh dot (P_i, G_k); since
// (P_i, G_j) = M_ij for j < i, the same coefficients follow from one fused P^T G_k and a
// triangular solve, so the s dots of a step are one grid reduction.
// Dimension reduction (one SpMV, two launches):
//   4. t = A r, (t, r) and (t, t) fused; last block: omega, with van Gijzen's angle 0.7 rule
//   5. x += omega r, r -= omega t, f = P^T r and (r, r) fused (s + 1 dots); last block: c = M \ f
// One iteration is one SpMV (as idrs.m counts); a cycle is s + 1 of them. The host checks
// convergence every check_every products wherever they fall (x and r are updated together at
// every step); a residual replacement waits for a cycle end, where the replaced r gets a fresh
// f = P^T r.
#pragma once

#include "precision.cuh"
#include "shadow_space.hpp"

namespace krylov {

template <class T, int S>
struct idrs_scalars {
  T m[S][S]; // M = P^T G, lower triangular
  T f[S];    // P^T r
  T c[S];    // the current step's combination
  T alpha[S];
  T beta, omega, rr;
  double normb;
  int stop, iter;
};

// The scalar steps, run by one thread of the last block of each fused kernel on the reduced
// dot products; the same for every storage scheme of the vectors (idrs_df32.cuh uses them).
template <class T, int S>
struct idrs_steps {
  using sc_t = idrs_scalars<T, S>;

  // c_{k:s} = M_{k:s,k:s} \ f_{k:s} (forward substitution); false on a zero pivot.
  __device__ static bool solve_c(sc_t& sc, int k) {
    for (int i = k; i < S; ++i) {
      T v = sc.f[i];
      for (int j = k; j < i; ++j)
        v -= sc.m[i][j] * sc.c[j];
      if (sc.m[i][i] == T(0))
        return false;
      sc.c[i] = v / sc.m[i][i];
    }
    return true;
  }

  // After r = r_0: f = P^T r, rr = (r, r); c = M \ f.
  __device__ static void start(sc_t& sc, const T (&f)[S], T rr) {
    for (int j = 0; j < S; ++j)
      sc.f[j] = f[j];
    sc.rr = rr;
    if (sc.rr == T(0))
      sc.stop = exact_zero;
    else if (!solve_c(sc, 0))
      sc.stop = breakdown_m;
  }

  // Step 2, a = P^T G_k: alpha = M_{0:k,0:k} \ a_{0:k}, M_{k:s,k} = a_{k:s} - M_{k:s,0:k} alpha,
  // beta = f_k / M_kk, f_{k+1:s} -= beta M_{k+1:s,k}.
  __device__ static void biorthogonalise(sc_t& sc, const T (&a)[S], int k) {
    for (int i = 0; i < k; ++i) {
      T v = a[i];
      for (int j = 0; j < i; ++j)
        v -= sc.m[i][j] * sc.alpha[j];
      sc.alpha[i] = v / sc.m[i][i]; // nonzero: checked when M_ii was made
    }
    for (int i = k; i < S; ++i) {
      T v = a[i];
      for (int j = 0; j < k; ++j)
        v -= sc.m[i][j] * sc.alpha[j];
      sc.m[i][k] = v;
    }
    if (sc.m[k][k] == T(0) || !finite(sc.m[k][k])) {
      sc.stop = sc.m[k][k] == T(0) ? breakdown_m : breakdown_nonfinite;
      return;
    }
    sc.beta = sc.f[k] / sc.m[k][k];
    for (int i = k + 1; i < S; ++i)
      sc.f[i] -= sc.beta * sc.m[i][k];
  }

  // rr = (r, r) and ||r|| / ||b|| into the history; false, with the stop code, when r is
  // exactly zero or rr not finite.
  __device__ static bool record(sc_t& sc, T rr, double* history) {
    sc.rr = rr;
    history[sc.iter++] = std::sqrt(static_cast<double>(rr)) / sc.normb;
    if (rr == T(0))
      sc.stop = exact_zero;
    else if (!finite(rr))
      sc.stop = breakdown_nonfinite;
    return sc.stop == running;
  }

  // Step 3, rr = (r, r): the next step's c.
  __device__ static void updated(sc_t& sc, T rr, int k, double* history) {
    if (record(sc, rr, history) && k + 1 < S && !solve_c(sc, k + 1))
      sc.stop = breakdown_m;
  }

  // Step 4: omega = (t, r) / (t, t), with van Gijzen's angle 0.7 rule.
  __device__ static void omega(sc_t& sc, T ts, T tt) {
    const T angle = T(0.7);
    const T nt = std::sqrt(tt), nr = std::sqrt(sc.rr);
    T om = ts / tt;
    const T rho = std::abs(ts / (nt * nr));
    if (rho < angle)
      om = om * angle / rho;
    sc.omega = om;
    if (om == T(0) || !finite(om))
      sc.stop = om == T(0) ? breakdown_omega : breakdown_nonfinite;
  }

  // Step 5, f = P^T r and rr = (r, r): c = M \ f.
  __device__ static void reduced(sc_t& sc, const T (&f)[S], T rr, double* history) {
    for (int j = 0; j < S; ++j)
      sc.f[j] = f[j];
    if (record(sc, rr, history) && !solve_c(sc, 0))
      sc.stop = breakdown_m;
  }
};

template <class P, int S>
struct idrs_ops {
  using M = typename P::matrix_t;
  using V = typename P::vec_t;
  using T = typename P::scalar_t;
  using D = typename P::dot;
  using sc_t = idrs_scalars<T, S>;
  using steps = idrs_steps<T, S>;
  using shadow_t = V; // P

  struct vecs {
    const V* p[S];
    V* g[S];
    V* u[S];
  };

  struct guarded {
    sc_t* sc;
    __device__ bool active() const { return sc->stop == running; }
  };

  // r = src (b, or the true residual), f = P^T r, rr = (r, r); c = M \ f.
  struct start : guarded {
    using dots_t = acc_array<D, S + 1>;
    vecs w;
    const V* src;
    V* r;
    __device__ void load() {}
    __device__ void element(std::int64_t i, dots_t& d) const {
      const V ri = src[i];
      r[i] = ri;
#pragma unroll
      for (int j = 0; j < S; ++j)
        add_product(d.a[j], w.p[j][i], ri);
      add_product(d.a[S], ri, ri);
    }
    __device__ void finish(const dots_t& d) const {
      T f[S];
      for (int j = 0; j < S; ++j)
        f[j] = static_cast<T>(tcr::result(d.a[j]));
      steps::start(*this->sc, f, static_cast<T>(tcr::result(d.a[S])));
    }
  };

  // U_k = U_{k:s} c + omega (r - G_{k:s} c).
  struct make_u : guarded {
    using dots_t = no_dots;
    vecs w;
    const V* r;
    int k;
    T c[S];
    T omega;
    __device__ void load() {
      for (int j = k; j < S; ++j)
        c[j] = this->sc->c[j];
      omega = this->sc->omega;
    }
    __device__ void element(std::int64_t i, no_dots&) const {
      V v = r[i], u = V(0);
#pragma unroll
      for (int j = 0; j < S; ++j)
        if (j >= k) {
          v -= c[j] * w.g[j][i];
          u += c[j] * w.u[j][i];
        }
      w.u[k][i] = u + omega * v;
    }
  };

  // G_k = A U_k, a = P^T G_k.
  struct matvec_g : guarded {
    using row_acc = typename P::row_acc;
    using dots_t = acc_array<D, S>;
    csr_view<M> A;
    vecs w;
    int k;
    __device__ void load() {}
    __device__ V x_at(int j) const { return w.u[k][j]; }
    __device__ void row(int i, const row_acc& acc, dots_t& d) const {
      const V y = static_cast<V>(tcr::result(acc));
      w.g[k][i] = y;
#pragma unroll
      for (int j = 0; j < S; ++j)
        add_product(d.a[j], w.p[j][i], y);
    }
    __device__ void finish(const dots_t& d) const {
      T a[S];
      for (int j = 0; j < S; ++j)
        a[j] = static_cast<T>(tcr::result(d.a[j]));
      steps::biorthogonalise(*this->sc, a, k);
    }
  };

  // G_k -= G_{0:k} alpha, U_k -= U_{0:k} alpha, r -= beta G_k, x += beta U_k, (r, r).
  struct update : guarded {
    using dots_t = acc_array<D, 1>;
    vecs w;
    V *r, *x;
    double* history;
    int k;
    T alpha[S];
    T beta;
    __device__ void load() {
      for (int j = 0; j < k; ++j)
        alpha[j] = this->sc->alpha[j];
      beta = this->sc->beta;
    }
    __device__ void element(std::int64_t i, dots_t& d) const {
      V g = w.g[k][i], u = w.u[k][i];
#pragma unroll
      for (int j = 0; j < S; ++j)
        if (j < k) {
          g -= alpha[j] * w.g[j][i];
          u -= alpha[j] * w.u[j][i];
        }
      w.g[k][i] = g;
      w.u[k][i] = u;
      const V ri = r[i] - beta * g;
      r[i] = ri;
      x[i] = x[i] + beta * u;
      add_product(d.a[0], ri, ri);
    }
    __device__ void finish(const dots_t& d) const {
      steps::updated(*this->sc, static_cast<T>(tcr::result(d.a[0])), k, history);
    }
  };

  // t = A r, (t, r), (t, t); omega.
  struct matvec_t : guarded {
    using row_acc = typename P::row_acc;
    using dots_t = acc_array<D, 2>;
    csr_view<M> A;
    const V* r;
    V* t;
    __device__ void load() {}
    __device__ V x_at(int j) const { return r[j]; }
    __device__ void row(int i, const row_acc& acc, dots_t& d) const {
      const V y = static_cast<V>(tcr::result(acc));
      t[i] = y;
      add_product(d.a[0], y, r[i]);
      add_product(d.a[1], y, y);
    }
    __device__ void finish(const dots_t& d) const {
      steps::omega(*this->sc, static_cast<T>(tcr::result(d.a[0])),
                   static_cast<T>(tcr::result(d.a[1])));
    }
  };

  // x += omega r, r -= omega t, f = P^T r, (r, r); c = M \ f.
  struct reduce : guarded {
    using dots_t = acc_array<D, S + 1>;
    vecs w;
    V *r, *x;
    const V* t;
    double* history;
    T omega;
    __device__ void load() { omega = this->sc->omega; }
    __device__ void element(std::int64_t i, dots_t& d) const {
      const V ri = r[i];
      x[i] = x[i] + omega * ri;
      const V rn = ri - omega * t[i];
      r[i] = rn;
#pragma unroll
      for (int j = 0; j < S; ++j)
        add_product(d.a[j], w.p[j][i], rn);
      add_product(d.a[S], rn, rn);
    }
    __device__ void finish(const dots_t& d) const {
      T f[S];
      for (int j = 0; j < S; ++j)
        f[j] = static_cast<T>(tcr::result(d.a[j]));
      steps::reduced(*this->sc, f, static_cast<T>(tcr::result(d.a[S])), history);
    }
  };
};

// The host side of IDR(s) for a policy P and the steps Ops that implement it for P's vectors
// (idrs_ops, or idrs_df32_ops with a float shadow space: Ops::shadow_t, the type of P).
template <class P, int S, class Ops = idrs_ops<P, S>>
class idrs_solver : public solver_base<typename P::matrix_t, typename P::vec_t> {
  using base = solver_base<typename P::matrix_t, typename P::vec_t>;
  using V = typename P::vec_t;
  using W = typename Ops::shadow_t;
  using T = typename P::scalar_t;
  using ops = Ops;

public:
  idrs_solver(const csr<double>& A, const std::vector<double>& b, const solve_options& o)
      : base(A, b, o.max_iterations), t(b.size()), sc(1) {
    const auto shadow = shadow_space(this->n, S, o.seed);
    for (int j = 0; j < S; ++j) {
      p[j] = dev_array<W>(std::vector<W>(shadow[j].begin(), shadow[j].end()));
      g[j] = dev_array<V>(b.size());
      u[j] = dev_array<V>(b.size());
      w.p[j] = p[j].get();
      w.g[j] = g[j].get();
      w.u[j] = u[j].get();
    }
    idrs_scalars<T, S> h{};
    for (int j = 0; j < S; ++j)
      h.m[j][j] = T(1);
    h.omega = T(1);
    h.normb = std::sqrt(this->normb2);
    KRYLOV_CUDA(cudaMemcpy(sc.get(), &h, sizeof h, cudaMemcpyHostToDevice));
    launch_vector(this->shape, this->n,
                  typename ops::start{{sc.get()}, w, this->b.get(), this->r.get()}, this->ws,
                  nullptr);
  }

  int step() {
    auto* c = sc.get();
    V *x = this->x.get(), *r = this->r.get();
    if (phase < S) {
      const int k = phase;
      launch_vector(this->shape, this->n, typename ops::make_u{{c}, w, r, k, {}, T(0)}, this->ws,
                    nullptr);
      launch_spmv(this->shape, this->lanes, typename ops::matvec_g{{c}, this->A.view(), w, k},
                  this->ws, nullptr);
      launch_vector(this->shape, this->n,
                    typename ops::update{{c}, w, r, x, this->d_history.get(), k, {}, T(0)},
                    this->ws, nullptr);
      ++phase;
    } else {
      launch_spmv(this->shape, this->lanes, typename ops::matvec_t{{c}, this->A.view(), r, t.get()},
                  this->ws, nullptr);
      launch_vector(this->shape, this->n,
                    typename ops::reduce{{c}, w, r, x, t.get(), this->d_history.get(), T(0)},
                    this->ws, nullptr);
      phase = 0;
    }
    return 1;
  }
  // At cycle ends, where start's fresh f = P^T r and c = M \ f begin the next cycle.
  bool can_replace_residual() const { return phase == 0; }
  solver_state read_state() {
    const idrs_scalars<T, S> h = read_back(sc.get());
    return {h.stop, static_cast<double>(h.rr)};
  }
  // r := b - A x with a fresh f = P^T r; G, U and M stay (G = A U still holds).
  void replace_residual() {
    idrs_scalars<T, S> h = read_back(sc.get());
    h.stop = running;
    KRYLOV_CUDA(cudaMemcpy(sc.get(), &h, sizeof h, cudaMemcpyHostToDevice));
    launch_vector(this->shape, this->n,
                  typename ops::start{{sc.get()}, w, this->r_true.get(), this->r.get()}, this->ws,
                  nullptr);
  }
  std::vector<double> history(int count) const { return this->history_of(count); }

private:
  dev_array<W> p[S];
  dev_array<V> g[S], u[S], t;
  typename ops::vecs w{};
  dev_array<idrs_scalars<T, S>> sc;
  int phase = 0;
};

} // namespace krylov
