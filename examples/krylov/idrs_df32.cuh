// SPDX-License-Identifier: BSD-3-Clause
// Krylov example: IDR(s) with a float matrix and every vector but the shadow space P as
// double-word float pairs (tcr::df32): x, r, t = A r, and the s columns of U and G = A U. The
// launches and the scalar steps (idrs_steps) of idrs.cuh; P in float.
//
// Why U and G are pairs too (in cg_df32.cuh's argument, u = 2^-24): x += beta U_k and
// r -= beta G_k keep b - A x - r where it is only while G_k = A U_k, and step 3 builds both
// columns by the same combinations G_k - sum alpha_j G_j, U_k - sum alpha_j U_j of columns that
// satisfy it. In float each combination rounds by u on its own side, so G = A U, and with it the
// consistency of x and r, decays by O(u) per step. As pairs every combination errs by O(u^2)
// (DWTimesFP3 2u^2, pair additions 3u^2, JMP); G_k = A U_k itself comes from compensated rows
// over both halves of U_k, and t = A r over both halves of r. Not changed by the pairs: M, f, c,
// alpha, beta and omega are floats, so the recurrences' own rounding is still float's.
#pragma once

#include "idrs.cuh"

namespace krylov {

template <int S>
struct idrs_df32_ops {
  using T = float;
  using sc_t = idrs_scalars<T, S>;
  using steps = idrs_steps<T, S>;
  using pair = tcr::df32;
  using shadow_t = float; // P

  struct vecs {
    const float* p[S];
    df32_elem* g[S];
    df32_elem* u[S];
  };

  struct guarded {
    sc_t* sc;
    __device__ bool active() const { return sc->stop == running; }
  };

  // r = src, f = P^T r, rr = (r.hi, r.hi); c = M \ f.
  struct start : guarded {
    using dots_t = acc_array<tcr::dot2<float>, S + 1>;
    vecs w;
    const df32_elem* src;
    df32_elem* r;
    __device__ void load() {}
    __device__ void element(std::int64_t i, dots_t& d) const {
      const df32_elem ri = src[i];
      r[i] = ri;
#pragma unroll
      for (int j = 0; j < S; ++j)
        add_pair_product(d.a[j], w.p[j][i], to_pair(ri));
      d.a[S].add(ri.hi, ri.hi);
    }
    __device__ void finish(const dots_t& d) const {
      T f[S];
      for (int j = 0; j < S; ++j)
        f[j] = d.a[j].result();
      steps::start(*this->sc, f, d.a[S].result());
    }
  };

  // U_k = U_{k:s} c + omega (r - G_{k:s} c), in pairs.
  struct make_u : guarded {
    using dots_t = no_dots;
    vecs w;
    const df32_elem* r;
    int k;
    T c[S];
    T omega;
    __device__ void load() {
      for (int j = k; j < S; ++j)
        c[j] = this->sc->c[j];
      omega = this->sc->omega;
    }
    __device__ void element(std::int64_t i, no_dots&) const {
      pair v = to_pair(r[i]), u{};
#pragma unroll
      for (int j = 0; j < S; ++j)
        if (j >= k) {
          v = tcr::sub(v, tcr::mul(to_pair(w.g[j][i]), c[j]));
          u = tcr::add(u, tcr::mul(to_pair(w.u[j][i]), c[j]));
        }
      w.u[k][i] = to_elem(tcr::add(u, tcr::mul(v, omega)));
    }
  };

  // G_k = A U_k (both halves of U_k, the rows' unrounded pairs), a = P^T G_k.
  struct matvec_g : guarded {
    using row_acc = tcr::dot2<float>;
    using dots_t = acc_array<tcr::dot2<float>, S>;
    csr_view<float> A;
    vecs w;
    int k;
    __device__ void load() {}
    __device__ df32_elem x_at(int j) const { return w.u[k][j]; }
    __device__ void row(int i, const row_acc& acc, dots_t& d) const {
      const pair y = acc.result_pair();
      w.g[k][i] = to_elem(y);
#pragma unroll
      for (int j = 0; j < S; ++j)
        add_pair_product(d.a[j], w.p[j][i], y);
    }
    __device__ void finish(const dots_t& d) const {
      T a[S];
      for (int j = 0; j < S; ++j)
        a[j] = d.a[j].result();
      steps::biorthogonalise(*this->sc, a, k);
    }
  };

  // G_k -= G_{0:k} alpha, U_k -= U_{0:k} alpha, r -= beta G_k, x += beta U_k (pairs), (r, r).
  struct update : guarded {
    using dots_t = acc_array<tcr::dot2<float>, 1>;
    vecs w;
    df32_elem *r, *x;
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
      pair g = to_pair(w.g[k][i]), u = to_pair(w.u[k][i]);
#pragma unroll
      for (int j = 0; j < S; ++j)
        if (j < k) {
          g = tcr::sub(g, tcr::mul(to_pair(w.g[j][i]), alpha[j]));
          u = tcr::sub(u, tcr::mul(to_pair(w.u[j][i]), alpha[j]));
        }
      w.g[k][i] = to_elem(g);
      w.u[k][i] = to_elem(u);
      const pair rn = tcr::sub(to_pair(r[i]), tcr::mul(g, beta));
      r[i] = to_elem(rn);
      x[i] = to_elem(tcr::add(to_pair(x[i]), tcr::mul(u, beta)));
      d.a[0].add(rn.hi, rn.hi);
    }
    __device__ void finish(const dots_t& d) const {
      steps::updated(*this->sc, d.a[0].result(), k, history);
    }
  };

  // t = A r (both halves of r), (t, r) and (t, t) to second order in the low parts; omega.
  struct matvec_t : guarded {
    using row_acc = tcr::dot2<float>;
    using dots_t = acc_array<tcr::dot2<float>, 2>;
    csr_view<float> A;
    const df32_elem* r;
    df32_elem* t;
    __device__ void load() {}
    __device__ df32_elem x_at(int j) const { return r[j]; }
    __device__ void row(int i, const row_acc& acc, dots_t& d) const {
      const pair y = acc.result_pair();
      t[i] = to_elem(y);
      add_omega_products(d.a[0], d.a[1], y, r[i]);
    }
    __device__ void finish(const dots_t& d) const {
      steps::omega(*this->sc, d.a[0].result(), d.a[1].result());
    }
  };

  // x += omega r, r -= omega t (pairs), f = P^T r, (r.hi, r.hi); c = M \ f.
  struct reduce : guarded {
    using dots_t = acc_array<tcr::dot2<float>, S + 1>;
    vecs w;
    df32_elem *r, *x;
    const df32_elem* t;
    double* history;
    T omega;
    __device__ void load() { omega = this->sc->omega; }
    __device__ void element(std::int64_t i, dots_t& d) const {
      const pair ri = to_pair(r[i]);
      x[i] = to_elem(tcr::add(to_pair(x[i]), tcr::mul(ri, omega)));
      const pair rn = tcr::sub(ri, tcr::mul(to_pair(t[i]), omega));
      r[i] = to_elem(rn);
#pragma unroll
      for (int j = 0; j < S; ++j)
        add_pair_product(d.a[j], w.p[j][i], rn);
      d.a[S].add(rn.hi, rn.hi);
    }
    __device__ void finish(const dots_t& d) const {
      T f[S];
      for (int j = 0; j < S; ++j)
        f[j] = d.a[j].result();
      steps::reduced(*this->sc, f, d.a[S].result(), history);
    }
  };
};

template <int S>
using idrs_df32_solver = idrs_solver<df32_policy, S, idrs_df32_ops<S>>;

} // namespace krylov
