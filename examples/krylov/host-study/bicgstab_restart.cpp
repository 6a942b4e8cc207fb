// SPDX-License-Identifier: BSD-3-Clause
// Host study of BiCGStab's near-breakdown restart threshold (near_breakdown.hpp), not part of
// the build. The recurrences of bicgstab.cuh in T with the driver's rules (recurrence checked
// every 10 iterations, the true residual must meet tol, else it replaces r; three replacements
// that do not halve the best true residual: stagnated), and the restart rule: |rho| < THR
// ||r_hat|| ||r|| restarts with r_hat := r, p = r; a near breakdown in the first iteration after
// one stops (bd_rho). THR 0: exact zeros only, without restart.
//   g++ -O2 -std=c++17 -I examples/krylov -I <dir with tcr -> repo root> bicgstab_restart.cpp
//   ./a.out PROBLEM FLOAT ACC THR TOL    FLOAT 1: T = float, 0: double; ACC 0: float rows and
//   dots summed in float (1056 strided partials, as a grid of 132 x 8 blocks; plain f32),
//   1: rows and dots summed in double, rounded once to T (tcr-f32's compensated sums).
// bicgstab_restart.txt: the runs behind rho_restart_float and rho_restart_double.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include "csr.hpp"
using namespace krylov;
int acc_mode;
template <class T>
T dotT(const std::vector<T>& a, const std::vector<T>& b) {
  if (acc_mode == 0 && sizeof(T) == 4) { // blocked partials like GPU: 1056 partials then tree-ish
    const size_t P = 1056;
    std::vector<float> p(P, 0.f);
    for (size_t i = 0; i < a.size(); ++i)
      p[i % P] += a[i] * b[i];
    float s = 0;
    for (float v : p)
      s += v;
    return s;
  }
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i)
    s += (double)a[i] * b[i];
  return (T)s;
}
template <class T>
std::vector<T> mulT(const csr<T>& A, const std::vector<T>& x) {
  std::vector<T> y(A.rows);
  for (int64_t i = 0; i < A.rows; ++i) {
    if (acc_mode == 0 && sizeof(T) == 4) {
      float s = 0;
      for (auto k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
        s += A.val[k] * x[A.col[k]];
      y[i] = s;
    } else {
      double s = 0;
      for (auto k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
        s += (double)A.val[k] * x[A.col[k]];
      y[i] = (T)s;
    }
  }
  return y;
}
template <class T>
void run(const char* spec, double thr, double tol, int maxit) {
  const csr<double> A64 = make_problem(spec);
  const csr<T> A = convert<T>(A64);
  const auto b64 = rhs_from_solution(A64, 42);
  const size_t n = b64.size();
  std::vector<T> b(b64.begin(), b64.end()), x(n, 0), r = b, rh = b, p(n, 0), v(n, 0), s(n);
  const double nb = std::sqrt(dotT(b, b) * 1.0);
  T rho = dotT(r, r), alpha = 1, omega = 1, beta = 0;
  double rh2 = rho;
  int restarts = 0, repl = 0, stalled = 0, it = 0;
  double best = 1e300;
  const char* st = "max";
  bool pending = false;
  int since = 0;
  for (it = 1; it <= maxit; ++it) {
    if (pending) {
      rh = r;
      pending = false;
    }
    for (size_t i = 0; i < n; ++i)
      p[i] = r[i] + beta * (p[i] - omega * v[i]);
    v = mulT(A, p);
    const T rv = dotT(rh, v);
    if (rv == 0) {
      st = "bd_rv";
      break;
    }
    alpha = rho / rv;
    for (size_t i = 0; i < n; ++i) {
      s[i] = r[i] - alpha * v[i];
      x[i] += alpha * p[i];
    }
    const auto t = mulT(A, s);
    omega = dotT(t, s) / dotT(t, t);
    if (omega == 0 || !std::isfinite((double)omega)) {
      st = "bd_omega";
      break;
    }
    for (size_t i = 0; i < n; ++i) {
      x[i] += omega * s[i];
      r[i] = s[i] - omega * t[i];
    }
    const T rr = dotT(r, r);
    const T rho_new = dotT(rh, r);
    ++since;
    bool restart_now = false;
    if (!(std::abs((double)rho_new) >= thr * std::sqrt(rh2) * std::sqrt((double)rr))) {
      if (rho_new != 0 && thr == 0) {
      } else {
        if (since == 1 || thr == 0) {
          st = "bd_rho";
          break;
        }
        restart_now = true;
      }
    }
    if (restart_now) {
      ++restarts;
      pending = true;
      beta = 0;
      rho = rr;
      rh2 = rr;
      since = 0;
    } else {
      beta = rho_new / rho * (alpha / omega);
      rho = rho_new;
    }
    if (it % 10)
      continue;
    const double rel = std::sqrt((double)rr) / nb;
    if (!std::isfinite(rel)) {
      st = "nonfinite";
      break;
    }
    if (rel > tol)
      continue;
    std::vector<double> xd(x.begin(), x.end());
    const auto ax = multiply(A, xd);
    for (size_t i = 0; i < n; ++i)
      r[i] = (T)((long double)b[i] - ax[i]);
    const double tr = relative_residual(A, xd, b);
    if (tr <= tol) {
      st = "conv";
      break;
    }
    ++repl;
    stalled = tr > 0.5 * best ? stalled + 1 : 0;
    best = std::min(best, tr);
    if (stalled >= 3) {
      st = "stag";
      break;
    }
    rh = r;
    rho = dotT(r, r);
    rh2 = rho;
    beta = 0;
    pending = false;
    since = 0;
    std::fill(p.begin(), p.end(), T(0));
    std::fill(v.begin(), v.end(), T(0));
  }
  std::vector<double> xd(x.begin(), x.end());
  printf("%-20s %s acc%d thr %.0e tol %.0e: %-8s it %5d restarts %3d repl %d true %.2e\n", spec,
         sizeof(T) == 4 ? "f32" : "f64", acc_mode, thr, tol, st, it, restarts, repl,
         relative_residual(A, xd, b));
  fflush(stdout);
}
int main(int argc, char** argv) {
  const char* spec = argv[1];
  const int f = atoi(argv[2]);
  acc_mode = atoi(argv[3]);
  const double thr = atof(argv[4]), tol = atof(argv[5]);
  if (f)
    run<float>(spec, thr, tol, 10000);
  else
    run<double>(spec, thr, tol, 10000);
}
