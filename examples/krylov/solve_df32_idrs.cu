// SPDX-License-Identifier: BSD-3-Clause
// Krylov example: IDR(s) with a float matrix and double-word float vectors (idrs_df32.cuh).
#include "idrs_df32.cuh"
#include "solve_impl.cuh"

namespace krylov {
solve_result solve_df32_idrs(const csr<double>& A, const std::vector<double>& b, int s,
                             const solve_options& options) {
  return with_s(
      s, [&](auto k) { return run_timed<idrs_df32_solver<decltype(k)::value>>(A, b, options); });
}
} // namespace krylov
