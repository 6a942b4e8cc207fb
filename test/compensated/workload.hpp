// SPDX-License-Identifier: BSD-3-Clause
// tcr tests: one fixed workload over every compensated/ type, run on the host (both contraction
// builds) and on the device. Its results are reduced to a digest of their bit patterns: equal
// digests mean bitwise identical results, whatever the compiler contracts and wherever it runs.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>
#include <tcr/compensated/accumulators.cuh>
#include <tcr/compensated/double_word.cuh>
#include <tcr/compensated/expansion.cuh>
#include <tcr/compensated/ssq.cuh>
#include "support/gen.hpp"

namespace tcr::test {

constexpr int workload_chunks = 48;
constexpr int workload_chunk = 301;  // elements per chunk
constexpr int workload_outputs = 64; // result slots per chunk (62 used, the rest stay 0)

struct workload_input {
  std::vector<double> x, y; // workload_chunks * workload_chunk each
  std::vector<float> xf, yf;
  std::vector<__half> xh;
};

// GenSum / GenDot data of rising condition, then chunks of special values and extreme ranges.
inline workload_input make_workload_input() {
  workload_input in;
  const std::size_t m = workload_chunk;
  for (int c = 0; c < workload_chunks; ++c) {
    const std::uint64_t seed = 0x3017000 + std::uint64_t(c);
    std::vector<double> x, y;
    const int kind = c % 8;
    if (kind < 4) {
      const double cond = std::pow(10.0, 4 * (c / 2 % 9));
      auto xy = gen_dot<double>(m, cond, seed);
      x = gen_sum<double>(m, cond, seed);
      y = xy.second;
    } else if (kind == 4) { // wide range, every ssq band
      rng64 rng(seed);
      for (std::size_t i = 0; i < m; ++i) {
        x.push_back(std::ldexp(rng.symmetric(), int(rng.integer(-1070, 1020))));
        y.push_back(std::ldexp(rng.symmetric(), int(rng.integer(-140, 120))));
      }
    } else if (kind == 5) { // special values: Inf, NaN, overflow
      x = gen_uniform<double>(m, seed);
      y = gen_uniform<double>(m, seed + 1);
      const double inf = HUGE_VAL;
      if (c % 3 == 0)
        x[7] = inf, y[9] = -inf;
      if (c % 3 == 1)
        x[100] = std::nan(""), y[3] = inf;
      if (c % 3 == 2)
        x[0] = 1e308, x[1] = 1.7e308, y[0] = 3e38f, y[1] = 3e38f;
    } else if (kind == 6) { // subnormals and zeros
      rng64 rng(seed);
      for (std::size_t i = 0; i < m; ++i) {
        x.push_back(i % 5 ? std::ldexp(rng.symmetric(), -1060 + int(i % 20)) : -0.0);
        y.push_back(std::ldexp(rng.symmetric(), -140 + int(i % 10)));
      }
    } else { // cancelling pairs and same-sign data
      x = gen_cancelling_pairs<double>(m, seed, -300, 300);
      y = gen_same_sign<double>(m, seed + 1, -60, 60);
    }
    in.x.insert(in.x.end(), x.begin(), x.end());
    in.y.insert(in.y.end(), y.begin(), y.end());
  }
  for (double v : in.x)
    in.xf.push_back(static_cast<float>(v));
  for (double v : in.y)
    in.yf.push_back(static_cast<float>(v));
  for (float v : in.xf)
    in.xh.push_back(__float2half_rn(v));
  return in;
}

namespace detail_workload {
template <class A, class V>
TCR_HD double chain(const V* v, int n) {
  A a;
  for (int i = 0; i < n; ++i)
    a.add(v[i]);
  return double(a.result());
}
template <class A, class V>
TCR_HD double halves(const V* v, int n) {
  A a, b;
  for (int i = 0; i < n / 3; ++i)
    a.add(v[i]);
  for (int i = n / 3; i < n; ++i)
    b.add(v[i]);
  b.merge(a);
  return double(b.result());
}
template <class T, class V>
TCR_HD double dot(const V* x, const V* y, int n, bool split) {
  tcr::dot2<T> a, b;
  for (int i = 0; i < n; ++i)
    (split && i % 2 ? b : a).add(x[i], y[i]);
  a.merge(b);
  return double(a.result());
}
template <class T>
TCR_HD int dw_ops(const double_word<T>& a, const double_word<T>& b, double* out) {
  int k = 0;
  auto put = [&](const double_word<T>& r) {
    out[k++] = double(r.hi);
    out[k++] = double(r.lo);
  };
  put(tcr::add(a, b));
  put(tcr::add_sloppy(a, b));
  put(tcr::add(a, b.hi));
  put(a * b);
  put(tcr::mul(a, b.hi));
  put(a / b);
  put(tcr::div(a, b.hi));
  put(tcr::sqrt(tcr::abs(a)));
  put(tcr::fma(a, b, a));
  out[k++] = double((a < b) + 2 * (a <= b) + 4 * (a == b) + 8 * (a > b) + 16 * (a != b));
  return k;
}
} // namespace detail_workload

// Every result of chunk c of the workload into out[0 .. workload_outputs).
TCR_HD int run_workload_chunk(const double* x, const double* y, const float* xf, const float* yf,
                              const __half* xh, double* out) {
  using namespace detail_workload;
  const int n = workload_chunk;
  int k = 0;
  out[k++] = chain<tcr::neumaier<double>>(x, n);
  out[k++] = chain<tcr::neumaier<float>>(xf, n);
  out[k++] = chain<tcr::neumaier<float>>(xh, n);
  out[k++] = chain<tcr::neumaier<double>>(xf, n);
  out[k++] = chain<tcr::kahan<double>>(x, n);
  out[k++] = chain<tcr::kahan<float>>(xf, n);
  out[k++] = halves<tcr::neumaier<double>>(x, n);
  out[k++] = halves<tcr::kahan<float>>(xf, n);
  out[k++] = dot<double>(x, y, n, false);
  out[k++] = dot<double>(x, y, n, true);
  out[k++] = dot<float>(xf, yf, n, false);
  out[k++] = chain<tcr::ssq<double>>(x, n);
  out[k++] = chain<tcr::ssq<float>>(xf, n);
  out[k++] = chain<tcr::ssq<double>>(xf, n);
  out[k++] = chain<tcr::ssq<float>>(xh, n);
  out[k++] = halves<tcr::ssq<double>>(x, n);
  out[k++] = chain<tcr::ssq<float>>(yf, n); // y spans float's whole range in some chunks
  out[k++] = halves<tcr::ssq<float>>(yf, n);
  out[k++] = chain<tcr::expansion<double, 2>>(x, n);
  out[k++] = chain<tcr::expansion<double, 3>>(x, n);
  out[k++] = chain<tcr::expansion<double, 4>>(x, n);
  out[k++] = chain<tcr::expansion<float, 3>>(xf, n);
  out[k++] = halves<tcr::expansion<float, 4>>(xf, n);
  // Double-word operations on pairs built from the data (normalised by from_sum).
  using tcr::detail::mul_rn; // a plain product here could be contracted into from_sum's add
  const dd a = dd::from_sum(x[0], mul_rn(x[1], 0x1p-60)),
           b = dd::from_sum(y[0], mul_rn(y[1], 0x1p-60));
  k += dw_ops(a, b, out + k);
  const df32 fa = to_df32(x[2]), fb = df32::from_sum(yf[2], mul_rn(yf[3], 0x1p-30f));
  k += dw_ops(fa, fb, out + k);
  out[k++] = to_double(fa);
  return k;
}

// FNV-1a over the results' bit patterns; every NaN counts as one pattern (payloads differ
// between CPUs and GPUs), zeros keep their sign.
inline std::uint64_t workload_digest(const std::vector<double>& results) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (double v : results) {
    std::uint64_t bits;
    if (std::isnan(v))
      v = std::nan("");
    std::memcpy(&bits, &v, sizeof bits);
    if (std::isnan(v))
      bits = 0x7ff8000000000000ull;
    for (int i = 0; i < 8; ++i)
      h = (h ^ ((bits >> (8 * i)) & 0xff)) * 0x100000001b3ull;
  }
  return h;
}

inline std::vector<double> run_workload_host(const workload_input& in) {
  std::vector<double> out(std::size_t(workload_chunks) * workload_outputs, 0.0);
  for (int c = 0; c < workload_chunks; ++c) {
    const std::size_t o = std::size_t(c) * workload_chunk;
    const int k =
        run_workload_chunk(in.x.data() + o, in.y.data() + o, in.xf.data() + o, in.yf.data() + o,
                           in.xh.data() + o, out.data() + std::size_t(c) * workload_outputs);
    if (k > workload_outputs)
      return {}; // (cannot happen: 62 results)
  }
  return out;
}

// The digest every build and the device must reproduce (recorded from the contraction-off host
// build; a change to any algorithm changes it, on purpose).
constexpr std::uint64_t workload_expected_digest = 0xb78b7894afe2c7bbull;

} // namespace tcr::test
