// SPDX-License-Identifier: BSD-3-Clause
// Krylov example: IDR(s)'s shadow space P (host code, shared by idrs.cuh and the reference).
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace krylov {

// The s random shadow vectors, orthonormalised (modified Gram-Schmidt in double), from a
// seeded generator: the same P on every run.
inline std::vector<std::vector<double>> shadow_space(std::int64_t n, int s, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> normal;
  std::vector<std::vector<double>> p(s, std::vector<double>(n));
  for (int k = 0; k < s; ++k) {
    for (auto& v : p[k])
      v = normal(gen);
    for (int j = 0; j < k; ++j) {
      double d = 0;
      for (std::int64_t i = 0; i < n; ++i)
        d += p[j][i] * p[k][i];
      for (std::int64_t i = 0; i < n; ++i)
        p[k][i] -= d * p[j][i];
    }
    double nn = 0;
    for (double v : p[k])
      nn += v * v;
    nn = std::sqrt(nn);
    for (auto& v : p[k])
      v /= nn;
  }
  return p;
}

} // namespace krylov
