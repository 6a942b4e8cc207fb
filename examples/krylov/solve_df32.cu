// SPDX-License-Identifier: BSD-3-Clause
// Krylov example: CG with a float matrix and double-word float vectors (cg_df32.cuh).
#include "cg_df32.cuh"
#include "solve_impl.cuh"

namespace krylov {
solve_result solve_df32(const csr<double>& A, const std::vector<double>& b, solver_kind kind,
                        const solve_options& options) {
  if (kind.m != method::cg) {
    solve_result r;
    r.message = "df32: only CG is implemented";
    return r;
  }
  return run_timed<cg_df32_solver>(A, b, options);
}
} // namespace krylov
