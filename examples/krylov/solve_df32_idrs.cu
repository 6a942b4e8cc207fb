// SPDX-License-Identifier: BSD-3-Clause
// Krylov example: IDR(s) with a float matrix and double-word float vectors (idrs_df32.cuh).
#include "idrs_df32.cuh"
#include "solve_impl.cuh"

namespace krylov {
solve_result solve_df32_idrs(const csr<double>& A, const std::vector<double>& b, int s,
                             const solve_options& options) {
  switch (s) {
  case 1:
    return run_timed<idrs_df32_solver<1>>(A, b, options);
  case 2:
    return run_timed<idrs_df32_solver<2>>(A, b, options);
  case 4:
    return run_timed<idrs_df32_solver<4>>(A, b, options);
  case 8:
    return run_timed<idrs_df32_solver<8>>(A, b, options);
  default:
    break;
  }
  solve_result r;
  r.message = "unsupported solver";
  return r;
}
} // namespace krylov
