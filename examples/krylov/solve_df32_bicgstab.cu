// SPDX-License-Identifier: BSD-3-Clause
// Krylov example: BiCGStab with a float matrix and double-word float vectors (bicgstab_df32.cuh).
#include "bicgstab_df32.cuh"
#include "solve_impl.cuh"

namespace krylov {
solve_result solve_df32_bicgstab(const csr<double>& A, const std::vector<double>& b,
                                 const solve_options& options) {
  return run_timed<bicgstab_df32_solver>(A, b, options);
}
} // namespace krylov
