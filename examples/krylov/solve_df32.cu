// SPDX-License-Identifier: BSD-3-Clause
// Krylov example: the df32 solvers (float matrix, double-word float iterate and residuals): CG
// here, BiCGStab and IDR(s) in their own translation units (solve_df32_bicgstab.cu,
// solve_df32_idrs.cu) to keep nvcc's work per file small.
#include "cg_df32.cuh"
#include "solve_impl.cuh"

namespace krylov {
solve_result solve_df32(const csr<double>& A, const std::vector<double>& b, solver_kind kind,
                        const solve_options& options) {
  switch (kind.m) {
  case method::cg:
    return run_timed<cg_df32_solver>(A, b, options);
  case method::bicgstab:
    return solve_df32_bicgstab(A, b, options);
  case method::idrs:
    return solve_df32_idrs(A, b, kind.s, options);
  }
  solve_result r;
  r.message = "df32: unsupported solver";
  return r;
}
} // namespace krylov
