// SPDX-License-Identifier: BSD-3-Clause
// Tests of tcr::gemm::sgemm (examples/gemm/gemm.cuh). One translation unit: gemm.cuh defines its
// non-template kernels (row_max_kernel, split_kernel) without `inline`, so a second translation
// unit including it would not link.
//
// Host cases: the size query and every bad-input rule of the header, none of which needs a
// device. sgemm checks m, n, k, answers the size query, then checks the pointers, temp_bytes and
// the leading dimensions, all before its first CUDA call (cudaMemsetAsync of the workspace), so
// the fake pointers below are never dereferenced. No valid call is made with fake pointers.
//
// GPU cases ("gpu" suite, skipped without a device). Every entry of C is checked against an exact
// reference: AB_ij = sum_k a_ik b_kj with each product exact in double (24 + 24 bits) and the sum
// taken exactly by tcr::exact_sum<double>, rounded once to double. The bound asserted per entry is
// the header's (**),
//     |AB_ij - P_ij| <= (split + mma) S_ij + small k amax_i bmax_j + final_rounding |P_ij|,
// plus the roundings of alpha P (u |alpha P|, unless alpha = 1) and of the fma with beta C
// (u |alpha P + beta C|, unless beta = 0), the reference's own rounding (2^-53 |alpha AB_ij|)
// and 2^-148 for results below float's normal range (the header's "within 2^-149 more", and the
// subnormal roundings of alpha P and of the fma). The bound is evaluated in long double (64-bit
// significand): S_ij and the bound's few operations then carry a relative error of at most
// about (k + 20) 2^-64 <= 2^-47, which the factor (1 + 2^-30) on the bound covers. Then:
//   - all 8 layout combinations on one data set, tails of m, n, k in {1, 7, 33, 127, 129, 200},
//     leading dimensions above the minimum (NaN in A's and B's padding, a sentinel in C's that
//     must stay), alpha and beta (beta = 0 over a NaN-filled C; alpha = 0 gives RN(beta C));
//   - uniform [-1, 1] data (24-bit mantissas) and data with exponents in 2^-20 .. 2^20; k = 65536;
//     a row of A near 2^-130 (subnormal) and one near 2^120 (results finite);
//   - a NaN in A and an Inf in B: their row and column of C are non-finite, the rest in bound;
//   - bitwise identical results run to run (workspace refilled with garbage between calls), with
//     and without the row statistics;
//   - row_sum and row_sumsq against exact sums of the C written, within u |s| + 2^-40 sum_j |C_ij|
//     (sumsq: u |s| + 2^-40 sum_j C_ij^2);
//   - a rejected call (bad ldc, small temp_bytes) writes nothing.
// Each case runs sgemm<>, sgemm<4, 2, 4, 32, 3, false> and sgemm<4, 3> (see `config`).
// Seeds are fixed and logged (MESSAGE).
#include <doctest/doctest.h>

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>
#include <tcr/compensated/exact.cuh>
#include <tcr/examples/gemm/gemm.cuh>
#include "support/cuda_check.hpp"
#include "support/fake_address.hpp"
#include "support/gen.hpp"

namespace {

using tcr::gemm::ErrorModel;
using tcr::gemm::Layout;
using tcr::gemm::RowStats;
using tcr::test::device_buffer;
using tcr::test::fake;
using tcr::test::rng64;
using ld_t = long double;

constexpr Layout layouts[2] = {Layout::row_major, Layout::col_major};
constexpr double u = 0x1p-24;

// The three configurations the tests instantiate (nvcc is slow: no more): sgemm<> (the header's
// defaults, Chain 8, two terms, 3 products, BlockK 64, 2 stages, two accumulators),
// sgemm<4, 2, 4, 32, 3, false>, which covers Products = 4, Chain 4, BlockK 32, 3 stages and the
// one accumulator (Cross = false), and sgemm<4, 3> (three terms, 6 products, BlockK 32).
enum class config { standard, p4, t3 };
constexpr config configs[3] = {config::standard, config::p4, config::t3};
// (std::string: doctest's INFO and MESSAGE print a const char* as an address.)
std::string name(config c) {
  return c == config::standard ? "sgemm<>"
         : c == config::p4     ? "sgemm<4, 2, 4, 32, 3, false>"
                               : "sgemm<4, 3>";
}
ErrorModel model(config c, int) {
  return c == config::standard ? tcr::gemm::gemm_error_model<8>()
         : c == config::p4     ? tcr::gemm::gemm_error_model<4, 2, 4, false>()
                               : tcr::gemm::gemm_error_model<4, 3>();
}
cudaError_t call_sgemm(config c, void* temp, std::size_t& bytes, Layout la, Layout lb, Layout lc,
                       int m, int n, int k, float alpha, const float* a, int lda, const float* b,
                       int ldb, float beta, float* cc, int ldc, RowStats stats) {
  if (c == config::standard)
    return tcr::gemm::sgemm(temp, bytes, la, lb, lc, m, n, k, alpha, a, lda, b, ldb, beta, cc, ldc,
                            nullptr, stats);
  if (c == config::p4)
    return tcr::gemm::sgemm<4, 2, 4, 32, 3, false>(temp, bytes, la, lb, lc, m, n, k, alpha, a, lda,
                                                   b, ldb, beta, cc, ldc, nullptr, stats);
  return tcr::gemm::sgemm<4, 3>(temp, bytes, la, lb, lc, m, n, k, alpha, a, lda, b, ldb, beta, cc,
                                ldc, nullptr, stats);
}

std::uint32_t bits(float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, 4);
  return b;
}
float from_bits(std::uint32_t b) {
  float x;
  std::memcpy(&x, &b, 4);
  return x;
}
const float c_sentinel = from_bits(0x7fc0dead); // a NaN with a payload: C's padding
const float nan_f = std::numeric_limits<float>::quiet_NaN();

// Data of the logical matrices, row-major: A m x k, B k x n, C m x n (C's values before the call).
struct matrices {
  int m = 0, n = 0, k = 0;
  std::vector<float> a, b, c;
};

enum class dist { uniform, spread };

// Uniform in [-1, 1) (the float rounding of a 53-bit uniform keeps all 24 bits random), or
// +-(1 + f) 2^e with f a random 23-bit fraction and e uniform in [-20, 20].
float draw(rng64& g, dist d) {
  if (d == dist::uniform)
    return static_cast<float>(g.symmetric());
  const float mant = 1.f + static_cast<float>(g.next() >> 41) * 0x1p-23f;
  const int e = static_cast<int>(g.integer(-20, 20));
  return (g.coin() ? -1.f : 1.f) * std::ldexp(mant, e);
}

matrices make(int m, int n, int k, dist d, std::uint64_t seed) {
  MESSAGE("data m=" << m << " n=" << n << " k=" << k
                    << std::string(d == dist::uniform ? " uniform" : " spread 2^-20..2^20")
                    << " seed=" << seed);
  rng64 g(seed);
  matrices x;
  x.m = m;
  x.n = n;
  x.k = k;
  x.a.resize(static_cast<std::size_t>(m) * k);
  x.b.resize(static_cast<std::size_t>(k) * n);
  x.c.resize(static_cast<std::size_t>(m) * n);
  for (float& v : x.a)
    v = draw(g, d);
  for (float& v : x.b)
    v = draw(g, d);
  for (float& v : x.c)
    v = static_cast<float>(g.symmetric());
  return x;
}

// The exact product and the quantities of the bound, per entry (row-major m x n) and per row of
// A / column of B.
struct reference {
  std::vector<double> exact; // RN_double(AB_ij), the exact sum rounded once
  std::vector<ld_t> s;       // S_ij = sum_k |a_ik b_kj|
  std::vector<double> amax, bmax;
};

reference exact_product(const matrices& x) {
  const int m = x.m, n = x.n, k = x.k;
  std::vector<double> bt(static_cast<std::size_t>(n) * k); // B^T: column j contiguous
  for (int kk = 0; kk < k; ++kk)
    for (int j = 0; j < n; ++j)
      bt[static_cast<std::size_t>(j) * k + kk] = x.b[static_cast<std::size_t>(kk) * n + j];
  reference r;
  r.exact.resize(static_cast<std::size_t>(m) * n);
  r.s.resize(r.exact.size());
  r.amax.assign(m, 0.0);
  r.bmax.assign(n, 0.0);
  for (int i = 0; i < m; ++i)
    for (int kk = 0; kk < k; ++kk)
      r.amax[i] =
          std::fmax(r.amax[i], std::fabs(double(x.a[static_cast<std::size_t>(i) * k + kk])));
  for (int j = 0; j < n; ++j)
    for (int kk = 0; kk < k; ++kk)
      r.bmax[j] = std::fmax(r.bmax[j], std::fabs(bt[static_cast<std::size_t>(j) * k + kk]));
  for (int i = 0; i < m; ++i) {
    const float* ai = x.a.data() + static_cast<std::size_t>(i) * k;
    for (int j = 0; j < n; ++j) {
      const double* bj = bt.data() + static_cast<std::size_t>(j) * k;
      tcr::exact_sum<double> acc;
      ld_t s = 0;
      for (int kk = 0; kk < k; ++kk) {
        const double p = double(ai[kk]) * bj[kk]; // exact: 48 significant bits, in range
        acc.add(p);
        s += std::fabs(static_cast<ld_t>(p));
      }
      r.exact[static_cast<std::size_t>(i) * n + j] = acc.result();
      r.s[static_cast<std::size_t>(i) * n + j] = s;
    }
  }
  return r;
}

// How an operand lies in memory: the logical matrix (rows x cols, row-major) stored with layout
// and leading dimension ld; everything else in the storage is `pad`.
std::vector<float> pack(const std::vector<float>& x, int rows, int cols, Layout l, int ld,
                        float pad) {
  const std::size_t outer = l == Layout::row_major ? rows : cols;
  std::vector<float> s(outer * ld, pad);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      s[l == Layout::row_major ? static_cast<std::size_t>(r) * ld + c
                               : static_cast<std::size_t>(c) * ld + r] =
          x[static_cast<std::size_t>(r) * cols + c];
  return s;
}
float at(const std::vector<float>& s, int r, int c, Layout l, int ld) {
  return s[l == Layout::row_major ? static_cast<std::size_t>(r) * ld + c
                                  : static_cast<std::size_t>(c) * ld + r];
}

// One call's shape of memory and scalars. ld = 0: the minimum for the layout.
struct setup {
  Layout la = Layout::row_major, lb = Layout::row_major, lc = Layout::row_major;
  int lda = 0, ldb = 0, ldc = 0;
  float alpha = 1.f, beta = 0.f;
  bool nan_c = false; // C filled with NaN before the call (with beta = 0)
  std::string str() const {
    std::ostringstream o;
    auto l = [](Layout x) { return x == Layout::row_major ? "R" : "C"; };
    o << "layouts A" << l(la) << " B" << l(lb) << " C" << l(lc) << " lda=" << lda << " ldb=" << ldb
      << " ldc=" << ldc << " alpha=" << alpha << " beta=" << beta << (nan_c ? " C=NaN" : "");
    return o.str();
  }
};

setup resolve(setup s, const matrices& x) {
  if (s.lda == 0)
    s.lda = s.la == Layout::row_major ? x.k : x.m;
  if (s.ldb == 0)
    s.ldb = s.lb == Layout::row_major ? x.n : x.k;
  if (s.ldc == 0)
    s.ldc = s.lc == Layout::row_major ? x.n : x.m;
  return s;
}

// The 8 layout combinations, everything else default.
std::vector<setup> all_layouts() {
  std::vector<setup> r;
  for (Layout la : layouts)
    for (Layout lb : layouts)
      for (Layout lc : layouts) {
        setup s;
        s.la = la;
        s.lb = lb;
        s.lc = lc;
        r.push_back(s);
      }
  return r;
}

// What one call left: C (logical, row-major), C's storage as it was before and after, and the
// row statistics when asked for.
struct outcome {
  std::vector<float> c, c_before, c_storage;
  std::vector<float> row_sum, row_sumsq;
};

// Runs sgemm on the device with the workspace filled with `garbage` bytes first.
outcome run(config cfg, const matrices& x, setup s, bool sum = false, bool sumsq = false,
            int garbage = 0xff) {
  s = resolve(s, x);
  const std::vector<float> a = pack(x.a, x.m, x.k, s.la, s.lda, nan_f);
  const std::vector<float> b = pack(x.b, x.k, x.n, s.lb, s.ldb, nan_f);
  std::vector<float> c_logical = x.c;
  if (s.nan_c)
    for (float& v : c_logical)
      v = nan_f;
  outcome o;
  o.c_before = pack(c_logical, x.m, x.n, s.lc, s.ldc, c_sentinel);
  device_buffer<float> d_a(a), d_b(b), d_c(o.c_before);
  device_buffer<float> d_sum(sum ? x.m : 0), d_ssq(sumsq ? x.m : 0);
  std::size_t bytes = 0;
  REQUIRE(call_sgemm(cfg, nullptr, bytes, s.la, s.lb, s.lc, x.m, x.n, x.k, s.alpha, d_a.get(),
                     s.lda, d_b.get(), s.ldb, s.beta, d_c.get(), s.ldc, {}) == cudaSuccess);
  device_buffer<unsigned char> d_temp(bytes);
  TCR_CHECK_CUDA(cudaMemset(d_temp.get(), garbage, bytes));
  TCR_CHECK_CUDA(call_sgemm(cfg, d_temp.get(), bytes, s.la, s.lb, s.lc, x.m, x.n, x.k, s.alpha,
                            d_a.get(), s.lda, d_b.get(), s.ldb, s.beta, d_c.get(), s.ldc,
                            RowStats{d_sum.get(), d_ssq.get()}));
  TCR_CHECK_CUDA(cudaDeviceSynchronize());
  o.c_storage = d_c.download();
  o.c.resize(x.c.size());
  for (int i = 0; i < x.m; ++i)
    for (int j = 0; j < x.n; ++j)
      o.c[static_cast<std::size_t>(i) * x.n + j] = at(o.c_storage, i, j, s.lc, s.ldc);
  if (sum)
    o.row_sum = d_sum.download();
  if (sumsq)
    o.row_sumsq = d_ssq.download();
  return o;
}

// C's storage outside the m x n entries is bitwise what it was.
void check_padding(const matrices& x, setup s, const outcome& o) {
  s = resolve(s, x);
  std::size_t changed = 0, logical = 0;
  for (std::size_t p = 0; p < o.c_storage.size(); ++p) {
    const std::size_t outer = p / s.ldc, inner = p % s.ldc;
    const std::size_t rows = s.lc == Layout::row_major ? x.m : x.n;
    const std::size_t cols = s.lc == Layout::row_major ? x.n : x.m;
    if (outer < rows && inner < cols) {
      ++logical;
      continue;
    }
    changed += bits(o.c_storage[p]) != bits(o.c_before[p]);
  }
  CHECK(logical == x.c.size());
  CHECK_MESSAGE(changed == 0, changed << " padding entries of C were written");
}

// The bound on |C_ij - (alpha AB_ij + beta C_ij)| for one entry (header comment of this file);
// ref gets alpha AB_ij + beta C_ij (long double).
ld_t entry_bound(const ErrorModel& em, int k, const reference& r, std::size_t e, int i, int j,
                 float alpha, float beta, float c_old, ld_t& ref) {
  const ld_t ex = r.exact[e];
  const ld_t floor = static_cast<ld_t>(em.small) * k * r.amax[i] * r.bmax[j];
  const ld_t e0 = static_cast<ld_t>(em.split + em.mma) * r.s[e] + floor;
  const ld_t p_abs = (std::fabs(ex) + e0) / (1 - static_cast<ld_t>(em.final_rounding));
  const ld_t e_p = e0 + static_cast<ld_t>(em.final_rounding) * p_abs; // (**)
  const ld_t a = std::fabs(static_cast<ld_t>(alpha));
  ref = static_cast<ld_t>(alpha) * ex + (beta == 0.f ? 0 : static_cast<ld_t>(beta) * c_old);
  ld_t b = a * e_p + a * std::ldexp(static_cast<ld_t>(1), -53) * std::fabs(ex);
  const ld_t ap_round = alpha == 1.f ? 0 : u * a * p_abs;
  b += ap_round;
  if (beta != 0.f)
    b += u * (std::fabs(ref) + a * e_p + ap_round);
  b += std::ldexp(static_cast<ld_t>(1), -148);
  return b * (1 + std::ldexp(static_cast<ld_t>(1), -30));
}

// Every entry of C not in a skipped row or column against the bound: how many lie outside it
// (the first one in words), how many are non-finite, the largest error / bound and error / (u S).
struct scan {
  std::size_t bad = 0, nonfinite = 0;
  double worst = 0, worst_rel_s = 0;
  std::string first;
};
scan bound_scan(config cfg, const matrices& x, const reference& r, const setup& s,
                const std::vector<float>& c, int skip_row = -1, int skip_col = -1) {
  const ErrorModel em = model(cfg, x.k);
  scan q;
  for (int i = 0; i < x.m; ++i) {
    if (i == skip_row)
      continue;
    for (int j = 0; j < x.n; ++j) {
      if (j == skip_col)
        continue;
      const std::size_t e = static_cast<std::size_t>(i) * x.n + j;
      ld_t ref = 0;
      const ld_t bound = entry_bound(em, x.k, r, e, i, j, s.alpha, s.beta, x.c[e], ref);
      const float got = c[e];
      if (!std::isfinite(got)) {
        ++q.nonfinite;
        continue;
      }
      const ld_t err = std::fabs(static_cast<ld_t>(got) - ref);
      q.worst = std::fmax(q.worst, static_cast<double>(err / bound));
      if (r.s[e] > 0)
        q.worst_rel_s = std::fmax(q.worst_rel_s, static_cast<double>(err / (u * r.s[e])));
      if (!(err <= bound) && q.bad++ == 0) {
        std::ostringstream m;
        m << "C(" << i << ", " << j << ") = " << got << " exact " << static_cast<double>(ref)
          << " error " << static_cast<double>(err) << " bound " << static_cast<double>(bound);
        q.first = m.str();
      }
    }
  }
  return q;
}

// bound_scan as assertions: no entry outside the bound, none non-finite. Returns the largest
// error / bound.
double check_bound(config cfg, const matrices& x, const reference& r, const setup& s,
                   const outcome& o, int skip_row = -1, int skip_col = -1) {
  const scan q = bound_scan(cfg, x, r, s, o.c, skip_row, skip_col);
  const std::string where = name(cfg) + " " + resolve(s, x).str();
  INFO(where);
  CHECK_MESSAGE(q.nonfinite == 0, q.nonfinite << " non-finite entries of C");
  CHECK_MESSAGE(q.bad == 0, q.bad << " entries outside the bound; first: " << q.first);
  MESSAGE(where << ": max error / bound " << q.worst << ", max error / (u S) " << q.worst_rel_s);
  return q.worst;
}

// Runs every configuration on (x, s) and checks the bound and C's padding.
void run_and_check(const matrices& x, const reference& r, const setup& s) {
  for (config cfg : configs) {
    const outcome o = run(cfg, x, s);
    check_bound(cfg, x, r, s, o);
    check_padding(x, s, o);
  }
}

bool same_bits(const std::vector<float>& p, const std::vector<float>& q) {
  return p.size() == q.size() && (p.empty() || std::memcmp(p.data(), q.data(), 4 * p.size()) == 0);
}

// ---- host cases ----

using tcr::test::fake;

const float* const fake_a = fake<const float>(0x10000);
const float* const fake_b = fake<const float>(0x20000);
float* const fake_c = fake<float>(0x30000);
void* const fake_temp = fake<void>(0x40000);

// The size query for an m x n x k product (operands null: the query reads none of them).
std::size_t query(int m, int n, int k, Layout la = Layout::row_major, Layout lb = Layout::row_major,
                  Layout lc = Layout::row_major) {
  std::size_t bytes = 0;
  REQUIRE(tcr::gemm::sgemm(nullptr, bytes, la, lb, lc, m, n, k, 1.f, nullptr, 1, nullptr, 1, 0.f,
                           nullptr, 1) == cudaSuccess);
  return bytes;
}

// One call with the fake workspace and operands; everything not given is valid for m x n x k.
// A leading dimension of use_min stands for the minimum of its layout.
constexpr int use_min = INT_MIN;
struct call {
  int m = 5, n = 7, k = 11;
  Layout la = Layout::row_major, lb = Layout::row_major, lc = Layout::row_major;
  int lda = use_min, ldb = use_min, ldc = use_min;
  const float* a = fake_a;
  const float* b = fake_b;
  float* c = fake_c;
  std::ptrdiff_t temp_delta = 0; // temp_bytes = the size query's + temp_delta
  cudaError_t run() const {
    const int min_lda = la == Layout::row_major ? k : m;
    const int min_ldb = lb == Layout::row_major ? n : k;
    const int min_ldc = lc == Layout::row_major ? n : m;
    std::size_t bytes = 0;
    if (m > 0 && n > 0 && k > 0)
      bytes = query(m, n, k) + temp_delta;
    return tcr::gemm::sgemm(fake_temp, bytes, la, lb, lc, m, n, k, 1.f, a,
                            lda == use_min ? min_lda : lda, b, ldb == use_min ? min_ldb : ldb, 0.5f,
                            c, ldc == use_min ? min_ldc : ldc);
  }
};

} // namespace

TEST_CASE("gemm: the size query needs no device and depends only on m, n and k") {
  // The query is plan() alone: it runs the same with or without a device (the host ctest entry
  // runs it on a machine without one).
  const std::size_t b = query(1, 1, 1);
  CHECK(b > 0);
  for (Layout la : layouts)
    for (Layout lb : layouts)
      for (Layout lc : layouts) {
        CHECK(query(1, 1, 1, la, lb, lc) == b);
        CHECK(query(200, 33, 129, la, lb, lc) == query(200, 33, 129));
      }
  // Neither the operands, nor the leading dimensions, nor alpha and beta are read by a query.
  std::size_t with_args = 0;
  REQUIRE(tcr::gemm::sgemm(nullptr, with_args, Layout::col_major, Layout::row_major,
                           Layout::col_major, 200, 33, 129, -3.f, fake_a, 0, fake_b, -5, 2.f,
                           fake_c, 0) == cudaSuccess);
  CHECK(with_args == query(200, 33, 129));
  // Never shrinks as m, n or k grow (the workspace holds split copies of A and B).
  for (int d : {1, 2, 7, 33, 127, 128, 129, 200, 1000, 4096, 65536}) {
    CHECK(query(d, 7, 7) >= query(d > 1 ? d - 1 : 1, 7, 7));
    CHECK(query(7, d, 7) >= query(7, d > 1 ? d - 1 : 1, 7));
    CHECK(query(7, 7, d) >= query(7, 7, d > 1 ? d - 1 : 1));
  }
  // At least the four fp16 terms of A (m x k) and B (k x n).
  CHECK(query(1000, 2000, 3000) >= std::size_t{2} * 2 * (1000 + 2000) * 3000);
  CHECK(query(16, 16, 65536) > query(16, 16, 1024));
  // A query with m, n or k <= 0 fails too.
  for (int bad : {0, -1}) {
    std::size_t bytes = 12345;
    CHECK(tcr::gemm::sgemm(nullptr, bytes, Layout::row_major, Layout::row_major, Layout::row_major,
                           bad, 4, 4, 1.f, nullptr, 4, nullptr, 4, 0.f, nullptr,
                           4) == cudaErrorInvalidValue);
    CHECK(tcr::gemm::sgemm(nullptr, bytes, Layout::row_major, Layout::row_major, Layout::row_major,
                           4, bad, 4, 1.f, nullptr, 4, nullptr, 4, 0.f, nullptr,
                           4) == cudaErrorInvalidValue);
    CHECK(tcr::gemm::sgemm(nullptr, bytes, Layout::row_major, Layout::row_major, Layout::row_major,
                           4, 4, bad, 1.f, nullptr, 4, nullptr, 4, 0.f, nullptr,
                           4) == cudaErrorInvalidValue);
    CHECK(bytes == 12345); // untouched on failure
  }
}

TEST_CASE("gemm: m, n or k <= 0 and null operands give cudaErrorInvalidValue") {
  for (int bad : {0, -1, -1000}) {
    call c;
    c.m = bad;
    CHECK(c.run() == cudaErrorInvalidValue);
    c = call{};
    c.n = bad;
    CHECK(c.run() == cudaErrorInvalidValue);
    c = call{};
    c.k = bad;
    CHECK(c.run() == cudaErrorInvalidValue);
  }
  for (const setup& l : all_layouts()) {
    call c;
    c.la = l.la;
    c.lb = l.lb;
    c.lc = l.lc;
    call x = c;
    x.a = nullptr;
    CHECK(x.run() == cudaErrorInvalidValue);
    x = c;
    x.b = nullptr;
    CHECK(x.run() == cudaErrorInvalidValue);
    x = c;
    x.c = nullptr;
    CHECK(x.run() == cudaErrorInvalidValue);
  }
}

TEST_CASE("gemm: temp_bytes below the size query's gives cudaErrorInvalidValue") {
  call c;
  c.temp_delta = -1;
  CHECK(c.run() == cudaErrorInvalidValue);
  const std::size_t need = query(c.m, c.n, c.k);
  for (std::size_t bytes : {std::size_t{0}, std::size_t{1}, need / 2, need - 256, need - 1}) {
    std::size_t b = bytes;
    CHECK(tcr::gemm::sgemm(fake_temp, b, Layout::row_major, Layout::row_major, Layout::row_major,
                           c.m, c.n, c.k, 1.f, fake_a, c.k, fake_b, c.n, 0.f, fake_c,
                           c.n) == cudaErrorInvalidValue);
    CHECK(b == bytes);
  }
}

TEST_CASE("gemm: each leading-dimension rule, for each layout") {
  // Shapes chosen so that the wrong dimension would accept the value tried: a rule that read
  // m for row-major A (instead of k) would let lda = 8 pass when m = 5 < 8 < k = 11.
  struct rule {
    const char* what;
    int m, n, k;
    Layout la, lb, lc;
    int lda, ldb, ldc;
  };
  const Layout R = Layout::row_major, C = Layout::col_major;
  const rule rules[] = {
      // A row-major: lda >= k
      {"A row-major, m < lda < k", 5, 7, 11, R, R, R, 8, use_min, use_min},
      {"A row-major, lda = k - 1", 11, 7, 5, R, R, R, 4, use_min, use_min},
      // A column-major: lda >= m
      {"A col-major, k < lda < m", 11, 7, 5, C, R, R, 8, use_min, use_min},
      {"A col-major, lda = m - 1", 5, 7, 11, C, R, R, 4, use_min, use_min},
      // B row-major: ldb >= n
      {"B row-major, k < ldb < n", 7, 11, 5, R, R, R, use_min, 8, use_min},
      {"B row-major, ldb = n - 1", 7, 5, 11, R, R, R, use_min, 4, use_min},
      // B column-major: ldb >= k
      {"B col-major, n < ldb < k", 7, 5, 11, R, C, R, use_min, 8, use_min},
      {"B col-major, ldb = k - 1", 7, 11, 5, R, C, R, use_min, 4, use_min},
      // C row-major: ldc >= n
      {"C row-major, m < ldc < n", 5, 11, 7, R, R, R, use_min, use_min, 8},
      {"C row-major, ldc = n - 1", 11, 5, 7, R, R, R, use_min, use_min, 4},
      // C column-major: ldc >= m
      {"C col-major, n < ldc < m", 11, 5, 7, R, R, C, use_min, use_min, 8},
      {"C col-major, ldc = m - 1", 5, 11, 7, R, R, C, use_min, use_min, 4},
  };
  for (const rule& r : rules) {
    INFO(std::string(r.what));
    // The other two operands in each of their layouts, at their minimum leading dimension.
    for (Layout other1 : layouts)
      for (Layout other2 : layouts) {
        call c;
        c.m = r.m;
        c.n = r.n;
        c.k = r.k;
        c.la = r.la;
        c.lb = r.lb;
        c.lc = r.lc;
        if (r.lda != use_min) {
          c.lb = other1;
          c.lc = other2;
        } else if (r.ldb != use_min) {
          c.la = other1;
          c.lc = other2;
        } else {
          c.la = other1;
          c.lb = other2;
        }
        c.lda = r.lda;
        c.ldb = r.ldb;
        c.ldc = r.ldc;
        CHECK(c.run() == cudaErrorInvalidValue);
        // Zero and negative leading dimensions fail the same rule.
        for (int bad : {0, -7}) {
          call z = c;
          (r.lda != use_min ? z.lda : r.ldb != use_min ? z.ldb : z.ldc) = bad;
          CHECK(z.run() == cudaErrorInvalidValue);
        }
      }
  }
}

TEST_CASE("gemm: gemm_error_model's constants are the header's") {
  constexpr double u = 0x1p-24;
  constexpr tcr::gemm::ErrorModel d = tcr::gemm::gemm_error_model<4>();
  CHECK(d.split == 12.004 * u);
  CHECK(d.mma == 288 * (1 + 0x1p-7) * u);                                // "Chain = 4: 290.25 u"
  CHECK(tcr::gemm::gemm_error_model<8>().mma == 576 * (1 + 0x1p-7) * u); // "580.5 u"
  CHECK(d.small == 0x1p-38);
  CHECK(d.final_rounding == u);
  constexpr tcr::gemm::ErrorModel p4 = tcr::gemm::gemm_error_model<4, 2, 4>();
  CHECK(p4.split == 8.002 * u);
  CHECK(p4.mma == d.mma); // the (hi, hi) chain's alone
  constexpr tcr::gemm::ErrorModel c16 = tcr::gemm::gemm_error_model<16>();
  CHECK(c16.mma == 4 * d.mma); // linear in Chain
  CHECK(c16.split == d.split);
  constexpr tcr::gemm::ErrorModel one = tcr::gemm::gemm_error_model<4, 2, 3, false>();
  CHECK(one.mma == 864 * u); // one accumulator: linear in Products too
  CHECK(3 * tcr::gemm::gemm_error_model<4, 2, 4, false>().mma == 4 * one.mma);
  constexpr tcr::gemm::ErrorModel t3 = tcr::gemm::gemm_error_model<4, 3>();
  CHECK(t3.split == 4.004 * 0x1p-33); // "0.00782 u"
  CHECK(t3.mma == d.mma);
  CHECK(t3.small == 0x1p-38 * (1 + 0x1p-9));
}

TEST_CASE("gemm test support: the exact reference and the bound catch what they should") {
  // A sum that double arithmetic gets wrong: 2^60 + 1 - 2^60 = 1.
  matrices x;
  x.m = x.n = 1;
  x.k = 3;
  x.a = {0x1p60f, 1.f, -0x1p60f};
  x.b = {1.f, 1.f, 1.f};
  x.c = {0.f};
  const reference r = exact_product(x);
  CHECK(r.exact[0] == 1.0);
  CHECK(r.s[0] == std::ldexp(static_cast<ld_t>(1), 61) + 1);
  CHECK(r.amax[0] == 0x1p60);
  CHECK(r.bmax[0] == 1.0);
  // Random data: RN_f32 of the exact result lies within the bound (its error is at most
  // u |exact|, one of the bound's terms); a result off by a few bounds does not.
  const matrices y = make(9, 11, 300, dist::spread, 17001);
  const reference ry = exact_product(y);
  for (config cfg : configs) {
    setup s;
    std::vector<float> c(y.c.size());
    for (std::size_t e = 0; e < c.size(); ++e)
      c[e] = static_cast<float>(ry.exact[e]);
    CHECK(bound_scan(cfg, y, ry, s, c).bad == 0);
    ld_t ref = 0;
    const ld_t b = entry_bound(model(cfg, y.k), y.k, ry, 13, 1, 2, 1.f, 0.f, y.c[13], ref);
    CHECK(ref == static_cast<ld_t>(ry.exact[13]));
    c[13] = static_cast<float>(ref + 3 * b);
    const scan q = bound_scan(cfg, y, ry, s, c);
    CHECK(q.bad == 1);
    CHECK(q.first.rfind("C(1, 2)", 0) == 0);
    // With alpha and beta: RN_f32(alpha AB + beta C) is within the bound.
    s.alpha = -0.75f;
    s.beta = 1.5f;
    for (std::size_t e = 0; e < c.size(); ++e)
      c[e] = static_cast<float>(-0.75L * ry.exact[e] + 1.5L * y.c[e]);
    CHECK(bound_scan(cfg, y, ry, s, c).bad == 0);
    c[0] = nan_f;
    CHECK(bound_scan(cfg, y, ry, s, c).nonfinite == 1);
    CHECK(bound_scan(cfg, y, ry, s, c, 0).nonfinite == 0); // row 0 skipped
  }
  // pack / at / resolve: C's storage with padding round-trips, the padding keeps the pad value.
  setup s;
  s.lc = Layout::col_major;
  s.ldc = y.m + 3;
  const std::vector<float> st = pack(y.c, y.m, y.n, s.lc, s.ldc, c_sentinel);
  CHECK(st.size() == static_cast<std::size_t>(y.n) * (y.m + 3));
  std::size_t pads = 0;
  for (float v : st)
    pads += bits(v) == bits(c_sentinel);
  CHECK(pads == static_cast<std::size_t>(y.n) * 3);
  CHECK(at(st, 4, 7, s.lc, s.ldc) == y.c[4 * y.n + 7]);
  CHECK(resolve(setup{}, y).lda == y.k);
  CHECK(resolve(setup{}, y).ldb == y.n);
}

TEST_SUITE("gpu") {
  TEST_CASE("gemm: all 8 layout combinations within the bound, on one data set") {
    const matrices x = make(129, 200, 127, dist::uniform, 15001);
    const reference r = exact_product(x);
    for (config cfg : configs) {
      std::vector<float> first;
      bool same = true;
      for (const setup& s : all_layouts()) {
        const outcome o = run(cfg, x, s);
        check_bound(cfg, x, r, s, o);
        check_padding(x, s, o);
        if (first.empty())
          first = o.c;
        else
          same = same && same_bits(first, o.c);
      }
      // Not a contract of the header, an observation: the split copies of A and B do not depend
      // on the layouts, so neither do the results.
      WARN_MESSAGE(same, name(cfg) << ": results differ between layouts");
    }
  }

  TEST_CASE("gemm: tails of m, n and k") {
    const int shapes[][3] = {{1, 1, 1},     {1, 7, 200},     {7, 1, 33},     {33, 129, 1},
                             {127, 33, 7},  {200, 127, 129}, {129, 200, 33}, {1, 129, 127},
                             {200, 1, 200}, {7, 7, 129},     {129, 129, 7},  {33, 33, 33}};
    int combo = 0;
    for (const auto& sh : shapes) {
      const matrices x = make(sh[0], sh[1], sh[2], dist::uniform, 15100 + combo);
      const reference r = exact_product(x);
      setup s;
      s.la = layouts[combo & 1];
      s.lb = layouts[(combo >> 1) & 1];
      s.lc = layouts[(combo >> 2) & 1];
      run_and_check(x, r, s);
      ++combo;
    }
  }

  TEST_CASE("gemm: leading dimensions above the minimum; padding of C untouched") {
    const matrices x = make(33, 127, 129, dist::uniform, 15201);
    const reference r = exact_product(x);
    for (setup s : all_layouts()) {
      s = resolve(s, x);
      s.lda += 3;
      s.ldb += 5;
      s.ldc += 7;
      run_and_check(x, r, s);
    }
    setup wide; // a leading dimension far above the minimum
    wide.lda = x.k + 1000;
    wide.ldb = x.n + 128;
    wide.ldc = x.n + 4096;
    run_and_check(x, r, wide);
  }

  TEST_CASE("gemm: alpha and beta") {
    const matrices x = make(127, 129, 65, dist::uniform, 15301);
    const reference r = exact_product(x);
    const float ab[][2] = {{-0.75f, 1.5f}, {3.f, -1.f}, {1.f, 1.f}, {0.1f, 0.f}, {-1.f, 0.25f}};
    for (const auto& p : ab) {
      setup s;
      s.alpha = p[0];
      s.beta = p[1];
      s.lc = Layout::col_major;
      run_and_check(x, r, s);
    }
    { // beta = 0 does not read C: NaN there gives finite results
      setup s;
      s.alpha = 2.f;
      s.nan_c = true;
      s.lb = Layout::col_major;
      run_and_check(x, r, s); // check_bound counts non-finite entries as failures
    }
    { // alpha = 0 gives RN(beta C) (alpha P = 0 exactly); alpha = beta = 0 gives zeros
      for (config cfg : configs)
        for (float beta : {1.5f, -0.3f, 0.f}) {
          setup s;
          s.alpha = 0.f;
          s.beta = beta;
          const outcome o = run(cfg, x, s);
          std::size_t bad = 0;
          for (std::size_t e = 0; e < x.c.size(); ++e) {
            const float want = static_cast<float>(double(beta) * x.c[e]); // one rounding
            bad += !(o.c[e] == want);
          }
          INFO(name(cfg), " beta ", beta);
          CHECK(bad == 0);
          check_padding(x, s, o);
        }
    }
  }

  TEST_CASE("gemm: exponents spread over 2^-20 .. 2^20") {
    const matrices x = make(129, 200, 127, dist::spread, 15401);
    const reference r = exact_product(x);
    setup s;
    run_and_check(x, r, s);
    s.la = Layout::col_major;
    s.lc = Layout::col_major;
    s.alpha = -1.25f;
    s.beta = 0.5f;
    run_and_check(x, r, s);
    // Few output tiles and a longer k (a header that splits k over blocks does so here).
    const matrices y = make(64, 200, 1500, dist::spread, 15402);
    const reference ry = exact_product(y);
    setup t;
    t.la = Layout::col_major;
    run_and_check(y, ry, t);
  }

  TEST_CASE("gemm: large k (m = n = 16, k = 65536)") {
    const matrices x = make(16, 16, 65536, dist::uniform, 15501);
    const reference r = exact_product(x);
    setup s;
    s.la = Layout::col_major; // k strided in A
    run_and_check(x, r, s);
  }

  TEST_CASE("gemm: a tiny (subnormal) row and a huge row of A; results finite") {
    matrices x = make(64, 65, 200, dist::uniform, 15601);
    const int tiny = 5, huge = 40;
    rng64 g(15602);
    MESSAGE("row scales seed=15602");
    for (int kk = 0; kk < x.k; ++kk) {
      // |a| up to 2^-130: subnormal floats (the scaling rounds them, as the input does)
      x.a[static_cast<std::size_t>(tiny) * x.k + kk] =
          static_cast<float>(std::ldexp(g.symmetric(), -130));
      // +-(0.5 .. 1) 2^120: |sum| <= 200 2^120 < 2^128
      x.a[static_cast<std::size_t>(huge) * x.k + kk] =
          static_cast<float>(std::ldexp((g.coin() ? -1 : 1) * (0.5 + 0.5 * g.uniform()), 120));
    }
    const reference r = exact_product(x);
    setup s;
    run_and_check(x, r, s); // non-finite entries count as failures
    s.lb = Layout::col_major;
    s.alpha = 0.5f;
    s.beta = -2.f;
    run_and_check(x, r, s);
  }

  TEST_CASE("gemm: a NaN in A and an Inf in B poison their row and column only") {
    matrices x = make(40, 50, 70, dist::uniform, 15701);
    const int nan_row = 7, nan_k = 13, inf_col = 30, inf_k = 21;
    x.a[static_cast<std::size_t>(nan_row) * x.k + nan_k] = nan_f;
    x.b[static_cast<std::size_t>(inf_k) * x.n + inf_col] = std::numeric_limits<float>::infinity();
    const reference r = exact_product(x); // finite outside the row and column
    for (config cfg : configs)
      for (Layout lb : layouts) {
        setup s;
        s.lb = lb;
        const outcome o = run(cfg, x, s);
        check_bound(cfg, x, r, s, o, nan_row, inf_col);
        std::size_t finite = 0;
        for (int j = 0; j < x.n; ++j)
          finite += std::isfinite(o.c[static_cast<std::size_t>(nan_row) * x.n + j]);
        for (int i = 0; i < x.m; ++i)
          finite += std::isfinite(o.c[static_cast<std::size_t>(i) * x.n + inf_col]);
        INFO(name(cfg), " ", s.str());
        CHECK_MESSAGE(finite == 0, finite << " finite entries in the NaN row or the Inf column");
      }
  }

  TEST_CASE("gemm: bitwise identical results run to run, with and without row statistics") {
    const matrices x = make(257, 300, 1000, dist::uniform, 15801);
    for (config cfg : configs) {
      setup s;
      s.beta = 0.5f;
      s.lb = Layout::col_major;
      const outcome o1 = run(cfg, x, s, false, false, 0xff);
      const outcome o2 = run(cfg, x, s, false, false, 0x5a);
      const outcome o3 = run(cfg, x, s, true, true, 0x00);
      const outcome o4 = run(cfg, x, s, true, true, 0xa5);
      INFO(name(cfg));
      CHECK(same_bits(o1.c_storage, o2.c_storage));
      CHECK(same_bits(o1.c_storage, o3.c_storage)); // the epilogue writes the same C
      CHECK(same_bits(o3.c_storage, o4.c_storage));
      CHECK(same_bits(o3.row_sum, o4.row_sum));
      CHECK(same_bits(o3.row_sumsq, o4.row_sumsq));
    }
  }

  TEST_CASE("gemm: row_sum and row_sumsq of the C written, against exact sums") {
    // n = 260: three column blocks of 128; k = 520 with 6 output tiles (a header that splits k
    // over blocks does so here).
    const matrices x = make(130, 260, 520, dist::uniform, 15901);
    const reference r = exact_product(x);
    for (config cfg : configs)
      for (Layout lc : layouts) {
        setup s;
        s.lc = lc;
        s.alpha = 1.5f;
        s.beta = 0.5f;
        const outcome o = run(cfg, x, s, true, true);
        check_bound(cfg, x, r, s, o);
        check_padding(x, s, o);
        REQUIRE(o.row_sum.size() == static_cast<std::size_t>(x.m));
        REQUIRE(o.row_sumsq.size() == static_cast<std::size_t>(x.m));
        std::size_t bad = 0;
        double worst = 0;
        for (int i = 0; i < x.m; ++i) {
          tcr::exact_sum<double> sum, ssq;
          ld_t abs_sum = 0, sq_sum = 0;
          for (int j = 0; j < x.n; ++j) {
            const double c = o.c[static_cast<std::size_t>(i) * x.n + j];
            sum.add(c);
            ssq.add(c * c); // exact: 48 bits
            abs_sum += std::fabs(c);
            sq_sum += c * c;
          }
          // Exact sums rounded to double (2^-53 relative), the bound u |s| + 2^-40 sum, and
          // 2^-149 for a float result below the normal range.
          const double es = sum.result(), eq = ssq.result();
          const ld_t slack = 1 + std::ldexp(static_cast<ld_t>(1), -30);
          const ld_t bs =
              (u * std::fabs(es) + 0x1p-40 * abs_sum + 0x1p-53 * std::fabs(es) + 0x1p-149) * slack;
          const ld_t bq = (u * eq + 0x1p-40 * sq_sum + 0x1p-53 * eq + 0x1p-149) * slack;
          const ld_t ds = std::fabs(static_cast<ld_t>(o.row_sum[i]) - es);
          const ld_t dq = std::fabs(static_cast<ld_t>(o.row_sumsq[i]) - eq);
          bad += !(ds <= bs) + !(dq <= bq);
          worst = std::fmax(worst, static_cast<double>(std::fmax(ds / bs, dq / bq)));
        }
        INFO(name(cfg), " ", s.str());
        CHECK_MESSAGE(bad == 0, bad << " row statistics outside the bound");
        MESSAGE(name(cfg) << " row stats: max error / bound " << worst);
        // One output alone gives the same bits as both.
        const outcome only_sum = run(cfg, x, s, true, false);
        const outcome only_ssq = run(cfg, x, s, false, true);
        CHECK(same_bits(only_sum.row_sum, o.row_sum));
        CHECK(same_bits(only_ssq.row_sumsq, o.row_sumsq));
        CHECK(same_bits(only_sum.c_storage, o.c_storage));
      }
  }

  TEST_CASE("gemm: a rejected call writes nothing") {
    const matrices x = make(40, 50, 70, dist::uniform, 16001);
    for (config cfg : configs) {
      const std::vector<float> c0 = pack(x.c, x.m, x.n, Layout::row_major, x.n, c_sentinel);
      const std::vector<float> stats0(x.m, -7.f);
      device_buffer<float> d_a(x.a), d_b(x.b), d_c(c0), d_sum(stats0), d_ssq(stats0);
      std::size_t bytes = 0;
      REQUIRE(call_sgemm(cfg, nullptr, bytes, Layout::row_major, Layout::row_major,
                         Layout::row_major, x.m, x.n, x.k, 1.f, d_a.get(), x.k, d_b.get(), x.n, 0.f,
                         d_c.get(), x.n, {}) == cudaSuccess);
      device_buffer<unsigned char> d_temp(bytes);
      TCR_CHECK_CUDA(cudaMemset(d_temp.get(), 0, bytes));
      const RowStats st{d_sum.get(), d_ssq.get()};
      // ldc below n for a row-major C
      CHECK(call_sgemm(cfg, d_temp.get(), bytes, Layout::row_major, Layout::row_major,
                       Layout::row_major, x.m, x.n, x.k, 1.f, d_a.get(), x.k, d_b.get(), x.n, 0.f,
                       d_c.get(), x.n - 1, st) == cudaErrorInvalidValue);
      // temp_bytes one below the query's
      std::size_t small = bytes - 1;
      CHECK(call_sgemm(cfg, d_temp.get(), small, Layout::row_major, Layout::row_major,
                       Layout::row_major, x.m, x.n, x.k, 1.f, d_a.get(), x.k, d_b.get(), x.n, 0.f,
                       d_c.get(), x.n, st) == cudaErrorInvalidValue);
      TCR_CHECK_CUDA(cudaDeviceSynchronize());
      INFO(name(cfg));
      CHECK(same_bits(d_c.download(), c0));
      CHECK(same_bits(d_sum.download(), stats0));
      CHECK(same_bits(d_ssq.download(), stats0));
      const std::vector<unsigned char> ws = d_temp.download();
      std::size_t nonzero = 0;
      for (unsigned char v : ws)
        nonzero += v != 0;
      CHECK_MESSAGE(nonzero == 0, "the workspace was written");
    }
  }
}
