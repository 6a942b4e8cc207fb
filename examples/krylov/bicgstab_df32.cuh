// SPDX-License-Identifier: BSD-3-Clause
// Krylov example: BiCGStab with a float matrix and the iterate x, the residuals r and s and the
// products v = A p and t = A s as double-word float pairs (tcr::df32); the direction p and the
// shadow vector r_hat in float. The five launches and the scalar steps (bicgstab_steps, with the
// near-breakdown restart) of bicgstab.cuh.
//
// Why x and r stay consistent to O(u^2) (cg_df32.cuh's argument, u = 2^-24): an iteration makes
//   x += alpha p + omega s,   r = (r - alpha v) - omega t,   s = r - alpha v,
// with one float alpha and one float omega shared by both sides, v = A p and t = A s from
// compensated rows (Dot2's unrounded pair; s enters as its two halves, every product exact),
// alpha p exact (two_prod), alpha v, omega s, omega t within 2u^2 (DWTimesFP3) and each pair
// addition within 3u^2 (JMP). So b - A x - r grows by O(u^2) of the residuals per iteration;
// the float p and r_hat only choose the directions, and the scalars' float rounding only changes
// which step is taken, never its consistency (it does make rho lose information at float's
// rate: near_breakdown.hpp's rho_restart_df32).
#pragma once

#include "bicgstab.cuh"

namespace krylov {

struct bicgstab_df32_ops {
  using S = float;
  using dir_t = float; // p and r_hat
  using sc_t = bicgstab_scalars<S>;
  using steps = bicgstab_steps<S>;
  using dot1 = acc_array<tcr::dot2<float>, 1>;
  using dot2x = acc_array<tcr::dot2<float>, 2>;

  struct guarded {
    sc_t* sc;
    __device__ bool active() const { return sc->stop == running; }
  };

  // r = src, r_hat = src.hi, p = v = 0; rho = rr = (r.hi, r.hi).
  struct start : guarded {
    using dots_t = dot1;
    const df32_elem* src;
    df32_elem* r;
    float *r_hat, *p;
    df32_elem* v;
    __device__ void load() {}
    __device__ void element(std::int64_t i, dots_t& d) const {
      const df32_elem ri = src[i];
      r[i] = ri;
      r_hat[i] = ri.hi;
      p[i] = 0.0f;
      v[i] = {0.0f, 0.0f};
      d.a[0].add(ri.hi, ri.hi);
    }
    __device__ void finish(const dots_t& d) const { steps::start(*this->sc, d.a[0].result()); }
  };

  // p = r.hi + beta (p - omega v.hi); after a near-breakdown restart r_hat = p = r.hi.
  struct direction : guarded {
    using dots_t = no_dots;
    float *p, *r_hat;
    const df32_elem *r, *v;
    float beta, omega;
    int restart;
    __device__ void load() {
      beta = this->sc->beta, omega = this->sc->omega, restart = this->sc->restart_pending;
    }
    __device__ void element(std::int64_t i, no_dots&) const {
      const float ri = r[i].hi;
      if (restart) {
        r_hat[i] = ri;
        p[i] = ri;
      } else {
        p[i] = ri + beta * (p[i] - omega * v[i].hi);
      }
    }
  };

  // v = A p as the rows' unrounded pairs, (r_hat, v) over both halves; alpha.
  struct matvec_v : guarded {
    using row_acc = tcr::dot2<float>;
    using dots_t = dot1;
    csr_view<float> A;
    const float *p, *r_hat;
    df32_elem* v;
    __device__ void load() {}
    __device__ float x_at(int j) const { return p[j]; }
    __device__ void row(int i, const row_acc& acc, dots_t& d) const {
      const tcr::df32 y = acc.result_pair();
      v[i] = to_elem(y);
      add_pair_product(d.a[0], r_hat[i], y);
    }
    __device__ void finish(const dots_t& d) const { steps::alpha(*this->sc, d.a[0].result()); }
  };

  // s = r - alpha v, x += alpha p (alpha p exact).
  struct half_step : guarded {
    using dots_t = no_dots;
    df32_elem *s, *x;
    const df32_elem *r, *v;
    const float* p;
    float alpha;
    __device__ void load() { alpha = this->sc->alpha; }
    __device__ void element(std::int64_t i, no_dots&) const {
      s[i] = to_elem(tcr::sub(to_pair(r[i]), tcr::mul(to_pair(v[i]), alpha)));
      x[i] = to_elem(tcr::add(to_pair(x[i]), tcr::df32::from_product(alpha, p[i])));
    }
  };

  // t = A s (s's two halves into one compensated row), (t, s) and (t, t) to second order in the
  // low parts; omega.
  struct matvec_t : guarded {
    using row_acc = tcr::dot2<float>;
    using dots_t = dot2x;
    csr_view<float> A;
    const df32_elem* s;
    df32_elem* t;
    __device__ void load() {}
    __device__ df32_elem x_at(int j) const { return s[j]; }
    __device__ void row(int i, const row_acc& acc, dots_t& d) const {
      const tcr::df32 y = acc.result_pair();
      t[i] = to_elem(y);
      add_omega_products(d.a[0], d.a[1], y, s[i]);
    }
    __device__ void finish(const dots_t& d) const {
      steps::omega(*this->sc, d.a[0].result(), d.a[1].result());
    }
  };

  // x += omega s, r = s - omega t, (r_hat, r) over both halves and (r.hi, r.hi); beta or a
  // restart.
  struct full_step : guarded {
    using dots_t = dot2x;
    df32_elem *x, *r;
    const df32_elem *s, *t;
    const float* r_hat;
    double* history;
    float omega;
    __device__ void load() { omega = this->sc->omega; }
    __device__ void element(std::int64_t i, dots_t& d) const {
      const tcr::df32 si = to_pair(s[i]);
      x[i] = to_elem(tcr::add(to_pair(x[i]), tcr::mul(si, omega)));
      const tcr::df32 rn = tcr::sub(si, tcr::mul(to_pair(t[i]), omega));
      r[i] = to_elem(rn);
      add_pair_product(d.a[0], r_hat[i], rn);
      d.a[1].add(rn.hi, rn.hi);
    }
    __device__ void finish(const dots_t& d) const {
      steps::rho(*this->sc, d.a[0].result(), d.a[1].result(), history, df32_policy::rho_restart);
    }
  };
};

using bicgstab_df32_solver = bicgstab_solver<df32_policy, bicgstab_df32_ops>;

} // namespace krylov
