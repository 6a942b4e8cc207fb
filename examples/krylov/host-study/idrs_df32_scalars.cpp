// SPDX-License-Identifier: BSD-3-Clause
// Host study: does df32 IDR(s)'s remaining gap to double come from its float scalars? The
// recurrences of reference_df32.hpp's idrs_df32 (idrs_df32.cuh's algebra) with the scalar type
// Sc for M, f, c, alpha, beta, omega and the dots that feed them: Sc = float is idrs_df32
// itself (dots rounded to float, pairs times floats); Sc = double takes each dot2<float> dot as
// its unrounded pair (hi + lo, exact in double), runs the small systems in double and scales
// pairs by the double scalar split into a pair (DWTimesDW3). The vectors are the same pairs in
// both. To 1e-6 on the recurrence residual, at most 10000 products, against reference.hpp's
// double IDR(s) on the float-rounded matrix. Not part of the build; not GPU numbers.
//   g++ -O2 -std=c++17 -I examples/krylov -I <dir with tcr -> repo root> idrs_df32_scalars.cpp
//   ./a.out PROBLEM...     (idrs_df32_scalars.txt)
#include <cstdio>
#include <type_traits>
#include "reference_df32.hpp"
using namespace krylov;
using namespace krylov::reference;

template <class Sc>
Sc finish_dot(const tcr::dot2<float>& acc) {
  if constexpr (std::is_same_v<Sc, float>) {
    return acc.result();
  } else {
    const df32 p = acc.result_pair();
    return static_cast<double>(p.hi) + static_cast<double>(p.lo);
  }
}
template <class Sc>
df32 scale(const df32& v, Sc a) {
  if constexpr (std::is_same_v<Sc, float>)
    return tcr::mul(v, a);
  else
    return tcr::mul(v, tcr::to_df32(a));
}
template <class Sc>
Sc dot_p(const std::vector<float>& a, const std::vector<df32>& b) {
  tcr::dot2<float> acc;
  for (std::size_t i = 0; i < a.size(); ++i) {
    acc.add(a[i], b[i].hi);
    acc.add(a[i], b[i].lo);
  }
  return finish_dot<Sc>(acc);
}
template <class Sc>
Sc nrm2(const std::vector<df32>& v) {
  tcr::dot2<float> acc;
  for (const df32& e : v)
    acc.add(e.hi, e.hi);
  return finish_dot<Sc>(acc);
}

template <class Sc>
result idrs_sc(const csr<double>& A64, const std::vector<double>& b64,
               const std::vector<std::vector<double>>& P64, double tol, int maxit) {
  const csr<float> A = convert<float>(A64);
  const int s = static_cast<int>(P64.size());
  const std::size_t n = b64.size();
  std::vector<std::vector<float>> P(s);
  for (int j = 0; j < s; ++j)
    P[j].assign(P64[j].begin(), P64[j].end());
  std::vector<df32> x(n), r = to_pairs(b64);
  std::vector<std::vector<df32>> G(s, std::vector<df32>(n)), U = G;
  std::vector<std::vector<Sc>> M(s, std::vector<Sc>(s, Sc(0)));
  for (int i = 0; i < s; ++i)
    M[i][i] = 1;
  std::vector<Sc> f(s), c(s), alpha(s);
  Sc omega = 1;
  const double nb = std::sqrt(static_cast<double>(norm2_hi(r)));
  result res;
  auto done = [&] { return std::sqrt(static_cast<double>(norm2_hi(r))) <= tol * nb; };
  auto solve_c = [&](int k) {
    for (int i = k; i < s; ++i) {
      Sc v = f[i];
      for (int j = k; j < i; ++j)
        v -= M[i][j] * c[j];
      c[i] = v / M[i][i];
    }
  };
  for (int j = 0; j < s; ++j)
    f[j] = dot_p<Sc>(P[j], r);
  solve_c(0);
  while (res.iterations < maxit && !res.converged) {
    for (int k = 0; k < s && !res.converged; ++k) {
      for (std::size_t i = 0; i < n; ++i) {
        df32 v = r[i], u{};
        for (int j = k; j < s; ++j) {
          v = tcr::sub(v, scale(G[j][i], c[j]));
          u = tcr::add(u, scale(U[j][i], c[j]));
        }
        U[k][i] = tcr::add(u, scale(v, omega));
      }
      G[k] = mul_pair(A, U[k]);
      std::vector<Sc> a(s);
      for (int j = 0; j < s; ++j)
        a[j] = dot_p<Sc>(P[j], G[k]);
      for (int i = 0; i < k; ++i) {
        Sc v = a[i];
        for (int j = 0; j < i; ++j)
          v -= M[i][j] * alpha[j];
        alpha[i] = v / M[i][i];
      }
      for (int i = k; i < s; ++i) {
        Sc v = a[i];
        for (int j = 0; j < k; ++j)
          v -= M[i][j] * alpha[j];
        M[i][k] = v;
      }
      if (M[k][k] == Sc(0))
        return res.breakdown = true, res.x = to_doubles(x), res;
      const Sc beta = f[k] / M[k][k];
      for (int i = k + 1; i < s; ++i)
        f[i] -= beta * M[i][k];
      for (std::size_t i = 0; i < n; ++i) {
        for (int j = 0; j < k; ++j) {
          G[k][i] = tcr::sub(G[k][i], scale(G[j][i], alpha[j]));
          U[k][i] = tcr::sub(U[k][i], scale(U[j][i], alpha[j]));
        }
        r[i] = tcr::sub(r[i], scale(G[k][i], beta));
        x[i] = tcr::add(x[i], scale(U[k][i], beta));
      }
      ++res.iterations;
      res.converged = done();
      if (!res.converged && k + 1 < s)
        solve_c(k + 1);
    }
    if (res.converged)
      break;
    const std::vector<df32> t = mul_pair(A, r);
    tcr::dot2<float> tsa, tta;
    for (std::size_t i = 0; i < n; ++i) {
      tsa.add(t[i].hi, r[i].hi);
      tsa.add(t[i].hi, r[i].lo);
      tsa.add(t[i].lo, r[i].hi);
      tta.add(t[i].hi, t[i].hi);
      tta.add(t[i].hi, 2.0f * t[i].lo);
    }
    const Sc ts = finish_dot<Sc>(tsa), tt = finish_dot<Sc>(tta);
    const Sc nr = std::sqrt(nrm2<Sc>(r));
    omega = ts / tt;
    const Sc rho = std::abs(ts / (std::sqrt(tt) * nr));
    if (rho < Sc(0.7))
      omega = omega * Sc(0.7) / rho;
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = tcr::add(x[i], scale(r[i], omega));
      r[i] = tcr::sub(r[i], scale(t[i], omega));
    }
    ++res.iterations;
    res.converged = done();
    for (int j = 0; j < s; ++j)
      f[j] = dot_p<Sc>(P[j], r);
    solve_c(0);
  }
  res.x = to_doubles(x);
  return res;
}

int main(int argc, char** argv) {
  for (int a = 1; a < argc; ++a) {
    const char* p = argv[a];
    const csr<double> A = make_problem(p);
    const auto b = rhs_from_solution(A, 42);
    const auto Af = convert<float>(A);
    for (int s : {1, 2, 4, 8}) {
      const auto P = shadow_space(A.rows, s, 1);
      const auto f = idrs_sc<float>(A, b, P, 1e-6, 10000);
      const auto d = idrs_sc<double>(A, b, P, 1e-6, 10000);
      const auto e = reference::idrs(convert<double>(Af), b, P, 1e-6, 10000);
      std::printf("%s idr(%d): f64 %5d%s | df32 float scalars %5d%s %.2fx | df32 double scalars "
                  "%5d%s %.2fx (true %.1e)\n",
                  p, s, e.iterations, e.converged ? "" : "!", f.iterations, f.converged ? "" : "!",
                  double(f.iterations) / e.iterations, d.iterations, d.converged ? "" : "!",
                  double(d.iterations) / e.iterations, relative_residual(Af, d.x, b));
      std::fflush(stdout);
    }
  }
}
