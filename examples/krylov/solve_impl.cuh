// SPDX-License-Identifier: BSD-3-Clause
// Krylov example: one precision's solvers behind the host interface (krylov.hpp). Each
// solve_<precision>.cu instantiates solve_with<Policy> once.
#pragma once

#include <chrono>
#include <type_traits>
#include "bicgstab.cuh"
#include "cg.cuh"
#include "idrs.cuh"

namespace krylov {

template <class Solver>
solve_result run_timed(const csr<double>& A, const std::vector<double>& b, const solve_options& o) {
  const auto t0 = std::chrono::steady_clock::now();
  Solver s(A, b, o);
  KRYLOV_CUDA(cudaDeviceSynchronize());
  const double setup = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  solve_result r = drive(s, s.normb2, o);
  r.setup_seconds = setup;
  return r;
}

// f(std::integral_constant<int, s>{}) for IDR(s)'s s in {1, 2, 4, 8} (solve has checked it).
template <class F>
solve_result with_s(int s, F f) {
  switch (s) {
  case 1:
    return f(std::integral_constant<int, 1>{});
  case 2:
    return f(std::integral_constant<int, 2>{});
  case 4:
    return f(std::integral_constant<int, 4>{});
  case 8:
    return f(std::integral_constant<int, 8>{});
  default:
    break;
  }
  solve_result r;
  r.message = "unsupported solver";
  return r;
}

template <class P>
solve_result solve_with(const csr<double>& A, const std::vector<double>& b, solver_kind k,
                        const solve_options& o) {
  switch (k.m) {
  case method::cg:
    return run_timed<cg_solver<P>>(A, b, o);
  case method::bicgstab:
    return run_timed<bicgstab_solver<P>>(A, b, o);
  case method::idrs:
    return with_s(k.s,
                  [&](auto s) { return run_timed<idrs_solver<P, decltype(s)::value>>(A, b, o); });
  }
  solve_result r;
  r.message = "unsupported solver";
  return r;
}

} // namespace krylov
