// SPDX-License-Identifier: BSD-3-Clause
// GPU tests of the Krylov example ("gpu" suite; skipped without a device), plus the input
// checks that return before any CUDA call (host cases):
//   - SpMV rows against exact MPFR references within the proven bounds (compensated float and
//     double rows, plain float rows), for 4- and 32-lane rows, on rows built to cancel;
//   - every solver in every precision converges on small problems, with its true residual
//     (recomputed here in long double) below tol; no variant built on tcr reports convergence
//     above tol;
//   - bitwise identical histories and iterates run to run;
//   - breakdowns (CG on a negative definite matrix, BiCGStab on a skew-symmetric one) and bad
//     input are reported, never returned as a solution.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>
#include "krylov.hpp"
#include "support/mpfr_ref.hpp"

namespace {

using namespace krylov;

double gamma_n(int k, double u) {
  return k * u / (1 - k * u);
}

// Rows of random length in [0, max_len], values of random sign and exponent, the last entry of
// each row chosen to cancel most of the row (so |s_i| << sum |a_ij x_j|). Seeded.
csr<double> cancelling_rows(std::int64_t rows, int max_len, std::uint64_t seed, bool doubles) {
  std::mt19937_64 gen(seed);
  std::uniform_int_distribution<int> len(0, max_len), col_of(0, static_cast<int>(rows) - 1),
      exp_of(-12, 12);
  std::uniform_real_distribution<double> mant(0.5, 1.0);
  csr<double> A;
  A.rows = A.cols = rows;
  A.row_ptr.push_back(0);
  for (std::int64_t i = 0; i < rows; ++i) {
    const int m = len(gen);
    for (int k = 0; k < m; ++k) {
      double v = std::ldexp(mant(gen), exp_of(gen)) * (gen() & 1 ? 1 : -1);
      if (!doubles)
        v = static_cast<float>(v);
      A.col.push_back(col_of(gen));
      A.val.push_back(v);
    }
    A.row_ptr.push_back(A.nnz());
  }
  return A;
}

// x with float-exact entries of varied magnitude, and the last entry of each row of A set so
// that the row nearly cancels against x.
std::vector<double> cancel_against(csr<double>& A, std::uint64_t seed, bool doubles) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> x(A.cols);
  for (auto& v : x)
    v = static_cast<float>(u(gen));
  for (std::int64_t i = 0; i < A.rows; ++i) {
    const std::int64_t b = A.row_ptr[i], e = A.row_ptr[i + 1];
    if (e - b < 2)
      continue;
    double partial = 0;
    for (std::int64_t k = b; k < e - 1; ++k)
      partial += A.val[k] * x[A.col[k]];
    const double xl = x[A.col[e - 1]];
    if (xl == 0)
      continue;
    double v = -partial / xl;
    A.val[e - 1] = doubles ? v : static_cast<float>(v);
  }
  return x;
}

struct spmv_case {
  spmv_kind kind;
  bool doubles; // matrix and x in double
  double u;     // unit roundoff of the result type
  bool compensated;
};

// Every row of y = A x within its bound: compensated u|s| + (1 + u) gamma_{2h} (u + (1 + u)
// gamma_h) S, plain gamma_{h + 1} S (each product and addition rounds once; FMA contraction
// only removes roundings), h = ceil(nnz / L) + log2 L. The bounds are evaluated in double and
// widened by 2^-40 relative, far above the rounding of their own evaluation.
void check_spmv(const csr<double>& A, const std::vector<double>& x, const spmv_case& c) {
  const std::vector<double> y = spmv(A, x, c.kind);
  REQUIRE(static_cast<std::int64_t>(y.size()) == A.rows);
  const int L = lanes_per_row(A.rows, A.nnz());
  const int log2L = L == 32 ? 5 : L == 8 ? 3 : 2;
  double worst = 0; // largest error / bound
  for (std::int64_t i = 0; i < A.rows; ++i) {
    std::vector<double> a, xs;
    double S = 0;
    for (std::int64_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
      const double v = c.doubles ? A.val[k] : static_cast<float>(A.val[k]);
      a.push_back(v);
      xs.push_back(x[A.col[k]]);
      S += std::abs(v * x[A.col[k]]);
    }
    const int nnz = static_cast<int>(a.size());
    const int h = (nnz + L - 1) / L + log2L;
    const tcr::test::mp exact = tcr::test::exact_dot(a, xs);
    const double s = std::abs(exact.to_double());
    S *= 1 + 1e-12; // S itself summed in double (relative error below nnz 2^-53)
    double bound = c.compensated ? c.u * s + (1 + c.u) * gamma_n(2 * h, c.u) *
                                                 (c.u + (1 + c.u) * gamma_n(h, c.u)) * S
                                 : gamma_n(h + 1, c.u) * S;
    bound *= 1 + 0x1p-40;
    const double err = tcr::test::abs_error(y[i], exact);
    if (!(err <= bound)) {
      CAPTURE(i);
      CAPTURE(nnz);
      CAPTURE(err);
      CAPTURE(bound);
      CHECK(err <= bound);
    }
    if (bound > 0)
      worst = std::max(worst, err / bound);
  }
  MESSAGE("lanes " << L << ": largest error / bound " << worst);
}

double residual_as(precision p, const csr<double>& A, const solve_result& r,
                   const std::vector<double>& b) {
  if (float_matrix(p))
    return relative_residual(convert<float>(A), r.x, b);
  return relative_residual(A, r.x, b);
}

// Converged, with the reported and the independently recomputed true residual below tol (the
// two agree to the few digits long double and dot2<double> share at these sizes).
void check_converged(const csr<double>& A, const std::vector<double>& b, solver_kind k, double tol,
                     int maxit = 20000) {
  solve_options o;
  o.tol = tol;
  o.max_iterations = maxit;
  const solve_result r = solve(A, b, k, o);
  CAPTURE(name(k.m));
  CAPTURE(k.s);
  CAPTURE(name(k.p));
  CAPTURE(r.message);
  CAPTURE(r.iterations);
  CAPTURE(r.true_relres);
  CHECK(r.st == status::converged);
  const bool peer = is_peer(k.p);
  if (!peer)
    CHECK(r.true_relres <= tol);
  const double host = residual_as(k.p, A, r, b);
  CAPTURE(host);
  if (!peer)
    CHECK(host <= tol * 1.001);
  CHECK(static_cast<int>(r.history.size()) <= r.iterations);
}

// The float solvers' honest failure mode: a converged report only with a true residual below tol.
solve_result check_no_false_convergence(const csr<double>& A, const std::vector<double>& b,
                                        solver_kind k, double tol, int maxit) {
  solve_options o;
  o.tol = tol;
  o.max_iterations = maxit;
  const solve_result r = solve(A, b, k, o);
  if (r.st == status::converged) {
    CHECK(r.true_relres <= tol);
    CHECK(residual_as(k.p, A, r, b) <= tol * 1.001);
  }
  return r;
}

} // namespace

TEST_CASE("solve rejects bad input before touching the GPU") {
  const csr<double> A = poisson2d(4, 4);
  const auto b = random_rhs(A.rows, 1);
  const solve_options o;
  const solver_kind cg{method::cg, precision::tcr_f32, 4};

  csr<double> rect = A;
  rect.cols = 17;
  CHECK(solve(rect, b, cg, o).st == status::invalid_input);
  CHECK(solve(rect, b, cg, o).message.find("not square") != std::string::npos);

  csr<double> broken = A;
  broken.row_ptr[3] = 1000;
  CHECK(solve(broken, b, cg, o).message.find("malformed") != std::string::npos);

  CHECK(solve(A, std::vector<double>(15, 1.0), cg, o).message.find("right-hand side") !=
        std::string::npos);
  std::vector<double> nan_b = b;
  nan_b[2] = std::nan("");
  CHECK(solve(A, nan_b, cg, o).st == status::invalid_input);
  CHECK(solve(A, b, {method::idrs, precision::f64, 3}, o).message.find("s must be") !=
        std::string::npos);
  solve_options zero_tol;
  zero_tol.tol = 0;
  CHECK(solve(A, b, cg, zero_tol).st == status::invalid_input);
}

TEST_SUITE("gpu") {
  TEST_CASE("SpMV rows against MPFR within the proven bounds") {
    const spmv_case cases[] = {
        {spmv_kind::tcr_f32, false, 0x1p-24, true},
        {spmv_kind::plain_f32, false, 0x1p-24, false},
        {spmv_kind::tcr_f64, true, 0x1p-53, true},
    };
    for (const spmv_case& c : cases)
      // Mean 4 -> 4 lanes; means 20 and 30 -> 8 lanes (rows past 32 take the loop); mean 50 ->
      // 32 lanes (rows past 64 take the loop).
      for (int max_len : {8, 40, 60, 100}) {
        CAPTURE(static_cast<int>(c.kind));
        CAPTURE(max_len);
        const std::uint64_t seed = 1000 + max_len;
        MESSAGE("seed " << seed);
        csr<double> A = cancelling_rows(3000, max_len, seed, c.doubles);
        const std::vector<double> x = cancel_against(A, seed + 1, c.doubles);
        check_spmv(A, x, c);
      }
  }

  TEST_CASE("SpMV of a stencil is exact where the rows are") {
    // Integer stencil times integers: every row sum is exact in float, so all kinds agree.
    const csr<double> A = poisson3d_27(10, 10, 10);
    std::vector<double> x(A.rows);
    for (std::int64_t i = 0; i < A.rows; ++i)
      x[i] = static_cast<double>((i * 37) % 101) - 50;
    const auto ref = multiply(A, x);
    for (spmv_kind k : {spmv_kind::plain_f32, spmv_kind::tcr_f32, spmv_kind::tcr_f64}) {
      const auto y = spmv(A, x, k);
      for (std::int64_t i = 0; i < A.rows; ++i)
        REQUIRE(y[i] == static_cast<double>(ref[i]));
    }
  }

  TEST_CASE("CG converges in every precision on 2D and 3D Poisson") {
    for (const char* p : {"poisson2d:32", "poisson3d27:12"}) {
      CAPTURE(p);
      const csr<double> A = make_problem(p);
      const auto b = random_rhs(A.rows, 3);
      for (precision q :
           {precision::f32, precision::tcr_f32, precision::peer_f32, precision::peer_dev_f32})
        check_converged(A, b, {method::cg, q, 0}, 1e-5);
      for (precision q :
           {precision::f64, precision::df32, precision::peer_f64, precision::peer_dev_f64})
        check_converged(A, b, {method::cg, q, 0}, 1e-10);
    }
  }

  TEST_CASE("BiCGStab and IDR(s) converge on convection-diffusion") {
    const csr<double> A = make_problem("convdiff2d:32:1e2");
    const auto b = random_rhs(A.rows, 4);
    check_converged(A, b, {method::bicgstab, precision::tcr_f32, 0}, 1e-5);
    check_converged(A, b, {method::bicgstab, precision::f64, 0}, 1e-10);
    check_converged(A, b, {method::bicgstab, precision::df32, 0}, 1e-10);
    check_converged(A, b, {method::bicgstab, precision::peer_f64, 0}, 1e-10);
    check_converged(A, b, {method::bicgstab, precision::peer_dev_f64, 0}, 1e-10);
    check_converged(A, b, {method::bicgstab, precision::peer_dev_f32, 0}, 1e-5);
    check_no_false_convergence(A, b, {method::bicgstab, precision::f32, 0}, 1e-5, 5000);
    for (int s : {1, 2, 4, 8}) {
      check_converged(A, b, {method::idrs, precision::tcr_f32, s}, 1e-5);
      check_converged(A, b, {method::idrs, precision::f64, s}, 1e-10);
      check_converged(A, b, {method::idrs, precision::df32, s}, 1e-10);
      const solve_result f =
          check_no_false_convergence(A, b, {method::idrs, precision::f32, s}, 1e-5, 5000);
      MESSAGE("plain f32 IDR(" << s << "): " << std::string(name(f.st)) << " after " << f.iterations
                               << ", true residual " << f.true_relres);
    }
  }

  TEST_CASE("BiCGStab restarts at near breakdowns instead of stopping") {
    // convdiff2d:64:1e3: rho falls to rounding level within tens of iterations (the host test
    // of the reference: 15 restarts, 248 iterations against 963 without). Asserted: f64 and
    // df32 converge and restarted at least once; every precision reports only what it has.
    const csr<double> A = make_problem("convdiff2d:64:1e3");
    const auto b = rhs_from_solution(A, 42);
    for (precision q : {precision::f64, precision::df32, precision::tcr_f32, precision::f32}) {
      CAPTURE(name(q));
      const solve_result r = check_no_false_convergence(A, b, {method::bicgstab, q, 0}, 1e-6, 3000);
      if (q == precision::f64 || q == precision::df32) {
        CHECK(r.st == status::converged);
        CHECK(r.restarts >= 1);
      }
      MESSAGE(std::string(name(q)) << " BiCGStab convdiff2d:64:1e3: " << std::string(name(r.st))
                                   << " after " << r.iterations << ", " << r.restarts
                                   << " restarts, true residual " << r.true_relres);
    }
  }

  TEST_CASE("IDR(s) on a high-contrast problem: tcr-f32, df32 and f64 (recorded)") {
    // Recorded, not asserted beyond honest reports: the products each needs, for the issue's
    // 1.15x comparison (the accuracy suite measures it at 256^2). The host references need
    // 3204 / 1496 / 591 / 268 products in df32 for s = 1, 2, 4, 8 (reference_df32.hpp).
    const csr<double> A = make_problem("jump2d:64:1e4");
    const auto b = rhs_from_solution(A, 42);
    for (int s : {1, 2, 4, 8})
      for (precision q : {precision::tcr_f32, precision::df32, precision::f64}) {
        CAPTURE(s);
        CAPTURE(name(q));
        const solve_result r = check_no_false_convergence(A, b, {method::idrs, q, s}, 1e-6, 20000);
        MESSAGE("IDR(" << s << ") " << std::string(name(q))
                       << " jump2d:64:1e4: " << std::string(name(r.st)) << " after " << r.iterations
                       << " products, true residual " << r.true_relres);
      }
  }

  TEST_CASE("the float iterate limits tcr-f32; the df32 iterate reaches 1e-10") {
    const csr<double> A = make_problem("poisson2d:128");
    const auto b = random_rhs(A.rows, 5);
    check_converged(A, b, {method::cg, precision::df32, 0}, 1e-10);
    for (precision q : {precision::f32, precision::tcr_f32}) {
      const solve_result r = check_no_false_convergence(A, b, {method::cg, q, 0}, 1e-10, 3000);
      // Restarts from the true residual end in stagnation near float's reach, never in a
      // divergence or a breakdown (cg.cuh: the restart resets p).
      CHECK(r.st == status::stagnated);
      CHECK(r.true_relres < 1e-4);
      MESSAGE(std::string(name(q))
              << " CG to 1e-10: " << std::string(name(r.st)) << " after " << r.iterations
              << ", true residual " << r.true_relres << ", " << r.replacements << " replacements");
    }
  }

  TEST_CASE("no false convergence on a high-contrast problem; compensated vs plain float") {
    // Recorded, not asserted: whether tcr-f32 converges where plain f32 does not here is what
    // the accuracy suite measures; asserted is that neither reports a residual it lacks.
    const csr<double> A = make_problem("jump2d:64:1e6");
    const auto b = random_rhs(A.rows, 6);
    for (precision q : {precision::f32, precision::tcr_f32}) {
      const solve_result r = check_no_false_convergence(A, b, {method::cg, q, 0}, 1e-6, 8000);
      MESSAGE(std::string(name(q))
              << " CG jump2d:64:1e6 to 1e-6: " << std::string(name(r.st)) << " after "
              << r.iterations << ", true residual " << r.true_relres);
    }
  }

  TEST_CASE("iteration histories and iterates are bitwise identical run to run") {
    const csr<double> A = make_problem("convdiff2d:64:1e2");
    const auto b = random_rhs(A.rows, 7);
    const csr<double> S = make_problem("poisson2d:64");
    solve_options o;
    o.tol = 1e-6;
    for (solver_kind k : {solver_kind{method::cg, precision::tcr_f32, 0},
                          solver_kind{method::cg, precision::df32, 0},
                          solver_kind{method::bicgstab, precision::tcr_f32, 0},
                          solver_kind{method::bicgstab, precision::df32, 0},
                          solver_kind{method::idrs, precision::tcr_f32, 4},
                          solver_kind{method::idrs, precision::df32, 2},
                          solver_kind{method::idrs, precision::f32, 8}}) {
      CAPTURE(name(k.m));
      CAPTURE(name(k.p));
      const csr<double>& M = k.m == method::cg ? S : A;
      const solve_result r1 = solve(M, b, k, o), r2 = solve(M, b, k, o);
      CHECK(r1.x_hash == r2.x_hash);
      REQUIRE(r1.history.size() == r2.history.size());
      CHECK(std::memcmp(r1.history.data(), r2.history.data(), r1.history.size() * sizeof(double)) ==
            0);
      CHECK(r1.iterations == r2.iterations);
    }
  }

  TEST_CASE("the device-scalar peer runs the host-scalar peer's recurrences") {
    // Same cuSPARSE / cuBLAS calls, scalars on the device: the recurrence residuals agree with
    // peer.cu's to rounding (cuBLAS makes no bitwise promise across pointer modes: asserted
    // loosely, recorded exactly), it first meets tol where peer.cu stops (within one iteration,
    // for rounding), freezes there (the history ends at the crossing, x is that iterate, even
    // where BiCGStab's residual would have risen above tol again by the check), and it reports
    // the first check at or after that.
    const csr<double> S = make_problem("poisson2d:48");
    const csr<double> N = make_problem("convdiff2d:48:1e2");
    const auto bs = rhs_from_solution(S, 11), bn = rhs_from_solution(N, 12);
    solve_options o;
    o.tol = 1e-6;
    o.check_every = 7; // not a divisor of the counts, so the check rounding shows
    const struct {
      method m;
      precision host, dev;
    } pairs[] = {{method::cg, precision::peer_f32, precision::peer_dev_f32},
                 {method::cg, precision::peer_f64, precision::peer_dev_f64},
                 {method::bicgstab, precision::peer_f32, precision::peer_dev_f32},
                 {method::bicgstab, precision::peer_f64, precision::peer_dev_f64}};
    for (const auto& pr : pairs) {
      CAPTURE(name(pr.m));
      CAPTURE(name(pr.dev));
      const csr<double>& A = pr.m == method::cg ? S : N;
      const auto& b = pr.m == method::cg ? bs : bn;
      const solve_result h = solve(A, b, {pr.m, pr.host, 0}, o);
      const solve_result d = solve(A, b, {pr.m, pr.dev, 0}, o);
      REQUIRE(h.st == status::converged);
      REQUIRE(d.st == status::converged);
      CHECK(std::abs(d.first_below_tol - h.iterations) <= 1);
      CHECK(d.iterations % o.check_every == 0);
      CHECK(d.iterations >= d.first_below_tol);
      CHECK(d.iterations < d.first_below_tol + o.check_every);
      REQUIRE(static_cast<int>(d.history.size()) == d.first_below_tol);
      const double rel = pr.dev == precision::peer_dev_f32 ? 1e-2 : 1e-6;
      bool bitwise = true;
      for (int i = 0; i < std::min(h.iterations, d.first_below_tol); ++i) {
        CAPTURE(i);
        REQUIRE(std::abs(d.history[i] - h.history[i]) <= rel * h.history[i]);
        bitwise = bitwise && d.history[i] == h.history[i];
      }
      // What it reports is what x has (the frozen iterate of the crossing).
      CHECK(std::abs(residual_as(pr.dev, A, d, b) - d.true_relres) <= 1e-3 * d.true_relres);
      MESSAGE(std::string(name(pr.m))
              << " " << name(pr.dev) << ": converged after " << d.iterations << " (first below tol "
              << d.first_below_tol << ", host peer " << h.iterations << "), true residual "
              << d.true_relres << ", histories "
              << (bitwise ? "bitwise identical" : "differ in rounding"));
    }
  }

  TEST_CASE("breakdowns are reported, not returned as solutions") {
    // CG on a negative definite matrix: (p, A p) < 0 at once.
    csr<double> N = poisson2d(8, 8);
    for (auto& v : N.val)
      v = -v;
    const auto b = random_rhs(N.rows, 8);
    solve_options o;
    o.check_every = 1;
    for (precision q : {precision::f32, precision::tcr_f32, precision::f64, precision::df32,
                        precision::peer_f32, precision::peer_dev_f32, precision::peer_dev_f64}) {
      const solve_result r = solve(N, b, {method::cg, q, 0}, o);
      CAPTURE(name(q));
      CHECK(r.st == status::breakdown);
      CHECK(r.message.find("(p, A p)") != std::string::npos);
    }
    // The device-scalar peer finds a breakdown at its next check; until then x stays frozen
    // where the breakdown left it (here x = 0: the first step already broke down).
    solve_options late = o;
    late.check_every = 10;
    for (precision q : {precision::peer_dev_f32, precision::peer_dev_f64}) {
      const solve_result r = solve(N, b, {method::cg, q, 0}, late);
      CAPTURE(name(q));
      CHECK(r.st == status::breakdown);
      CHECK(r.iterations == 10);
      CHECK(r.history.empty());
      CHECK(std::all_of(r.x.begin(), r.x.end(), [](double v) { return v == 0; }));
      CHECK(r.true_relres == doctest::Approx(1.0).epsilon(1e-12));
    }
    // BiCGStab on [[0, 1], [-1, 0]] with b = e_1: (r_hat, A r) = 0 exactly.
    csr<double> K;
    K.rows = K.cols = 2;
    K.row_ptr = {0, 1, 2};
    K.col = {1, 0};
    K.val = {1.0, -1.0};
    for (precision q : {precision::f32, precision::tcr_f32, precision::f64, precision::df32,
                        precision::peer_f64, precision::peer_dev_f32, precision::peer_dev_f64}) {
      const solve_result r = solve(K, {1.0, 0.0}, {method::bicgstab, q, 0}, o);
      CAPTURE(name(q));
      CHECK(r.st == status::breakdown);
      CHECK(r.message.find("(r_hat, A p)") != std::string::npos);
    }
    // A zero right-hand side: x = 0, converged, no iteration needed.
    for (precision q : {precision::tcr_f32, precision::peer_f32, precision::peer_dev_f64}) {
      const solve_result z =
          solve(poisson2d(4, 4), std::vector<double>(16, 0.0), {method::cg, q, 0}, o);
      CAPTURE(name(q));
      CHECK(z.st == status::converged);
      CHECK(z.true_relres == 0);
    }
  }
}
