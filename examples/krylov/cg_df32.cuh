// SPDX-License-Identifier: BSD-3-Clause
// Krylov example: CG with a float matrix and the iterate x, residual r and product q = A p as
// double-word float pairs (tcr::df32), the search direction p in float. Same three launches as
// cg.cuh.
//
// Why it reaches double-level true residuals: the gap b - A x_k - r_k grows only by what the
// updates x += alpha p and r -= alpha q fail to keep consistent. alpha is one float used by both;
// alpha p is exact as a pair (two_prod); q is A p from a compensated row (Dot2's unrounded pair,
// error about gamma_h^2 sum |a_ij p_j|); the pair additions err by 3u^2 relative (JMP). So the
// gap stays at O(u^2) of the residual history instead of O(u), and p's own rounding only changes
// which direction is searched, never the consistency of x and r.
#pragma once

#include "cg.cuh"

namespace krylov {

struct cg_df32_ops {
  using S = float;
  using dot1 = acc_array<tcr::dot2<float>, 1>;

  struct guarded {
    cg_scalars<S>* sc;
    __device__ bool active() const { return sc->stop == running; }
  };

  struct start : guarded {
    using dots_t = dot1;
    const df32_elem* src;
    df32_elem* r;
    float* p;
    __device__ void load() {}
    __device__ void element(std::int64_t i, dots_t& d) const {
      const df32_elem v = src[i];
      r[i] = v;
      p[i] = v.hi;
      d.a[0].add(v.hi, v.hi);
    }
    __device__ void finish(const dots_t& d) const {
      this->sc->rr = d.a[0].result();
      if (this->sc->rr == 0.0f)
        this->sc->stop = exact_zero;
    }
  };

  struct matvec : guarded {
    using row_acc = tcr::dot2<float>;
    using dots_t = dot1;
    csr_view<float> A;
    const float* p;
    df32_elem* q;
    __device__ void load() {}
    __device__ float x_at(int j) const { return p[j]; }
    __device__ void row(int i, const row_acc& acc, dots_t& d) const {
      const tcr::df32 y = acc.result_pair();
      q[i] = to_elem(y);
      add_pair_product(d.a[0], p[i], y);
    }
    __device__ void finish(const dots_t& d) const {
      cg_scalars<S>& sc = *this->sc;
      const float pq = d.a[0].result();
      if (!(pq > 0.0f) || !finite(pq)) {
        sc.stop = sc.rr == 0.0f ? exact_zero : breakdown_pap;
        return;
      }
      sc.alpha = sc.rr / pq;
    }
  };

  struct update : guarded {
    using dots_t = dot1;
    df32_elem *x, *r;
    const float* p;
    const df32_elem* q;
    double* history;
    float alpha;
    __device__ void load() { alpha = this->sc->alpha; }
    __device__ void element(std::int64_t i, dots_t& d) const {
      x[i] = to_elem(tcr::add(to_pair(x[i]), tcr::df32::from_product(alpha, p[i])));
      const tcr::df32 rn = tcr::sub(to_pair(r[i]), tcr::mul(to_pair(q[i]), alpha));
      r[i] = to_elem(rn);
      d.a[0].add(rn.hi, rn.hi);
    }
    __device__ void finish(const dots_t& d) const {
      cg_scalars<S>& sc = *this->sc;
      const float rr = d.a[0].result();
      history[sc.iter++] = std::sqrt(static_cast<double>(rr)) / sc.normb;
      if (!finite(rr)) {
        sc.stop = breakdown_nonfinite;
        return;
      }
      sc.beta = rr / sc.rr;
      sc.rr = rr;
      if (rr == 0.0f)
        sc.stop = exact_zero;
    }
  };

  struct direction : guarded {
    using dots_t = no_dots;
    float* p;
    const df32_elem* r;
    float beta;
    __device__ void load() { beta = this->sc->beta; }
    __device__ void element(std::int64_t i, no_dots&) const { p[i] = r[i].hi + beta * p[i]; }
  };
};

class cg_df32_solver : public solver_base<float, df32_elem> {
  using base = solver_base<float, df32_elem>;
  using ops = cg_df32_ops;

public:
  cg_df32_solver(const csr<double>& A, const std::vector<double>& b, const solve_options& o)
      : base(A, b, o.max_iterations), p(b.size()), q(b.size()), sc(1) {
    cg_scalars<float> h{};
    h.normb = std::sqrt(normb2);
    KRYLOV_CUDA(cudaMemcpy(sc.get(), &h, sizeof h, cudaMemcpyHostToDevice));
    launch_vector(shape, n, ops::start{{sc.get()}, this->b.get(), r.get(), p.get()}, ws, nullptr);
  }

  int step() {
    launch_spmv(shape, lanes, ops::matvec{{sc.get()}, A.view(), p.get(), q.get()}, ws, nullptr);
    launch_vector(
        shape, n,
        ops::update{{sc.get()}, x.get(), r.get(), p.get(), q.get(), d_history.get(), 0.0f}, ws,
        nullptr);
    launch_vector(shape, n, ops::direction{{sc.get()}, p.get(), r.get(), 0.0f}, ws, nullptr);
    return 1;
  }
  bool can_replace_residual() const { return true; }
  solver_state read_state() {
    const cg_scalars<float> h = read_back(sc.get());
    return {h.stop, static_cast<double>(h.rr)};
  }
  // Restart from the true residual, r = b - A x as a pair and p = r.hi (cg.cuh says why).
  void replace_residual() {
    cg_scalars<float> h = read_back(sc.get());
    h.stop = running;
    KRYLOV_CUDA(cudaMemcpy(sc.get(), &h, sizeof h, cudaMemcpyHostToDevice));
    launch_vector(shape, n, ops::start{{sc.get()}, r_true.get(), r.get(), p.get()}, ws, nullptr);
  }
  std::vector<double> history(int count) const { return history_of(count); }

private:
  dev_array<float> p;
  dev_array<df32_elem> q;
  dev_array<cg_scalars<float>> sc;
};

} // namespace krylov
