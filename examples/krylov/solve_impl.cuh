// SPDX-License-Identifier: BSD-3-Clause
// Krylov example: one precision's solvers behind the host interface (krylov.hpp). Each
// solve_<precision>.cu instantiates solve_with<Policy> once.
#pragma once

#include <chrono>
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

template <class P>
solve_result solve_with(const csr<double>& A, const std::vector<double>& b, solver_kind k,
                        const solve_options& o) {
  switch (k.m) {
  case method::cg:
    return run_timed<cg_solver<P>>(A, b, o);
  case method::bicgstab:
    return run_timed<bicgstab_solver<P>>(A, b, o);
  case method::idrs:
    switch (k.s) {
    case 1:
      return run_timed<idrs_solver<P, 1>>(A, b, o);
    case 2:
      return run_timed<idrs_solver<P, 2>>(A, b, o);
    case 4:
      return run_timed<idrs_solver<P, 4>>(A, b, o);
    case 8:
      return run_timed<idrs_solver<P, 8>>(A, b, o);
    default:
      break;
    }
  }
  solve_result r;
  r.message = "unsupported solver";
  return r;
}

} // namespace krylov
