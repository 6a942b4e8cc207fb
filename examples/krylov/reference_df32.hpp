// SPDX-License-Identifier: BSD-3-Clause
// Krylov example: host references of the df32 solvers (bicgstab_df32.cuh, idrs_df32.cuh): the
// same pair updates, compensated rows (dot2<float>, unrounded pairs) and dot2<float> dots, in
// sequential order, so the host tests can check the claim those headers rest on without a GPU:
// x and r stay consistent to O(u_float^2), so that the recurrence residual reaching 1e-10 means
// the true residual of the float matrix does too.
#pragma once

#include <cmath>
#include <utility>
#include <vector>
#include <tcr/compensated/accumulators.cuh>
#include <tcr/compensated/double_word.cuh>
#include "csr.hpp"
#include "near_breakdown.hpp"
#include "reference.hpp"

namespace krylov::reference {

using tcr::df32;

// A = float matrix; y_i = the unrounded pair of a dot2<float> row over x's halves.
inline std::vector<df32> mul_pair(const csr<float>& A, const std::vector<df32>& x) {
  std::vector<df32> y(A.rows);
  for (std::int64_t i = 0; i < A.rows; ++i) {
    tcr::dot2<float> acc;
    for (std::int64_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
      acc.add(A.val[k], x[A.col[k]].hi);
      acc.add(A.val[k], x[A.col[k]].lo);
    }
    y[i] = acc.result_pair();
  }
  return y;
}

inline std::vector<df32> to_pairs(const std::vector<double>& v) {
  std::vector<df32> p(v.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    p[i] = tcr::to_df32(v[i]);
  return p;
}

inline std::vector<double> to_doubles(const std::vector<df32>& v) {
  std::vector<double> d(v.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    d[i] = static_cast<double>(v[i].hi) + static_cast<double>(v[i].lo);
  return d;
}

// sum a_i (b_i.hi + b_i.lo) in dot2<float>.
inline float dot_pair(const std::vector<float>& a, const std::vector<df32>& b) {
  tcr::dot2<float> acc;
  for (std::size_t i = 0; i < a.size(); ++i) {
    acc.add(a[i], b[i].hi);
    acc.add(a[i], b[i].lo);
  }
  return acc.result();
}

inline float norm2_hi(const std::vector<df32>& v) {
  tcr::dot2<float> acc;
  for (const df32& e : v)
    acc.add(e.hi, e.hi);
  return acc.result();
}

inline std::vector<float> his(const std::vector<df32>& v) {
  std::vector<float> h(v.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    h[i] = v[i].hi;
  return h;
}

// (t, s) and (t, t) as precision.cuh's add_omega_products folds them.
inline std::pair<float, float> omega_dots(const std::vector<df32>& t, const std::vector<df32>& s) {
  tcr::dot2<float> ts, tt;
  for (std::size_t i = 0; i < t.size(); ++i) {
    ts.add(t[i].hi, s[i].hi);
    ts.add(t[i].hi, s[i].lo);
    ts.add(t[i].lo, s[i].hi);
    tt.add(t[i].hi, t[i].hi);
    tt.add(t[i].hi, 2.0f * t[i].lo);
  }
  return {ts.result(), tt.result()};
}

// bicgstab_df32.cuh's recurrences from x0 = 0 until the recurrence residual meets tol (no
// replacements), with the near-breakdown restart at rho_restart.
inline result bicgstab_df32(const csr<double>& A64, const std::vector<double>& b64, double tol,
                            int maxit, double rho_restart) {
  const csr<float> A = convert<float>(A64);
  const std::size_t n = b64.size();
  std::vector<df32> x(n), r = to_pairs(b64), s(n), v(n), t(n);
  std::vector<float> r_hat = his(r), p(n, 0.0f);
  const double nb = std::sqrt(static_cast<double>(norm2_hi(r)));
  float rr = norm2_hi(r), rho = rr, alpha = 1, omega = 1, beta = 0;
  double r_hat2 = rr;
  bool restart = false;
  int since_restart = 0;
  result res;
  while (res.iterations < maxit) {
    for (std::size_t i = 0; i < n; ++i)
      p[i] = restart ? r[i].hi : r[i].hi + beta * (p[i] - omega * v[i].hi);
    if (restart)
      r_hat = his(r);
    restart = false;
    std::vector<df32> pp(n);
    for (std::size_t i = 0; i < n; ++i)
      pp[i] = df32(p[i]);
    v = mul_pair(A, pp);
    const float rv = dot_pair(r_hat, v);
    if (rv == 0.0f)
      return res.breakdown = true, res.x = to_doubles(x), res;
    alpha = rho / rv;
    for (std::size_t i = 0; i < n; ++i) {
      s[i] = tcr::sub(r[i], tcr::mul(v[i], alpha));
      x[i] = tcr::add(x[i], df32::from_product(alpha, p[i]));
    }
    t = mul_pair(A, s);
    const auto [ts, tt] = omega_dots(t, s);
    omega = ts / tt;
    if (omega == 0.0f || !std::isfinite(omega))
      return res.breakdown = true, res.x = to_doubles(x), res;
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = tcr::add(x[i], tcr::mul(s[i], omega));
      r[i] = tcr::sub(s[i], tcr::mul(t[i], omega));
    }
    ++res.iterations;
    rr = norm2_hi(r);
    if (std::sqrt(static_cast<double>(rr)) <= tol * nb)
      break;
    const float rho_new = dot_pair(r_hat, r);
    ++since_restart;
    if (rho_near_breakdown(rho_new, r_hat2, rr, rho_restart)) {
      if (since_restart == 1)
        return res.breakdown = true, res.x = to_doubles(x), res;
      restart = true;
      rho = rr;
      r_hat2 = rr;
      since_restart = 0;
      ++res.restarts;
      continue;
    }
    beta = (rho_new / rho) * (alpha / omega);
    rho = rho_new;
  }
  res.converged = std::sqrt(static_cast<double>(rr)) <= tol * nb;
  res.x = to_doubles(x);
  return res;
}

// idrs_df32.cuh's recurrences (idrs.cuh's algebra; P in float, every other vector a pair) from
// x0 = 0 until the recurrence residual meets tol.
inline result idrs_df32(const csr<double>& A64, const std::vector<double>& b64,
                        const std::vector<std::vector<double>>& P64, double tol, int maxit) {
  const csr<float> A = convert<float>(A64);
  const int s = static_cast<int>(P64.size());
  const std::size_t n = b64.size();
  std::vector<std::vector<float>> P(s);
  for (int j = 0; j < s; ++j)
    P[j].assign(P64[j].begin(), P64[j].end());
  std::vector<df32> x(n), r = to_pairs(b64);
  std::vector<std::vector<df32>> G(s, std::vector<df32>(n)), U = G;
  std::vector<std::vector<float>> M(s, std::vector<float>(s, 0.0f));
  for (int i = 0; i < s; ++i)
    M[i][i] = 1;
  std::vector<float> f(s), c(s), alpha(s);
  float omega = 1;
  const double nb = std::sqrt(static_cast<double>(norm2_hi(r)));
  result res;
  auto done = [&] { return std::sqrt(static_cast<double>(norm2_hi(r))) <= tol * nb; };
  auto solve_c = [&](int k) {
    for (int i = k; i < s; ++i) {
      float v = f[i];
      for (int j = k; j < i; ++j)
        v -= M[i][j] * c[j];
      c[i] = v / M[i][i];
    }
  };
  for (int j = 0; j < s; ++j)
    f[j] = dot_pair(P[j], r);
  solve_c(0);
  while (res.iterations < maxit && !res.converged) {
    for (int k = 0; k < s && !res.converged; ++k) {
      for (std::size_t i = 0; i < n; ++i) {
        df32 v = r[i], u{};
        for (int j = k; j < s; ++j) {
          v = tcr::sub(v, tcr::mul(G[j][i], c[j]));
          u = tcr::add(u, tcr::mul(U[j][i], c[j]));
        }
        U[k][i] = tcr::add(u, tcr::mul(v, omega));
      }
      G[k] = mul_pair(A, U[k]);
      std::vector<float> a(s);
      for (int j = 0; j < s; ++j)
        a[j] = dot_pair(P[j], G[k]);
      for (int i = 0; i < k; ++i) {
        float v = a[i];
        for (int j = 0; j < i; ++j)
          v -= M[i][j] * alpha[j];
        alpha[i] = v / M[i][i];
      }
      for (int i = k; i < s; ++i) {
        float v = a[i];
        for (int j = 0; j < k; ++j)
          v -= M[i][j] * alpha[j];
        M[i][k] = v;
      }
      if (M[k][k] == 0.0f)
        return res.breakdown = true, res.x = to_doubles(x), res;
      const float beta = f[k] / M[k][k];
      for (int i = k + 1; i < s; ++i)
        f[i] -= beta * M[i][k];
      for (std::size_t i = 0; i < n; ++i) {
        for (int j = 0; j < k; ++j) {
          G[k][i] = tcr::sub(G[k][i], tcr::mul(G[j][i], alpha[j]));
          U[k][i] = tcr::sub(U[k][i], tcr::mul(U[j][i], alpha[j]));
        }
        r[i] = tcr::sub(r[i], tcr::mul(G[k][i], beta));
        x[i] = tcr::add(x[i], tcr::mul(U[k][i], beta));
      }
      ++res.iterations;
      res.converged = done();
      if (!res.converged && k + 1 < s)
        solve_c(k + 1);
    }
    if (res.converged)
      break;
    const std::vector<df32> t = mul_pair(A, r);
    const auto [ts, tt] = omega_dots(t, r);
    const float nr = std::sqrt(norm2_hi(r));
    omega = ts / tt;
    const float rho = std::abs(ts / (std::sqrt(tt) * nr));
    if (rho < 0.7f)
      omega = omega * 0.7f / rho;
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = tcr::add(x[i], tcr::mul(r[i], omega));
      r[i] = tcr::sub(r[i], tcr::mul(t[i], omega));
    }
    ++res.iterations;
    res.converged = done();
    for (int j = 0; j < s; ++j)
      f[j] = dot_pair(P[j], r);
    solve_c(0);
  }
  res.x = to_doubles(x);
  return res;
}

} // namespace krylov::reference
