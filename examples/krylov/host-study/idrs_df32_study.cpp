// SPDX-License-Identifier: BSD-3-Clause
// Host study: reference_df32.hpp's df32 IDR(s) recurrences (idrs_df32.cuh's algebra, sequential
// sums) against reference.hpp's double IDR(s) on the float-rounded matrix, to 1e-6 on the
// recurrence residual (no replacement), at most 10000 products; b = rhs_from_solution(A, 42),
// P = shadow_space(n, s, 1) (float-rounded for df32). Not part of the build; not GPU numbers
// (the GPU sums in another order, and these problems amplify rounding differences).
//   g++ -O2 -std=c++17 -I examples/krylov -I <dir with tcr -> repo root> idrs_df32_study.cpp
//   ./a.out PROBLEM        (idrs_df32.txt: the accuracy suite's IDR problems at 256^2)
#include <cstdio>
#include "reference_df32.hpp"
using namespace krylov;
int main(int argc, char** argv) {
  const char* p = argv[1];
  const csr<double> A = make_problem(p);
  const auto b = rhs_from_solution(A, 42);
  const auto Af = convert<float>(A);
  for (int s : {1, 2, 4, 8}) {
    const auto P = shadow_space(A.rows, s, 1);
    auto d = reference::idrs_df32(A, b, P, 1e-6, 10000);
    auto e = reference::idrs(convert<double>(Af), b, P, 1e-6, 10000);
    printf("%s idr(%d): df32 conv %d bd %d it %5d true %.1e | f64 conv %d it %5d | ratio %.2f\n", p,
           s, d.converged, d.breakdown, d.iterations, relative_residual(Af, d.x, b), e.converged,
           e.iterations, (double)d.iterations / e.iterations);
    fflush(stdout);
  }
}
