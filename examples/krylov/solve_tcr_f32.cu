// SPDX-License-Identifier: BSD-3-Clause
// Krylov example: the tcr_f32 solvers (one translation unit per precision keeps nvcc's work small).
#include "solve_impl.cuh"

namespace krylov {
solve_result solve_tcr_f32(const csr<double>& A, const std::vector<double>& b, solver_kind kind,
                           const solve_options& options) {
  return solve_with<tcr_f32_policy>(A, b, kind, options);
}
} // namespace krylov
