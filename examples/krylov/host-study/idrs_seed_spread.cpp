// SPDX-License-Identifier: BSD-3-Clause
// Host study: how much IDR(s)'s product count to 1e-6 moves with the shadow space alone, in
// double and in df32 (reference.hpp's idrs and reference_df32.hpp's idrs_df32, sequential
// sums), on the problem / s pairs where GPU df32 missed 1.15x of GPU f64, and double with P
// rounded to float (as df32 holds P), to separate P's rounding from df32's arithmetic. Not part of
// the build; not GPU numbers.
//   g++ -O2 -std=c++17 -I examples/krylov -I <dir with tcr -> repo root> idrs_seed_spread.cpp
//   ./a.out PROBLEM S [SEEDS]   (idrs_seed_spread.txt)
#include <cstdio>
#include <cstdlib>
#include "reference_df32.hpp"
using namespace krylov;
int main(int argc, char** argv) {
  if (argc < 3)
    return std::fprintf(stderr, "usage: %s PROBLEM S [SEEDS]\n", argv[0]), 2;
  const char* p = argv[1];
  const int s = std::atoi(argv[2]), seeds = argc > 3 ? std::atoi(argv[3]) : 4;
  const csr<double> A = make_problem(p);
  const auto b = rhs_from_solution(A, 42);
  const auto Af = convert<float>(A);
  for (int seed = 1; seed <= seeds; ++seed) {
    const auto P = shadow_space(A.rows, s, seed);
    auto Pf = P; // P rounded to float, as df32 holds it
    for (auto& col : Pf)
      for (auto& v : col)
        v = static_cast<float>(v);
    const auto e = reference::idrs(convert<double>(Af), b, P, 1e-6, 10000);
    const auto ef = reference::idrs(convert<double>(Af), b, Pf, 1e-6, 10000);
    const auto d = reference::idrs_df32(A, b, P, 1e-6, 10000);
    std::printf("%s idr(%d) seed %d: f64 %5d%s f64 with float P %5d%s df32 %5d%s ratio %.2f\n", p,
                s, seed, e.iterations, e.converged ? "" : "!", ef.iterations,
                ef.converged ? "" : "!", d.iterations, d.converged ? "" : "!",
                double(d.iterations) / e.iterations);
    std::fflush(stdout);
  }
}
