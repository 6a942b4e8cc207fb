// SPDX-License-Identifier: BSD-3-Clause
// Krylov example: the host interface of the solvers (no CUDA types), so the command-line
// program and the tests see one function per precision and the kernels compile once each.
//
//   krylov::solve_result r = krylov::solve(A, b, {method::cg, precision::tcr_f32}, options);
//
// A is the problem in double; each precision rounds it to its own matrix type (float for f32,
// tcr_f32 and df32), so float variants solve the float-rounded system and report residuals
// against it. b must be exact in float (krylov::random_rhs is) for all variants to solve the
// same right-hand side.
#pragma once

#include <cstdint>
#include <string>
#include <vector>
#include "csr.hpp"

namespace krylov {

enum class method { cg, bicgstab, idrs };
// f32: float everywhere, inner products and SpMV rows summed in float (as cuBLAS Sdot).
// tcr_f32: float data and vectors, every inner product and SpMV row a compensated tcr dot.
// f64: double everywhere (plain double sums).
// df32: float matrix, iterate and residuals as double-word float pairs (tcr::df32), compensated
// SpMV rows and dots; directions and shadow vectors in float (CG, BiCGStab, IDR(s)).
// peer_f32 / peer_f64: cuSPARSE SpMV + cuBLAS dot / axpy / scal, host pointer mode (CG and
// BiCGStab), converging on the recurrence residual as users' code does (peer.cu).
// peer_dev_f32 / peer_dev_f64: the same in device pointer mode, scalars computed on the device,
// the host reading them every check_every iterations only (peer_dev.cu).
enum class precision { f32, tcr_f32, f64, df32, peer_f32, peer_f64, peer_dev_f32, peer_dev_f64 };

// The cuSPARSE + cuBLAS peers: CG and BiCGStab only, stopping on their recurrence residual.
constexpr bool is_peer(precision p) {
  return p == precision::peer_f32 || p == precision::peer_f64 || p == precision::peer_dev_f32 ||
         p == precision::peer_dev_f64;
}
// Whether a precision solves the float-rounded matrix (its residuals are against that one).
constexpr bool float_matrix(precision p) {
  return p == precision::f32 || p == precision::tcr_f32 || p == precision::df32 ||
         p == precision::peer_f32 || p == precision::peer_dev_f32;
}

enum class status { converged, max_iterations, stagnated, breakdown, invalid_input };

struct solver_kind {
  method m = method::cg;
  precision p = precision::tcr_f32;
  int s = 4; // IDR(s) shadow space dimension: 1, 2, 4 or 8
};

struct solve_options {
  double tol = 1e-6;          // on ||b - A x|| / ||b||
  int max_iterations = 10000; // matrix-vector products for IDR(s), iterations for CG / BiCGStab
  // The host reads the recurrence residual every check_every iterations (its only
  // synchronisation); when that meets tol the true residual b - A x is computed with
  // compensated double dots and must meet tol too, else it replaces the recurrence residual
  // and the iteration goes on. IDR(s) checks every check_every products too; a replacement
  // waits for the next cycle end (idrs.cuh).
  int check_every = 10;
  // Three replacements in a row that do not halve the best true residual: stagnated.
  int max_stalled_replacements = 3;
  std::uint64_t seed = 1; // IDR(s) shadow space
};

struct solve_result {
  status st = status::invalid_input;
  std::string message;           // why, for breakdown / invalid_input
  int iterations = 0;            // at the last check (the state x is in)
  int spmvs = 0;                 // matrix-vector products, the true-residual checks excluded
  int first_below_tol = -1;      // first iteration whose recurrence residual met tol (history)
  int replacements = 0;          // true residuals that replaced the recurrence one
  int restarts = 0;              // BiCGStab: near-breakdown restarts r_hat := r (bicgstab.cuh)
  double true_relres = -1;       // ||b - A x|| / ||b||, compensated, at the end
  double recurrence_relres = -1; // the solver's own residual norm at the end
  std::vector<double> history;   // recurrence relative residual after every iteration
  double seconds = 0;            // GPU time of the iteration loop (checks included)
  double setup_seconds = 0;      // upload and setup, not timed in `seconds`
  std::vector<double> x;         // the solution, widened to double
  std::uint64_t x_hash = 0;      // FNV-1a of x's bits in the solver's own type
};

const char* name(method m);
const char* name(precision p);
const char* name(status s);

// Solves A x = b from x0 = 0. Invalid input (non-square or malformed CSR, size mismatch, an
// unsupported method / precision pair, s not in {1, 2, 4, 8}) returns status::invalid_input
// with a message; CUDA errors throw std::runtime_error.
solve_result solve(const csr<double>& A, const std::vector<double>& b, solver_kind kind,
                   const solve_options& options);

// The per-precision entry points behind solve (one translation unit each).
solve_result solve_f32(const csr<double>& A, const std::vector<double>& b, solver_kind kind,
                       const solve_options& options);
solve_result solve_tcr_f32(const csr<double>& A, const std::vector<double>& b, solver_kind kind,
                           const solve_options& options);
solve_result solve_f64(const csr<double>& A, const std::vector<double>& b, solver_kind kind,
                       const solve_options& options);
solve_result solve_df32(const csr<double>& A, const std::vector<double>& b, solver_kind kind,
                        const solve_options& options);
// solve_df32's BiCGStab and IDR(s) (a translation unit each).
solve_result solve_df32_bicgstab(const csr<double>& A, const std::vector<double>& b,
                                 const solve_options& options);
solve_result solve_df32_idrs(const csr<double>& A, const std::vector<double>& b, int s,
                             const solve_options& options);
solve_result solve_peer(const csr<double>& A, const std::vector<double>& b, solver_kind kind,
                        const solve_options& options);
solve_result solve_peer_dev(const csr<double>& A, const std::vector<double>& b, solver_kind kind,
                            const solve_options& options);

// y = A x on the device with compensated row dots (tcr::dot2<float> for float, dot2<double>
// for double) or plain float rows, for the SpMV tests: y and x on the host.
enum class spmv_kind { plain_f32, tcr_f32, tcr_f64 };
std::vector<double> spmv(const csr<double>& A, const std::vector<double>& x, spmv_kind kind);

} // namespace krylov
