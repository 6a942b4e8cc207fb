// SPDX-License-Identifier: BSD-3-Clause
// Krylov example: the host loop shared by every solver built on tcr. A solver launches its
// steps (no synchronisation); every check_every iterations the loop reads the solver's scalar
// state (the one host round trip), and reports convergence only after the true residual
// b - A x, computed with compensated double rows, meets the tolerance. A true residual that
// misses it replaces the recurrence residual (the solver restarts from it where its recurrences
// need that), so a float solver never reports a residual its iterate does not have.
//
// A solver type provides
//   int  step()                      launch one iteration, return its SpMV count
//   bool can_replace_residual() const  whether replace_residual may run now (IDR(s): at cycle
//                                    ends only; a failed true-residual check elsewhere waits
//                                    for the next one, and the true residual is recomputed there)
//   solver_state read_state()        stop code, recurrence ||r||^2 (synchronises)
//   double true_residual2()          ||b - A x||^2 (launches and synchronises)
//   void replace_residual()          r := the last true residual
//   std::vector<double> history(int) the recurrence relative residuals recorded on the device
//   std::vector<double> solution(), std::uint64_t solution_hash()
#pragma once

#include <cmath>
#include <limits>
#include "device.cuh"
#include "krylov.hpp"

namespace krylov {

// Stop codes written by the solvers' scalar steps; a stopped solver's kernels do nothing.
enum stop_code : int {
  running = 0,
  exact_zero = 1,          // the recurrence residual is exactly zero
  breakdown_rho = 2,       // BiCGStab: rho near 0 right after a restart (near_breakdown.hpp)
  breakdown_omega = 3,     // BiCGStab / IDR(s): omega = 0
  breakdown_rv = 4,        // BiCGStab: (r_hat, v) = 0
  breakdown_pap = 5,       // CG: (p, A p) <= 0 (A not SPD, or a rounding breakdown)
  breakdown_m = 6,         // IDR(s): a zero pivot of M
  breakdown_nonfinite = 7, // a scalar became Inf or NaN
};

inline const char* stop_message(int code) {
  switch (code) {
  case breakdown_rho:
    return "breakdown: rho = (r_hat, r) near 0 in the first iteration after r_hat = r";
  case breakdown_omega:
    return "breakdown: omega = 0";
  case breakdown_rv:
    return "breakdown: (r_hat, A p) = 0";
  case breakdown_pap:
    return "breakdown: (p, A p) <= 0 (matrix not SPD?)";
  case breakdown_m:
    return "breakdown: zero pivot in M (P^T G singular)";
  case breakdown_nonfinite:
    return "breakdown: a scalar became Inf or NaN";
  default:
    return "";
  }
}

struct solver_state {
  int stop = running;
  double rr = 0;    // recurrence ||r||^2
  int restarts = 0; // BiCGStab: near-breakdown restarts (r_hat := r) on the device
};

// A GPU timer around the iteration loop (events on the legacy stream).
class gpu_timer {
public:
  gpu_timer() {
    KRYLOV_CUDA(cudaEventCreate(&a_));
    KRYLOV_CUDA(cudaEventCreate(&b_));
  }
  ~gpu_timer() {
    cudaEventDestroy(a_);
    cudaEventDestroy(b_);
  }
  void start() { KRYLOV_CUDA(cudaEventRecord(a_)); }
  double stop() {
    KRYLOV_CUDA(cudaEventRecord(b_));
    KRYLOV_CUDA(cudaEventSynchronize(b_));
    float ms = 0;
    KRYLOV_CUDA(cudaEventElapsedTime(&ms, a_, b_));
    return ms * 1e-3;
  }

private:
  cudaEvent_t a_{}, b_{};
};

template <class Solver>
solve_result drive(Solver& s, double normb2, const solve_options& o) {
  solve_result res;
  const double normb = std::sqrt(normb2);
  res.st = status::max_iterations;
  gpu_timer timer;
  timer.start();
  int it = 0, since_check = 0, stalled = 0;
  double best_true = std::numeric_limits<double>::infinity();
  bool have_true = false;
  double last_true = 0;
  bool replace_due = false; // a true residual missed tol where r could not be replaced
  while (normb > 0 && it < o.max_iterations) {
    res.spmvs += s.step();
    ++it;
    const bool replace_now = replace_due && s.can_replace_residual();
    if (++since_check < o.check_every && !replace_now)
      continue;
    since_check = 0;
    const solver_state st = s.read_state();
    const double rel = std::sqrt(st.rr) / normb;
    if (st.stop != running && st.stop != exact_zero) {
      // A breakdown with a true residual below tol is a converged ("lucky") breakdown.
      last_true = std::sqrt(s.true_residual2()) / normb;
      have_true = true;
      res.st = last_true <= o.tol ? status::converged : status::breakdown;
      res.message = stop_message(st.stop);
      break;
    }
    if (!std::isfinite(rel)) {
      res.st = status::breakdown;
      res.message = stop_message(breakdown_nonfinite);
      break;
    }
    if (!replace_now && rel > o.tol && st.stop != exact_zero)
      continue;
    last_true = std::sqrt(s.true_residual2()) / normb;
    have_true = true;
    if (last_true <= o.tol) {
      res.st = status::converged;
      break;
    }
    replace_due = !s.can_replace_residual();
    if (replace_due)
      continue;
    s.replace_residual();
    have_true = false; // the replaced state is checked again before it counts
    ++res.replacements;
    stalled = last_true > 0.5 * best_true ? stalled + 1 : 0;
    best_true = std::min(best_true, last_true);
    if (stalled >= o.max_stalled_replacements) {
      res.st = status::stagnated;
      res.message = "true residual stagnates above tol after residual replacements";
      break;
    }
  }
  res.seconds = timer.stop();
  if (normb == 0)
    res.st = status::converged; // x = 0 solves A x = 0
  res.iterations = it;
  res.true_relres =
      normb == 0 ? 0 : (have_true ? last_true : std::sqrt(s.true_residual2()) / normb);
  const solver_state end = s.read_state();
  res.recurrence_relres = normb == 0 ? 0 : std::sqrt(end.rr) / normb;
  res.restarts = end.restarts;
  res.history = s.history(it);
  for (std::size_t i = 0; i < res.history.size(); ++i)
    if (res.history[i] <= o.tol) {
      res.first_below_tol = static_cast<int>(i) + 1;
      break;
    }
  res.x = s.solution();
  res.x_hash = s.solution_hash();
  return res;
}

// Reads `count` recurrence residuals from a device history (a stopped solver records fewer;
// the rest stay NaN).
inline std::vector<double> read_history(const dev_array<double>& h, int count) {
  std::vector<double> all = h.download();
  all.resize(std::min<std::size_t>(all.size(), static_cast<std::size_t>(count)));
  return all;
}

} // namespace krylov
