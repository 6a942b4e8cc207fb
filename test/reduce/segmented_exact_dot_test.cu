// SPDX-License-Identifier: BSD-3-Clause
// Tests for the exact Dot and Nrm2 of tcr::DeviceSegmentedReduce and tcr::DeviceBatchedReduce
// (Accuracy::correctly_rounded and ::reproducible, exact_dot_sum): every segment's Dot is its
// exact dot product (MPFR) rounded once to nearest even, bit for bit, its Nrm2 one of the two
// neighbours of the exact norm and the bits of tcr::DeviceReduce's exact Nrm2 (and Dot) over the
// same segment; every length 0..70 and the boundaries of the teams, the block tier and the
// chunks, unaligned starts, products over the whole float range, ill-conditioned dots up to
// condition 1e32, 16- and 8-bit operands; IEEE's special values and zero signs per segment; the
// same bits for both modes and for a capped grid.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>
#include <tcr/reduce/batched.cuh>
#include "reduce/exact_check.hpp"
#include "reduce/segmented_test_util.hpp"

namespace {

using namespace tcr::test;
using tcr::test::exact::is_round_to_nearest;
using tcr::test::exact::reproducible;
using tcr::test::exact::rounded;

// The pair (x, y) of segment s of length n: kind by segment, float values.
//   0: exponents over [-149, 127] on both sides (products 2^-298 .. 2^256, most of them never
//      overflowing the sum: signs random);
//   1: subnormals against values near 1 .. 2^100;
//   2: ill-conditioned (GenDot), condition 1e8 .. 1e32;
//   3: moderate values with exact cancellation (x_i y_i = -x_j y_j pairs) and a small rest.
std::pair<std::vector<double>, std::vector<double>> dot_segment(std::size_t n, std::size_t s,
                                                                std::uint64_t seed) {
  rng64 rng(seed * 7919 + s);
  std::vector<double> x(n), y(n);
  const auto f = [](double v) { return static_cast<double>(static_cast<float>(v)); };
  const auto sign = [&] { return rng.coin() ? 1.0 : -1.0; };
  switch (s % 4) {
  case 0:
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = f(std::ldexp(1 + rng.uniform(), int(rng.integer(-149, 127))) * sign());
      y[i] = f(std::ldexp(1 + rng.uniform(), int(rng.integer(-149, 127))) * sign());
    }
    break;
  case 1:
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = f(std::ldexp(double(rng.integer(1, 1 << 23)), -149) * sign());
      y[i] = f(std::ldexp(1 + rng.uniform(), int(rng.integer(0, 100))) * sign());
    }
    break;
  case 2:
    if (n >= 6) {
      const double cond = std::pow(10.0, 8.0 * double(1 + s % 16 / 4));
      const auto g = gen_dot<float>(n, cond, seed * 31 + s);
      for (std::size_t i = 0; i < n; ++i) {
        x[i] = g.first[i];
        y[i] = g.second[i];
      }
      break;
    }
    [[fallthrough]];
  default:
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = f((rng.uniform() - 0.5) * 64);
      y[i] = f(rng.uniform() - 0.5);
      if (i % 2 == 1) { // cancels the previous product exactly
        x[i] = -x[i - 1];
        y[i] = y[i - 1];
      }
    }
  }
  return {x, y};
}

// RN_Out of the exact dot product of one segment (IEEE's specials and zero signs: a product is
// NaN for NaN or Inf * 0, +-inf for an infinite factor; the sum is -0 only when every product is).
template <class Out>
bool dot_ok(Out r, const std::vector<double>& x, const std::vector<double>& y) {
  bool nan = false, pinf = false, ninf = false, all_neg_zero = true;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double p = x[i] * y[i]; // exact for floats; IEEE's special values
    nan = nan || std::isnan(p);
    pinf = pinf || p == std::numeric_limits<double>::infinity();
    ninf = ninf || p == -std::numeric_limits<double>::infinity();
    all_neg_zero = all_neg_zero && p == 0 && std::signbit(p);
  }
  if (x.empty())
    return r == 0 && !std::signbit(r);
  if (nan || (pinf && ninf))
    return std::isnan(r);
  if (pinf || ninf)
    return r == (pinf ? 1 : -1) * std::numeric_limits<Out>::infinity();
  const mp s = fast_exact_dot(x, y);
  if (mpfr_zero_p(s.get()))
    return r == 0 && std::signbit(r) == all_neg_zero;
  return is_round_to_nearest(r, s);
}

// Nrm2: one of the neighbours of the exact norm (computed at 400 bits from the exact sum of
// squares), +0 for an empty segment or a zero norm, +inf / NaN as the squares give them.
bool nrm2_ok(float r, const std::vector<double>& x) {
  bool nan = false, inf = false;
  for (double v : x) {
    nan = nan || std::isnan(v);
    inf = inf || std::isinf(v);
  }
  if (nan)
    return std::isnan(r);
  if (inf)
    return r == std::numeric_limits<float>::infinity();
  const mp ssq = fast_exact_dot(x, x);
  if (mpfr_zero_p(ssq.get()))
    return r == 0 && !std::signbit(r);
  mp n(400);
  mpfr_sqrt(n.get(), ssq.get(), MPFR_RNDN);
  const float down = mpfr_get_flt(n.get(), MPFR_RNDD), up = mpfr_get_flt(n.get(), MPFR_RNDU);
  return r == down || r == up;
}

template <class Out>
void check_dots(const std::vector<Out>& r, const typed_data<float>& x, const typed_data<float>& y,
                const segment_layout& l) {
  REQUIRE(r.size() == l.begin.size());
  int bad = 0;
  for (std::size_t s = 0; s < r.size(); ++s)
    if (!dot_ok(r[s], segment_of(x.d, l, s), segment_of(y.d, l, s)) && bad++ < 5)
      MESSAGE("Dot segment ", s, " [", l.begin[s], ", ", l.end[s], "): ", r[s]);
  CHECK(bad == 0);
}
void check_norms(const std::vector<float>& r, const typed_data<float>& x, const segment_layout& l) {
  REQUIRE(r.size() == l.begin.size());
  int bad = 0;
  for (std::size_t s = 0; s < r.size(); ++s)
    if (!nrm2_ok(r[s], segment_of(x.d, l, s)) && bad++ < 5)
      MESSAGE("Nrm2 segment ", s, " [", l.begin[s], ", ", l.end[s], "): ", r[s]);
  CHECK(bad == 0);
}

// Lengths 0..70, then both sides of the team switches (16 floats a lane), the block tier (4096)
// and the chunks (65536 floats), and a segment of several chunks.
std::vector<std::int64_t> dot_lengths() {
  std::vector<std::int64_t> v;
  for (std::int64_t n = 0; n <= 70; ++n)
    v.push_back(n);
  for (std::int64_t n : {128, 129, 257, 511, 513, 2048, 4095, 4096, 4097, 65536, 65537, 150001})
    v.push_back(n);
  return v;
}

} // namespace

TEST_SUITE("gpu") {
  TEST_CASE("exact segmented Dot / Nrm2: RN of the exact dot, a faithful norm, every length") {
    const segment_layout l = consecutive(dot_lengths(), 3);
    for (std::size_t offset : {0, 1}) {
      const std::uint64_t seed = 70 + offset;
      INFO("buffer offset ", offset, ", seed = ", seed);
      const auto x = segment_data<float>(
          l, [&](std::size_t n, std::size_t s) { return dot_segment(n, s, seed).first; });
      const auto y = segment_data<float>(
          l, [&](std::size_t n, std::size_t s) { return dot_segment(n, s, seed).second; });
      padded_device<float> dx(x.t, offset), dy(y.t, 2 * offset);
      const auto d = run_segmented<float>(op::dot, dx.get(), dy.get(), l, rounded);
      check_dots(d, x, y, l);
      CHECK(same_bits(d, run_segmented<float>(op::dot, dx.get(), dy.get(), l, reproducible)));
      check_dots(run_segmented<double>(op::dot, dx.get(), dy.get(), l, rounded), x, y, l);
      const auto nr = run_segmented<float>(op::nrm2, dx.get(), dx.get(), l, rounded);
      check_norms(nr, x, l);
      // DeviceReduce's exact Dot and Nrm2 over each segment alone: the same bits.
      int differ = 0;
      for (std::size_t s = 0; s < nr.size(); ++s) {
        const std::int64_t n = l.length(s);
        const float rd = run_device<float>(op::dot, dx.get() + l.begin[s], dy.get() + l.begin[s],
                                           n, rounded);
        const float rn = run_device<float>(op::nrm2, dx.get() + l.begin[s],
                                           static_cast<const float*>(nullptr), n, rounded);
        if (std::memcmp(&rd, &d[s], 4) != 0 || std::memcmp(&rn, &nr[s], 4) != 0)
          if (differ++ < 5)
            MESSAGE("segment ", s, " (n = ", n, "): Dot ", d[s], " vs DeviceReduce ", rd,
                    ", Nrm2 ", nr[s], " vs ", rn);
      }
      CHECK(differ == 0);
    }
  }

  TEST_CASE("exact segmented Dot: 16- and 8-bit operands, the fixed-size form, batched pointers") {
    const segment_layout l = consecutive({0, 1, 7, 8, 9, 33, 100, 1000, 4097, 70000}, 1);
    const auto check_type = [&](auto tag, std::uint64_t seed) {
      using In = decltype(tag);
      INFO("operands ", type_name<In>(), " and float, seed = ", seed);
      const auto x = random_segments<In>(l, seed);
      const auto y = random_segments<float>(l, seed + 1);
      padded_device<In> dx(x.t, 1);
      padded_device<float> dy(y.t, 0);
      const auto r = run_segmented<float>(op::dot, dx.get(), dy.get(), l, rounded);
      REQUIRE(r.size() == l.begin.size());
      int bad = 0;
      for (std::size_t s = 0; s < r.size(); ++s)
        bad += !dot_ok(r[s], segment_of(x.d, l, s), segment_of(y.d, l, s));
      CHECK(bad == 0);
    };
    check_type(__half{}, 81);
    check_type(__nv_bfloat16{}, 82);
    check_type(__nv_fp8_e4m3{}, 83);
    for (int size : {1, 16, 17, 100, 4096, 5000}) {
      INFO("fixed size ", size);
      const std::int64_t num = size > 1000 ? 24 : 400;
      const segment_layout fl = consecutive(std::vector<std::int64_t>(std::size_t(num), size), 0);
      const std::uint64_t seed = 90 + std::uint64_t(size);
      const auto x = segment_data<float>(
          fl, [&](std::size_t n, std::size_t s) { return dot_segment(n, s, seed).first; });
      const auto y = segment_data<float>(
          fl, [&](std::size_t n, std::size_t s) { return dot_segment(n, s, seed).second; });
      device_buffer<float> dx(x.t), dy(y.t);
      check_dots(run_segmented_fixed<float>(op::dot, dx.get(), dy.get(), num, size, rounded), x, y,
                 fl);
      check_norms(run_segmented_fixed<float>(op::nrm2, dx.get(), dx.get(), num, size, rounded), x,
                  fl);
    }
    // Batched Dot over pointer arrays with a length each, and strided Nrm2 (incx = 2).
    const segment_layout bl = consecutive({5, 0, 300, 4100, 17, 66000}, 2);
    const auto x = segment_data<float>(
        bl, [&](std::size_t n, std::size_t s) { return dot_segment(n, s, 95).first; });
    const auto y = segment_data<float>(
        bl, [&](std::size_t n, std::size_t s) { return dot_segment(n, s, 95).second; });
    device_buffer<float> dx(x.t), dy(y.t);
    std::vector<const float*> px, py;
    std::vector<std::int64_t> lens;
    for (std::size_t s = 0; s < bl.begin.size(); ++s) {
      px.push_back(dx.get() + bl.begin[s]);
      py.push_back(dy.get() + bl.begin[s]);
      lens.push_back(bl.length(s));
    }
    device_buffer<const float*> dpx(px), dpy(py);
    device_buffer<std::int64_t> dlens(lens);
    device_buffer<float> out(px.size());
    const auto batch = static_cast<std::int64_t>(px.size());
    std::size_t bytes = 0;
    TCR_CHECK_CUDA(tcr::DeviceBatchedReduce::Dot(nullptr, bytes, dpx.get(), dpy.get(), out.get(),
                                                 batch, dlens.get(), 0, rounded));
    temp_storage temp(bytes);
    TCR_CHECK_CUDA(tcr::DeviceBatchedReduce::Dot(temp.get(), bytes, dpx.get(), dpy.get(),
                                                 out.get(), batch, dlens.get(), 0, rounded));
    TCR_CHECK_CUDA(cudaDeviceSynchronize());
    check_dots(out.download(), x, y, bl);
    {
      const std::int64_t n = 3000, count = 5, stride = 2 * n + 1;
      std::vector<double> v(std::size_t(stride * count));
      rng64 rng(96);
      for (auto& e : v)
        e = static_cast<float>(std::ldexp(rng.uniform() - 0.5, int(rng.integer(-140, 60))));
      const typed_data<float> sx(v);
      device_buffer<float> dsx(sx.t);
      device_buffer<float> nout(static_cast<std::size_t>(count));
      std::size_t nb = 0;
      TCR_CHECK_CUDA(tcr::DeviceBatchedReduce::Nrm2(nullptr, nb, dsx.get(), 2, stride, nout.get(),
                                                    count, n, 0, rounded));
      temp_storage nt(nb);
      TCR_CHECK_CUDA(tcr::DeviceBatchedReduce::Nrm2(nt.get(), nb, dsx.get(), 2, stride, nout.get(),
                                                    count, n, 0, rounded));
      TCR_CHECK_CUDA(cudaDeviceSynchronize());
      const auto r = nout.download();
      for (std::int64_t i = 0; i < count; ++i) {
        std::vector<double> e;
        for (std::int64_t j = 0; j < n; ++j)
          e.push_back(sx.d[std::size_t(i * stride + 2 * j)]);
        CHECK(nrm2_ok(r[std::size_t(i)], e));
      }
    }
  }

  TEST_CASE("exact segmented Dot / Nrm2: special values and zero signs per segment, capped grid") {
    const double inf = std::numeric_limits<double>::infinity();
    const double nan = std::nan("");
    const std::vector<std::pair<std::vector<double>, std::vector<double>>> segs = {
        {{}, {}},                                     // +0
        {{-0.0, 3.0}, {5.0, -0.0}},                   // -0: both products -0
        {{-0.0}, {-5.0}},                             // +0
        {{1.5, 1.5}, {2.0, -2.0}},                    // +0 by cancellation
        {{inf, 1.0}, {0.0, 1.0}},                     // NaN: Inf * 0
        {{1.0, inf}, {1.0, -2.0}},                    // -inf
        {{inf, inf}, {1.0, -1.0}},                    // NaN: both infinities
        {{nan, 1.0}, {1.0, 1.0}},                     // NaN
        {{0x1p127, 0x1p127}, {0x1p127, -0x1p127}},    // 0: products beyond float cancel
        {{0x1p127, 0x1p-149}, {0x1p127, 0x1p-149}},   // +inf in float (2^254 + 2^-298)
        {{1.0, 0x1p-12}, {1.0, 0x1p-12}},             // a tie: 1
        {{1.0, 0x1p-12, 0x1p-75}, {1.0, 0x1p-12, 0x1p-75}}, // above the tie: 1 + 2^-23
    };
    std::vector<std::int64_t> lengths;
    std::vector<double> fx, fy;
    for (const auto& sg : segs) {
      lengths.push_back(static_cast<std::int64_t>(sg.first.size()));
      fx.insert(fx.end(), sg.first.begin(), sg.first.end());
      fy.insert(fy.end(), sg.second.begin(), sg.second.end());
    }
    const segment_layout l = consecutive(lengths, 0);
    const typed_data<float> x(fx), y(fy);
    device_buffer<float> dx(x.t), dy(y.t);
    const auto r = run_segmented<float>(op::dot, dx.get(), dy.get(), l, rounded);
    check_dots(r, x, y, l);
    CHECK(std::signbit(r[1]));
    CHECK(!std::signbit(r[2]));
    CHECK(r[5] == -std::numeric_limits<float>::infinity());
    CHECK(r[8] == 0.0f);
    CHECK(r[10] == 1.0f);
    CHECK(r[11] == 1.0f + 0x1p-23f);
    const auto d = run_segmented<double>(op::dot, dx.get(), dy.get(), l, rounded);
    CHECK(d[9] == 0x1p254);
    check_norms(run_segmented<float>(op::nrm2, dx.get(), dx.get(), l, rounded), x, l);
    // The same bits with the grid capped at 1 and 3 blocks (another GPU's grid).
    const segment_layout wl = consecutive(dot_lengths(), 1);
    const auto wx = segment_data<float>(
        wl, [&](std::size_t n, std::size_t s) { return dot_segment(n, s, 99).first; });
    const auto wy = segment_data<float>(
        wl, [&](std::size_t n, std::size_t s) { return dot_segment(n, s, 99).second; });
    device_buffer<float> dwx(wx.t), dwy(wy.t);
    const auto full = run_segmented<float>(op::dot, dwx.get(), dwy.get(), wl, reproducible);
    const auto full_n = run_segmented<float>(op::nrm2, dwx.get(), dwx.get(), wl, reproducible);
    for (int grid : {1, 3}) {
      tcr::detail::device::grid_limit_for_tests = grid;
      const auto capped = run_segmented<float>(op::dot, dwx.get(), dwy.get(), wl, reproducible);
      const auto capped_n = run_segmented<float>(op::nrm2, dwx.get(), dwx.get(), wl, reproducible);
      tcr::detail::device::grid_limit_for_tests = 0;
      CHECK(same_bits(full, capped));
      CHECK(same_bits(full_n, capped_n));
    }
  }
}
