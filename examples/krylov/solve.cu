// SPDX-License-Identifier: BSD-3-Clause
// Krylov example: input checks and the dispatch to each precision's solvers; the SpMV entry
// point of the tests.
#include "krylov.hpp"
#include "spmv.cuh"

namespace krylov {

const char* name(method m) {
  switch (m) {
  case method::cg:
    return "cg";
  case method::bicgstab:
    return "bicgstab";
  case method::idrs:
    return "idrs";
  }
  return "?";
}

const char* name(precision p) {
  switch (p) {
  case precision::f32:
    return "f32";
  case precision::tcr_f32:
    return "tcr-f32";
  case precision::f64:
    return "f64";
  case precision::df32:
    return "df32";
  case precision::peer_f32:
    return "peer-f32";
  case precision::peer_f64:
    return "peer-f64";
  case precision::peer_dev_f32:
    return "peer-dev-f32";
  case precision::peer_dev_f64:
    return "peer-dev-f64";
  }
  return "?";
}

const char* name(status s) {
  switch (s) {
  case status::converged:
    return "converged";
  case status::max_iterations:
    return "max_iterations";
  case status::stagnated:
    return "stagnated";
  case status::breakdown:
    return "breakdown";
  case status::invalid_input:
    return "invalid_input";
  }
  return "?";
}

solve_result solve(const csr<double>& A, const std::vector<double>& b, solver_kind kind,
                   const solve_options& options) {
  solve_result bad;
  bad.st = status::invalid_input;
  if (const std::string err = check_csr(A); !err.empty())
    bad.message = "malformed CSR matrix: " + err;
  else if (A.rows != A.cols)
    bad.message =
        "matrix is not square (" + std::to_string(A.rows) + " x " + std::to_string(A.cols) + ")";
  else if (static_cast<std::int64_t>(b.size()) != A.rows)
    bad.message = "right-hand side has " + std::to_string(b.size()) + " entries, matrix " +
                  std::to_string(A.rows) + " rows";
  else if (A.rows == 0)
    bad.message = "empty system";
  else if (kind.m == method::idrs && kind.s != 1 && kind.s != 2 && kind.s != 4 && kind.s != 8)
    bad.message = "IDR(s): s must be 1, 2, 4 or 8";
  else if (options.tol <= 0 || options.max_iterations < 1 || options.check_every < 1)
    bad.message = "tol, max_iterations and check_every must be positive";
  if (!bad.message.empty())
    return bad;
  for (double v : b)
    if (!std::isfinite(v)) {
      bad.message = "right-hand side has a non-finite entry";
      return bad;
    }
  switch (kind.p) {
  case precision::f32:
    return solve_f32(A, b, kind, options);
  case precision::tcr_f32:
    return solve_tcr_f32(A, b, kind, options);
  case precision::f64:
    return solve_f64(A, b, kind, options);
  case precision::df32:
    return solve_df32(A, b, kind, options);
  case precision::peer_f32:
  case precision::peer_f64:
    return solve_peer(A, b, kind, options);
  case precision::peer_dev_f32:
  case precision::peer_dev_f64:
    return solve_peer_dev(A, b, kind, options);
  }
  bad.message = "unknown precision";
  return bad;
}

namespace {
template <class M, class V, class RowAcc>
std::vector<double> spmv_as(const csr<double>& A, const std::vector<double>& x) {
  device_csr<M> dA(A);
  dev_array<V> dx(std::vector<V>(x.begin(), x.end())), dy(A.rows);
  dev_array<unsigned char> ws_bytes(grid_workspace_bytes + 256);
  grid_workspace ws{ws_bytes.get(),
                    reinterpret_cast<unsigned*>(ws_bytes.get() + grid_workspace_bytes)};
  launch_spmv(launch_shape::current(), dA.lanes_per_row(),
              spmv_plain<M, V, V, RowAcc>{{}, dA.view(), dx.get(), dy.get()}, ws, nullptr);
  const std::vector<V> y = dy.download();
  return std::vector<double>(y.begin(), y.end());
}
} // namespace

std::vector<double> spmv(const csr<double>& A, const std::vector<double>& x, spmv_kind kind) {
  if (const std::string err = check_csr(A); !err.empty())
    throw std::invalid_argument("spmv: malformed CSR matrix: " + err);
  if (static_cast<std::int64_t>(x.size()) != A.cols)
    throw std::invalid_argument("spmv: x has the wrong length");
  switch (kind) {
  case spmv_kind::plain_f32:
    return spmv_as<float, float, float>(A, x);
  case spmv_kind::tcr_f32:
    return spmv_as<float, float, tcr::dot2<float>>(A, x);
  case spmv_kind::tcr_f64:
    return spmv_as<double, double, tcr::dot2<double>>(A, x);
  }
  return {};
}

} // namespace krylov
