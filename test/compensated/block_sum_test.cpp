// SPDX-License-Identifier: BSD-3-Clause
// Tests for compensated/block_sum.cuh on the host: double_carried<float> sums and dots against
// MPFR under the bound u|s| + (1 + u) gamma_h(2^-53) S of its header (chains and random merge
// trees, condition 1e0 .. 1e32), the exact e4m3 chunk sums on worst-case data, special values
// and the sign of zero.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>
#include <tcr/compensated/block_sum.cuh>
#include "support/gen.hpp"
#include "support/merge_tree.hpp"
#include "support/mpfr_ref.hpp"

namespace {

using tcr::double_carried;

constexpr double u = 0x1p-24;
double gamma_d(double h) {
  const double ud = std::ldexp(1.0, -53);
  return h * ud / (1 - h * ud);
}

// |res - s| <= u|s| + (1 + u) gamma_h(2^-53) S, inflated by 2^-40 relative for the evaluation.
void check_carried(float res, const std::vector<double>& x, const std::vector<double>& y,
                   double h) {
  std::vector<double> ax, ay;
  for (double v : x)
    ax.push_back(std::fabs(v));
  for (double v : y)
    ay.push_back(std::fabs(v));
  const tcr::test::mp s = y.empty() ? tcr::test::exact_sum(x) : tcr::test::exact_dot(x, y);
  const tcr::test::mp Sm = y.empty() ? tcr::test::exact_sum(ax) : tcr::test::exact_dot(ax, ay);
  const double S = mpfr_get_d(Sm.get(), MPFR_RNDU);
  const double s_abs = std::fabs(mpfr_get_d(s.get(), MPFR_RNDA));
  const double allowed = (u * s_abs + (1 + u) * gamma_d(h) * S) * (1 + 0x1p-40);
  const double err = tcr::test::abs_error(double(res), s);
  INFO("res = ", res, ", s = ", s.to_double(), ", S = ", S, ", err = ", err,
       ", allowed = ", allowed);
  CHECK(err <= allowed);
  CHECK(allowed <= u * s_abs * (1 + 0x1p-40) + 0x1p-40 * S); // the header's 2^-40 S for h <= 4096
}

} // namespace

TEST_CASE("double_carried<float>: chains and random merge trees, condition 1e0 .. 1e32") {
  for (double cond : {1.0, 1e4, 1e8, 1e16, 1e32}) {
    const std::uint64_t seed = 61000 + std::uint64_t(std::log10(cond));
    INFO("seed = ", seed, ", cond = ", cond);
    const std::size_t n = 2000;
    const std::vector<float> xf = tcr::test::gen_sum<float>(n, cond, seed);
    const std::vector<double> x(xf.begin(), xf.end());
    double_carried<float> chain;
    for (float v : xf)
      chain.add(v);
    check_carried(chain.result(), x, {}, double(n));
    // parts of 16 items, merged in a random tree (height: 16 + the merges)
    std::vector<double_carried<float>> parts;
    std::vector<double> heights;
    for (std::size_t i = 0; i < n; i += 16) {
      double_carried<float> p;
      for (std::size_t j = i; j < i + 16 && j < n; ++j)
        p.add(xf[j]);
      parts.push_back(p);
      heights.push_back(16);
    }
    tcr::test::rng64 rng(seed);
    const auto [tree, h] = tcr::test::random_merge(parts, heights, rng, 1.0);
    check_carried(tree.result(), x, {}, h);
    // dot: products exact in double
    const auto [xd, yd] = tcr::test::gen_dot<float>(n, cond, seed + 1);
    double_carried<float> dot;
    for (std::size_t i = 0; i < n; ++i)
      dot.add(xd[i], yd[i]);
    check_carried(dot.result(), std::vector<double>(xd.begin(), xd.end()),
                  std::vector<double>(yd.begin(), yd.end()), double(n));
  }
}

TEST_CASE("double_carried<float>: 16- and 8-bit inputs, the exact e4m3 chunks") {
  // 64 e4m3 items of 448 (the largest) and the smallest subnormal: exact in the float chunk
  __nv_fp8_e4m3 worst[130];
  std::vector<double> x;
  for (int i = 0; i < 130; ++i) {
    worst[i] = __nv_fp8_e4m3(i % 2 ? 448.f : 0x1p-9f);
    x.push_back(double(float(worst[i])));
  }
  double_carried<float> a;
  a.add(worst);
  double exact = 0;
  for (double v : x)
    exact += v; // exact: multiples of 2^-9 below 2^16
  CHECK(a.sum == exact);
  // __half and bf16 through the one-by-one path
  // (cancelling pairs inside f16's range, as the block tests use)
  const std::vector<float> f = tcr::test::gen_cancelling_pairs<float>(512, 61100, -14, 10);
  double_carried<float> h, b;
  std::vector<double> xh, xb;
  for (float v : f) {
    const __half vh(v);
    const __nv_bfloat16 vb(v);
    h.add(vh);
    b.add(vb);
    xh.push_back(double(float(vh)));
    xb.push_back(double(float(vb)));
  }
  check_carried(h.result(), xh, {}, 512);
  check_carried(b.result(), xb, {}, 512);
}

TEST_CASE("double_carried<float>: Inf, NaN, overflow and signed zeros") {
  const float inf = std::numeric_limits<float>::infinity();
  const float big = std::numeric_limits<float>::max();
  double_carried<float> a, b, c, d, z, m;
  a.add(1.f);
  a.add(inf);
  CHECK(a.result() == inf);
  b.add(inf);
  b.add(-inf);
  CHECK(std::isnan(b.result()));
  c.add(std::numeric_limits<float>::quiet_NaN());
  c.add(1.f);
  CHECK(std::isnan(c.result()));
  d.add(big);
  d.add(big); // no overflow in the carry; the float result rounds to +Inf, never NaN
  CHECK(d.result() == inf);
  d.add(-big);
  CHECK(d.result() == big);
  CHECK(std::signbit(z.result())); // the empty sum is -0
  z.add(-0.f);
  z.add(-0.f);
  CHECK((z.result() == 0.f && std::signbit(z.result())));
  z.merge(double_carried<float>{});
  CHECK(std::signbit(z.result()));
  m.add(-0.f);
  m.add(0.f);
  CHECK((m.result() == 0.f && !std::signbit(m.result())));
}
