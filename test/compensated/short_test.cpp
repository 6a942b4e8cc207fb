// SPDX-License-Identifier: BSD-3-Clause
// Tests for the short accumulators of compensated/reductions.cuh (short_sum_accumulator: a plain
// double sum of float-range terms or their squares, for reductions of at most
// short_terms terms) on the host, against exact MPFR references: the double value within
// gamma_{n-1} S of the exact sum for random trees of partials (the bound the header proves), the
// float result within the compensated contract 2u|s| + 2^-40 S (Nrm2: relative u + 2^-40), and
// special values as plain summation gives them.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>
#include <tcr/compensated/reductions.cuh>
#include "reduce/device_check.hpp"
#include "support/gen.hpp"
#include "support/mpfr_ref.hpp"

namespace {

using tcr::test::mp;

template <class Acc>
using partial_of = typename Acc::partial_type;

// The partial of x (and y) cut into parts of random lengths, each part added as chunks of 4
// (then the rest one by one), the parts' partials merged in a random tree.
template <class Acc, class F>
partial_of<Acc> random_tree(std::size_t n, tcr::test::rng64& rng, F&& add_range) {
  std::vector<partial_of<Acc>> parts;
  for (std::size_t i = 0; i < n;) {
    const std::size_t len = std::min<std::size_t>(n - i, 1 + rng.next() % 97);
    Acc a{};
    add_range(a, i, i + len);
    parts.push_back(a.partial());
    i += len;
  }
  const Acc ops{};
  while (parts.size() > 1) {
    const std::size_t k = std::size_t(rng.next() % (parts.size() - 1));
    parts[k] = rng.coin() ? ops.merge(parts[k], parts[k + 1]) : ops.merge(parts[k + 1], parts[k]);
    parts.erase(parts.begin() + std::ptrdiff_t(k + 1));
  }
  return parts.empty() ? Acc{}.partial() : parts[0];
}

template <class Acc, class T>
void add_sum_range(Acc& a, const std::vector<T>& x, std::size_t lo, std::size_t hi) {
  std::size_t i = lo;
  for (; i + 4 <= hi; i += 4) {
    const T c[4] = {x[i], x[i + 1], x[i + 2], x[i + 3]};
    a.add(c);
  }
  for (; i < hi; ++i) {
    const T c[1] = {x[i]};
    a.add(c);
  }
}

// gamma_{n-1} for u_d = 2^-53, rounded up (k u / (1 - k u) < k u (1 + 2 k u) for k u < 1/4).
double gamma_d(std::size_t n) {
  const double ku = double(n > 0 ? n - 1 : 0) * 0x1p-53;
  return ku * (1 + 2 * ku) * (1 + 0x1p-50);
}

std::vector<double> widened(const std::vector<float>& x) {
  return std::vector<double>(x.begin(), x.end());
}

TEST_CASE("short_sum_accumulator: any tree within gamma_{n-1} S, the float result within the "
          "contract") {
  tcr::test::rng64 rng(0x5a17);
  for (double cond : {1.0, 1e8, 1e16, 1e32}) {
    for (std::size_t n : {std::size_t(1), std::size_t(7), std::size_t(100), std::size_t(1000),
                          std::size_t(tcr::short_terms)}) {
      const std::vector<float> x = tcr::test::gen_sum<float>(n, cond, 17 + n);
      const std::vector<double> xd = widened(x);
      const mp s = tcr::test::exact_sum(xd);
      const mp S = tcr::test::exact_abs_sum(xd);
      for (int tree = 0; tree < 4; ++tree) {
        using A = tcr::short_sum_accumulator<false>;
        const auto p = random_tree<A>(
            n, rng, [&](A& a, std::size_t lo, std::size_t hi) { add_sum_range(a, x, lo, hi); });
        INFO("cond ", cond, ", n ", n, ", tree ", tree);
        CHECK(tcr::test::within_bound(p.value, s, S, 0.0, gamma_d(n)));
        const float res = A{}.finish<float>(p);
        CHECK(tcr::test::within_bound(res, s, S, 0x1p-23, 0x1p-40));
      }
    }
  }
}

TEST_CASE("short accumulators: 16-bit and 8-bit inputs, Asum and Nrm2 within their bounds") {
  tcr::test::rng64 rng(0xd07);
  const std::size_t n = tcr::short_terms;
  // Nrm2 of floats over the whole range (squares from 2^-298 to 2^254: exact, no underflow).
  {
    std::vector<float> x(n);
    for (std::size_t i = 0; i < n; ++i)
      x[i] = std::ldexp(float(1 + rng.next() % 1000) / 1000.0f, int(rng.next() % 250) - 149);
    using A = tcr::short_sum_accumulator<true>;
    const auto p = random_tree<A>(
        n, rng, [&](A& a, std::size_t lo, std::size_t hi) { add_sum_range(a, x, lo, hi); });
    const std::vector<double> xd = widened(x);
    const mp ssq = tcr::test::exact_dot(xd, xd);
    CHECK(tcr::test::nrm2_within(A{}.finish<float>(p), ssq, 0x1p-24 + 0x1p-40));
  }
  // Half inputs: the double sum of at most 2^13 of them is exact.
  {
    std::vector<__half> h(n);
    std::vector<double> hd(n);
    for (std::size_t i = 0; i < n; ++i) {
      h[i] = __float2half_rn(
          std::ldexp(float(int(rng.next() % 2001) - 1000), int(rng.next() % 30) - 24));
      hd[i] = double(__half2float(h[i]));
    }
    using A = tcr::short_sum_accumulator<false>;
    const auto p = random_tree<A>(
        n, rng, [&](A& a, std::size_t lo, std::size_t hi) { add_sum_range(a, h, lo, hi); });
    const mp s = tcr::test::exact_sum(hd);
    CHECK(tcr::test::within_bound(p.value, s, s, 0.0, 0.0)); // exact
    // Asum: the magnitudes.
    A a{};
    for (std::size_t i = 0; i < n; ++i) {
      const __half c[1] = {h[i]};
      a.add_magnitudes(c);
    }
    const mp S = tcr::test::exact_abs_sum(hd);
    CHECK(tcr::test::within_bound(a.partial().value, S, S, 0.0, 0.0)); // exact
  }
  // e4m3 inputs, widened exactly.
  {
    std::vector<__nv_fp8_e4m3> e(64);
    double want = 0;
    for (std::size_t i = 0; i < e.size(); ++i) {
      e[i] = __nv_fp8_e4m3(float(int(rng.next() % 33) - 16) / 4.0f);
      want += double(float(e[i]));
    }
    tcr::short_sum_accumulator<false> a{};
    add_sum_range(a, e, 0, e.size());
    CHECK(a.partial().value == want); // small integers / 4: exact either way
  }
}

TEST_CASE("short accumulators: signed zeros, Inf and NaN as plain summation") {
  using A = tcr::short_sum_accumulator<false>;
  const float inf = INFINITY;
  {
    A a{};
    const float z[4] = {-0.0f, -0.0f, -0.0f, -0.0f};
    a.add(z);
    const float r = a.finish<float>(a.partial());
    CHECK(r == 0.0f);
    CHECK(std::signbit(r)); // -0 + -0 = -0
    const float p[1] = {0.0f};
    a.add(p);
    CHECK_FALSE(std::signbit(a.finish<float>(a.partial())));
  }
  {
    A a{};
    const float v[3] = {1.0f, inf, 2.0f};
    a.add(v);
    CHECK(a.finish<float>(a.partial()) == inf);
    const float m[1] = {-inf};
    a.add(m);
    CHECK(std::isnan(a.finish<float>(a.partial())));
  }
  {
    // Finite data near FLT_MAX: no overflow in double; the float result rounds to +inf only
    // where the exact sum does.
    A a{};
    const float big[4] = {3.0e38f, 3.0e38f, -3.0e38f, 1.0f};
    a.add(big);
    CHECK(a.finish<float>(a.partial()) == 3.0e38f);
  }
}

} // namespace
