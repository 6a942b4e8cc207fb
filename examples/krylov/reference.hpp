// SPDX-License-Identifier: BSD-3-Clause
// Krylov example: host reference solvers in double, the same recurrences as the GPU kernels
// (cg.cuh, bicgstab.cuh, idrs.cuh, including IDR(s)'s fused biorthogonalisation), so the host
// tests check the algebra without a GPU and the GPU tests have iteration counts to compare with.
#pragma once

#include <cmath>
#include <vector>
#include "csr.hpp"
#include "near_breakdown.hpp"
#include "shadow_space.hpp"

namespace krylov::reference {

struct result {
  bool converged = false;
  bool stagnated = false; // cg_checked: the true residual stopped improving
  int iterations = 0;     // CG / BiCGStab iterations, IDR(s) matrix-vector products
  int replacements = 0;   // cg_checked: restarts from the true residual
  int restarts = 0;       // bicgstab: near-breakdown restarts r_hat := r
  bool breakdown = false; // bicgstab: a near breakdown right after a restart
  std::vector<double> x;
};

inline std::vector<double> mul(const csr<double>& A, const std::vector<double>& x) {
  std::vector<double> y(A.rows, 0.0);
  for (std::int64_t i = 0; i < A.rows; ++i)
    for (std::int64_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
      y[i] += A.val[k] * x[A.col[k]];
  return y;
}

inline double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    s += a[i] * b[i];
  return s;
}

// Stops when the recurrence residual meets tol relative to ||b||.
inline result cg(const csr<double>& A, const std::vector<double>& b, double tol, int maxit) {
  const std::size_t n = b.size();
  result res;
  res.x.assign(n, 0.0);
  std::vector<double> r = b, p = b;
  const double nb = std::sqrt(dot(b, b));
  double rr = dot(r, r);
  while (res.iterations < maxit) {
    const std::vector<double> q = mul(A, p);
    const double alpha = rr / dot(p, q);
    for (std::size_t i = 0; i < n; ++i) {
      res.x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
    }
    const double rr_new = dot(r, r);
    ++res.iterations;
    if (std::sqrt(rr_new) <= tol * nb)
      return res.converged = true, res;
    for (std::size_t i = 0; i < n; ++i)
      p[i] = r[i] + rr_new / rr * p[i];
    rr = rr_new;
  }
  return res;
}

// CG in T (float or double; rows and dots summed in T) under driver.cuh's rule: every
// check_every iterations, when the recurrence residual meets tol, the true residual (long
// double) must meet it too, else CG restarts from it (r = p = b - A x, as cg.cuh does) and three
// restarts that do not halve the best true residual end it as stagnated.
template <class T>
result cg_checked(const csr<double>& A64, const std::vector<double>& b64, double tol, int maxit,
                  int check_every) {
  const csr<T> A = convert<T>(A64);
  const std::size_t n = b64.size();
  const std::vector<T> b(b64.begin(), b64.end());
  auto mul = [&](const std::vector<T>& v) {
    std::vector<T> y(n, T(0));
    for (std::size_t i = 0; i < n; ++i)
      for (std::int64_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
        y[i] += A.val[k] * v[A.col[k]];
    return y;
  };
  auto dot_t = [](const std::vector<T>& a, const std::vector<T>& c) {
    T s = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
      s += a[i] * c[i];
    return s;
  };
  std::vector<T> x(n, T(0)), r = b, p = b;
  const double nb = std::sqrt(dot(b64, b64));
  T rr = dot_t(r, r);
  double best = HUGE_VAL;
  int stalled = 0;
  result res;
  while (res.iterations < maxit) {
    const std::vector<T> q = mul(p);
    const T alpha = rr / dot_t(p, q);
    for (std::size_t i = 0; i < n; ++i) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
    }
    const T rr_new = dot_t(r, r);
    for (std::size_t i = 0; i < n; ++i)
      p[i] = r[i] + rr_new / rr * p[i];
    rr = rr_new;
    ++res.iterations;
    if (res.iterations % check_every || std::sqrt(static_cast<double>(rr)) > tol * nb)
      continue;
    res.x.assign(x.begin(), x.end());
    const std::vector<long double> ax = multiply(A, res.x);
    for (std::size_t i = 0; i < n; ++i)
      r[i] = static_cast<T>(static_cast<long double>(b[i]) - ax[i]);
    const double true_rel = relative_residual(A, res.x, b);
    if (true_rel <= tol)
      return res.converged = true, res;
    p = r;
    rr = dot_t(r, r);
    ++res.replacements;
    stalled = true_rel > 0.5 * best ? stalled + 1 : 0;
    best = std::min(best, true_rel);
    if (stalled >= 3)
      return res.stagnated = true, res;
  }
  res.x.assign(x.begin(), x.end());
  return res;
}

// rho_restart > 0: bicgstab.cuh's near-breakdown rule (restart with r_hat := r, p = r; a near
// breakdown in the first iteration after one stops it); 0: the plain recurrences.
inline result bicgstab(const csr<double>& A, const std::vector<double>& b, double tol, int maxit,
                       double rho_restart = 0) {
  const std::size_t n = b.size();
  result res;
  res.x.assign(n, 0.0);
  std::vector<double> r = b, r_hat = b, p(n, 0.0), v(n, 0.0), s(n);
  const double nb = std::sqrt(dot(b, b));
  double rho = dot(r, r), alpha = 1, omega = 1, beta = 0, r_hat2 = rho;
  bool restart = false;
  int since_restart = 0;
  while (res.iterations < maxit) {
    for (std::size_t i = 0; i < n; ++i)
      p[i] = restart ? r[i] : r[i] + beta * (p[i] - omega * v[i]);
    if (restart)
      r_hat = r;
    restart = false;
    v = mul(A, p);
    alpha = rho / dot(r_hat, v);
    for (std::size_t i = 0; i < n; ++i) {
      s[i] = r[i] - alpha * v[i];
      res.x[i] += alpha * p[i];
    }
    const std::vector<double> t = mul(A, s);
    omega = dot(t, s) / dot(t, t);
    for (std::size_t i = 0; i < n; ++i) {
      res.x[i] += omega * s[i];
      r[i] = s[i] - omega * t[i];
    }
    ++res.iterations;
    const double rr = dot(r, r);
    if (std::sqrt(rr) <= tol * nb)
      return res.converged = true, res;
    const double rho_new = dot(r_hat, r);
    ++since_restart;
    if (rho_restart > 0 && rho_near_breakdown(rho_new, r_hat2, rr, rho_restart)) {
      if (since_restart == 1)
        return res.breakdown = true, res;
      restart = true;
      rho = r_hat2 = rr;
      since_restart = 0;
      ++res.restarts;
      continue;
    }
    beta = rho_new / rho * (alpha / omega);
    rho = rho_new;
  }
  return res;
}

// IDR(s) as idrs.cuh computes it; P: s orthonormal vectors (idrs.cuh's shadow_space).
inline result idrs(const csr<double>& A, const std::vector<double>& b,
                   const std::vector<std::vector<double>>& P, double tol, int maxit) {
  const int s = static_cast<int>(P.size());
  const std::size_t n = b.size();
  result res;
  res.x.assign(n, 0.0);
  std::vector<double> r = b;
  std::vector<std::vector<double>> G(s, std::vector<double>(n, 0.0)), U = G;
  std::vector<std::vector<double>> M(s, std::vector<double>(s, 0.0));
  for (int i = 0; i < s; ++i)
    M[i][i] = 1;
  std::vector<double> f(s), c(s), alpha(s);
  double omega = 1;
  const double nb = std::sqrt(dot(b, b));
  auto solve_c = [&](int k) {
    for (int i = k; i < s; ++i) {
      double v = f[i];
      for (int j = k; j < i; ++j)
        v -= M[i][j] * c[j];
      c[i] = v / M[i][i];
    }
  };
  for (int j = 0; j < s; ++j)
    f[j] = dot(P[j], r);
  solve_c(0);
  while (res.iterations < maxit) {
    for (int k = 0; k < s; ++k) {
      for (std::size_t i = 0; i < n; ++i) {
        double v = r[i], u = 0;
        for (int j = k; j < s; ++j) {
          v -= c[j] * G[j][i];
          u += c[j] * U[j][i];
        }
        U[k][i] = u + omega * v;
      }
      G[k] = mul(A, U[k]);
      std::vector<double> a(s);
      for (int j = 0; j < s; ++j)
        a[j] = dot(P[j], G[k]);
      for (int i = 0; i < k; ++i) {
        double v = a[i];
        for (int j = 0; j < i; ++j)
          v -= M[i][j] * alpha[j];
        alpha[i] = v / M[i][i];
      }
      for (int i = k; i < s; ++i) {
        double v = a[i];
        for (int j = 0; j < k; ++j)
          v -= M[i][j] * alpha[j];
        M[i][k] = v;
      }
      const double beta = f[k] / M[k][k];
      for (int i = k + 1; i < s; ++i)
        f[i] -= beta * M[i][k];
      for (std::size_t i = 0; i < n; ++i) {
        for (int j = 0; j < k; ++j) {
          G[k][i] -= alpha[j] * G[j][i];
          U[k][i] -= alpha[j] * U[j][i];
        }
        r[i] -= beta * G[k][i];
        res.x[i] += beta * U[k][i];
      }
      ++res.iterations;
      if (std::sqrt(dot(r, r)) <= tol * nb)
        return res.converged = true, res;
      if (k + 1 < s)
        solve_c(k + 1);
    }
    const std::vector<double> t = mul(A, r);
    const double ts = dot(t, r), tt = dot(t, t), nr = std::sqrt(dot(r, r));
    omega = ts / tt;
    const double rho = std::abs(ts / (std::sqrt(tt) * nr));
    if (rho < 0.7)
      omega *= 0.7 / rho;
    for (std::size_t i = 0; i < n; ++i) {
      res.x[i] += omega * r[i];
      r[i] -= omega * t[i];
    }
    ++res.iterations;
    if (std::sqrt(dot(r, r)) <= tol * nb)
      return res.converged = true, res;
    for (int j = 0; j < s; ++j)
      f[j] = dot(P[j], r);
    solve_c(0);
  }
  return res;
}

} // namespace krylov::reference
