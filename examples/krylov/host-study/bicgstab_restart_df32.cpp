// SPDX-License-Identifier: BSD-3-Clause
// Host study of the df32 BiCGStab's near-breakdown threshold (near_breakdown.hpp's
// rho_restart_df32), not part of the build: reference_df32.hpp's recurrences of
// bicgstab_df32.cuh (no residual replacement; the recurrence residual to tol) for a range of
// thresholds. b = rhs_from_solution(A, 42), at most 5000 iterations.
//   g++ -O2 -std=c++17 -I examples/krylov -I <dir with tcr -> repo root> \
//       bicgstab_restart_df32.cpp
//   ./a.out PROBLEM TOL
// bicgstab_restart_df32.txt: the runs behind rho_restart_df32.
#include <cstdio>
#include <cstdlib>
#include "reference_df32.hpp"
using namespace krylov;
int main(int argc, char** argv) {
  if (argc < 3)
    return 2;
  const char* p = argv[1];
  const double tol = std::atof(argv[2]);
  const csr<double> A = make_problem(p);
  const auto b = rhs_from_solution(A, 42);
  const auto Af = convert<float>(A);
  for (double thr : {1e-12, 1e-11, 1e-10, 1e-9, 1e-8, 1e-7}) {
    const auto d = reference::bicgstab_df32(A, b, tol, 5000, thr);
    std::printf("%s tol %.0e bicgstab df32 thr %.0e: conv %d bd %d it %d rst %d true %.2e\n", p,
                tol, thr, d.converged, d.breakdown, d.iterations, d.restarts,
                relative_residual(Af, d.x, b));
    std::fflush(stdout);
  }
}
