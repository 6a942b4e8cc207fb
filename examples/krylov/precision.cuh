// SPDX-License-Identifier: BSD-3-Clause
// Krylov example: the precision policies of the solvers, and the solver state they all share
// (matrix, right-hand side, iterate, residual, history, workspace).
//   matrix_t  the matrix values      vec_t   the vectors
//   row_acc   an SpMV row's sum      dot     the inner products (accumulated per thread, merged
//   scalar_t  alpha, beta, ... (computed in the last block of each step)   over the grid)
//   rho_restart  BiCGStab's near-breakdown threshold on |rho| / (||r_hat|| ||r||), per
//                precision (near_breakdown.hpp says which study chose it)
#pragma once

#include <cmath>
#include <limits>
#include <tcr/compensated/double_word.cuh>
#include "driver.cuh"
#include "near_breakdown.hpp"
#include "spmv.cuh"

namespace krylov {

// Float as cuBLAS / cuSPARSE compute it: every row and inner product summed in float.
struct f32_policy {
  using matrix_t = float;
  using vec_t = float;
  using row_acc = float;
  using dot = float;
  using scalar_t = float;
  static constexpr double rho_restart = rho_restart_float;
};

// Float data and vectors, every SpMV row and inner product a compensated tcr dot (Dot2: as if
// computed in twice the precision, then rounded once to float).
struct tcr_f32_policy {
  using matrix_t = float;
  using vec_t = float;
  using row_acc = tcr::dot2<float>;
  using dot = tcr::dot2<float>;
  using scalar_t = float;
  static constexpr double rho_restart = rho_restart_float;
};

struct f64_policy {
  using matrix_t = double;
  using vec_t = double;
  using row_acc = double;
  using dot = double;
  using scalar_t = double;
  static constexpr double rho_restart = rho_restart_double;
};

// Float matrix, the iterate and the residuals as double-word float pairs (df32_elem on the
// device, tcr::df32 in arithmetic), compensated rows returning their unrounded pair, dots in
// dot2<float> and float scalars. Each solver says which of its vectors are pairs
// (cg_df32.cuh, bicgstab_df32.cuh, idrs_df32.cuh): those whose updates must keep x and r
// consistent; directions and shadow vectors stay float.
struct df32_policy {
  using matrix_t = float;
  using vec_t = df32_elem;
  using row_acc = tcr::dot2<float>;
  using dot = tcr::dot2<float>;
  using scalar_t = float;
  static constexpr double rho_restart = rho_restart_df32;
};

// Storage <-> arithmetic for double-word elements (both exact: the same two floats).
__device__ __forceinline__ tcr::df32 to_pair(df32_elem e) {
  return {e.hi, e.lo};
}
__device__ __forceinline__ df32_elem to_elem(tcr::df32 d) {
  return {d.hi, d.lo};
}

// a (v.hi + v.lo), both products exact, into a compensated dot.
__device__ __forceinline__ void add_pair_product(tcr::dot2<float>& acc, float a, tcr::df32 v) {
  acc.add(a, v.hi);
  acc.add(a, v.lo);
}

// (t, s) and (t, t) of pairs to second order in the low parts (t.lo s.lo and t.lo^2 are below
// the dots' float results), as BiCGStab's and IDR(s)'s omega steps need them.
__device__ __forceinline__ void add_omega_products(tcr::dot2<float>& ts, tcr::dot2<float>& tt,
                                                   tcr::df32 t, df32_elem s) {
  ts.add(t.hi, s.hi);
  ts.add(t.hi, s.lo);
  ts.add(t.lo, s.hi);
  tt.add(t.hi, t.hi);
  tt.add(t.hi, 2.0f * t.lo);
}

// What every solver holds: the problem in the policy's types, x, r, the true-residual scratch,
// the device history of recurrence residuals and the grid workspace.
template <class M, class V>
struct solver_base {
  device_csr<M> A;
  int n;
  int lanes;
  launch_shape shape = launch_shape::current();
  dev_array<V> b, x, r, r_true;
  dev_array<double> d_history, scratch; // scratch[0]: ||b||^2, scratch[1]: ||b - A x||^2
  dev_array<unsigned char> ws_bytes;
  grid_workspace ws;
  double normb2 = 0;

  solver_base(const csr<double>& A_host, const std::vector<double>& b_host, int max_iterations)
      : A(A_host), n(static_cast<int>(A_host.rows)), lanes(A.lanes_per_row()), b(to_vec(b_host)),
        x(b_host.size()), r(b_host.size()), r_true(b_host.size()),
        d_history(std::vector<double>(max_iterations + 2, std::nan(""))), scratch(2),
        ws_bytes(grid_workspace_bytes + 256) {
    ws.partials = ws_bytes.get();
    ws.counter = reinterpret_cast<unsigned*>(ws_bytes.get() + grid_workspace_bytes);
    launch_vector(shape, n, norm2_op<V>{{}, b.get(), scratch.get()}, ws, nullptr);
    normb2 = read_back(scratch.get());
  }

  static std::vector<V> to_vec(const std::vector<double>& h) {
    std::vector<V> v(h.size());
    for (std::size_t i = 0; i < h.size(); ++i)
      v[i] = from_double(h[i]);
    return v;
  }
  static V from_double(double d) {
    if constexpr (std::is_same_v<V, df32_elem>) {
      const float hi = static_cast<float>(d);
      return {hi, static_cast<float>(d - hi)};
    } else {
      return static_cast<V>(d);
    }
  }

  // ||b - A x||^2 with dot2<double> rows into r_true (synchronises).
  double true_residual2() {
    launch_spmv(shape, lanes,
                true_residual_epi<M, V, V, V>{
                    {}, A.view(), x.get(), b.get(), r_true.get(), scratch.get() + 1},
                ws, nullptr);
    return read_back(scratch.get() + 1);
  }
  std::vector<double> history_of(int count) const { return read_history(d_history, count); }
  std::vector<double> solution() const {
    const std::vector<V> h = x.download();
    std::vector<double> d(h.size());
    for (std::size_t i = 0; i < h.size(); ++i) {
      if constexpr (std::is_same_v<V, df32_elem>)
        d[i] = static_cast<double>(h[i].hi) + static_cast<double>(h[i].lo);
      else
        d[i] = static_cast<double>(h[i]);
    }
    return d;
  }
  std::uint64_t solution_hash() const { return fnv1a(x.download()); }
};

// A scalar step's guard: Inf / NaN turn into a stop.
template <class T>
__device__ __forceinline__ bool finite(T v) {
  return v == v && v - v == T(0);
}

} // namespace krylov
