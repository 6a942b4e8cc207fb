// SPDX-License-Identifier: BSD-3-Clause
// Krylov example: BiCGStab's near-breakdown rule, one function for the kernels (bicgstab.cuh,
// bicgstab_df32.cuh) and the host reference (reference.hpp), so the host tests test the rule
// the GPU runs.
//
// BiCGStab's beta = (rho_k / rho_{k-1}) (alpha / omega) needs rho_k = (r_hat, r_k) to carry
// information. Once |rho| / (||r_hat|| ||r||) is near the rounding level of the vectors, rho's
// sign and size are noise, every later beta is noise, and whether an exact zero follows is a
// matter of summation order (bench/results/2026-12-01-h200-krylov-89d8674, host-study: on
// convdiff2d:256:1e3 the ratio is 5e-18 .. 4e-14 from iteration 50 on in every order tried, and
// f64 BiCGStab on the GPU met an exact zero at 516). Restarting with r_hat := r makes rho =
// ||r||^2, the ratio 1, and keeps x and r as they are (only the shadow vector and the direction
// change): there 571 iterations with 23 restarts against 914 .. 924 without.
#pragma once

#include <cmath>
#include <tcr/compensated/config.cuh>

namespace krylov {

// The thresholds, per vector precision, each chosen by a host study of BiCGStab with this rule on
// the accuracy suite's problems. Float vectors (f32, tcr-f32): 1e-7, about 2 u_float; larger
// ones restart too often (1e-5 .. 1e-3 cost up to 6.3x on jump2d:256:1e5), and without a restart
// plain float ends in omega = 0 on jump2d:256:1e5 and aniso2d:256:1e-8
// (examples/krylov/host-study/bicgstab_restart.txt). Double vectors: 1e-12
// (bench/results/2026-12-01-h200-krylov-89d8674/host-study/bicgstab_restart.txt, and to 1e-10
// examples/krylov/host-study/bicgstab_restart.txt). df32 (double-word vectors, float scalars):
// 1e-8. Its vectors round at 2^-48, but alpha and omega are floats, so the biorthogonality
// behind rho decays at float's rate: at the double threshold it never restarts, and
// convdiff2d:256:1e3 takes 972 iterations to 1e-6 against 689 at 1e-8
// (examples/krylov/host-study/bicgstab_restart_df32.txt, reference_df32.hpp's recurrences).
inline constexpr double rho_restart_float = 1e-7;
inline constexpr double rho_restart_double = 1e-12;
inline constexpr double rho_restart_df32 = 1e-8;

// True when |rho| < threshold ||r_hat|| ||r||, for rho = 0 and for a NaN rho; r_hat2 = ||r_hat||^2,
// rr = ||r||^2 (both > 0). Evaluated in double so float scalars cannot overflow in the product.
TCR_HD bool rho_near_breakdown(double rho, double r_hat2, double rr, double threshold) {
  return !(std::abs(rho) >= threshold * (std::sqrt(r_hat2) * std::sqrt(rr)));
}

} // namespace krylov
