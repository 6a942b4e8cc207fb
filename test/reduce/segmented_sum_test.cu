// SPDX-License-Identifier: BSD-3-Clause
// Tests for tcr::DeviceSegmentedReduce with float results: every segment length 0..70 and long
// ones in one call, ill-conditioned and power-law mixed segments, each segment checked against
// its proven bound (exact references); the same bits from the offsets and fixed-size forms and
// from two calls; NaN and Inf confined to their own segment.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include "reduce/segmented_test_util.hpp"

namespace {

using namespace tcr::test;

// Sum, Asum, Nrm2 and Dot (y: another random array) of In into float over the layout, at
// element offset `offset` of the device buffers, each segment checked.
template <class In>
void check_all_ops(const segment_layout& l, std::size_t offset, std::uint64_t seed) {
  INFO("input ", type_name<In>(), ", ", l.count(), " segments, buffer offset ", offset,
       ", seed = ", seed);
  const auto x = random_segments<In>(l, seed);
  const auto y = random_segments<In>(l, seed + 1);
  padded_device<In> dx(x.t, offset), dy(y.t, offset + 3);
  for (op o : {op::sum, op::asum, op::nrm2, op::dot}) {
    INFO(op_name(o));
    const auto r = run_segmented<float>(o, dx.get(), dy.get(), l);
    check_segments<float>(o, r, x.d, y.d, l, true);
  }
}

} // namespace

TEST_SUITE("gpu") {
  TEST_CASE("every segment length 0..70 and long ones in one call meet the float bound") {
    for (std::int64_t gap : {0, 3}) {
      const segment_layout l = consecutive(sweep_lengths(), gap);
      for (std::size_t offset : {0, 1}) {
        check_all_ops<float>(l, offset, 100 + gap);
        check_all_ops<__half>(l, offset, 200 + gap);
        check_all_ops<__nv_bfloat16>(l, offset, 300 + gap);
        check_all_ops<__nv_fp8_e4m3>(l, offset, 400 + gap);
      }
    }
  }

  TEST_CASE("ill-conditioned segments (GenSum, GenDot per segment) meet the float bound") {
    std::vector<std::int64_t> lengths;
    for (std::int64_t n : {4, 17, 64, 100, 1000, 4096, 4097, 20000})
      for (int k = 0; k < 3; ++k)
        lengths.push_back(n);
    const segment_layout l = consecutive(lengths, 1);
    for (double cond : {1e8, 1e16, 1e32}) {
      const std::uint64_t seed = 500 + static_cast<std::uint64_t>(std::log10(cond));
      INFO("cond = ", cond, ", seed = ", seed);
      const auto x = segment_data<float>(l, [&](std::size_t n, std::size_t s) {
        const auto v = gen_sum<float>(n, cond, seed * 7919 + s);
        return std::vector<double>(v.begin(), v.end());
      });
      std::vector<std::vector<float>> ys(l.begin.size());
      const auto xd = segment_data<float>(l, [&](std::size_t n, std::size_t s) {
        auto [a, b] = gen_dot<float>(n, cond, seed * 104729 + s);
        ys[s] = b;
        return std::vector<double>(a.begin(), a.end());
      });
      const auto yd = segment_data<float>(l, [&](std::size_t, std::size_t s) {
        return std::vector<double>(ys[s].begin(), ys[s].end());
      });
      padded_device<float> dx(x.t, 0), dxd(xd.t, 0), dyd(yd.t, 2);
      check_segments<float>(op::sum, run_segmented<float>(op::sum, dx.get(), dx.get(), l), x.d, x.d,
                            l, true);
      check_segments<float>(op::dot, run_segmented<float>(op::dot, dxd.get(), dyd.get(), l), xd.d,
                            yd.d, l, true);
    }
  }

  TEST_CASE("power-law mixed lengths in one call: bound per segment, same bits twice") {
    const std::uint64_t seed = 600;
    INFO("seed = ", seed);
    const segment_layout l = consecutive(power_law_lengths(std::size_t(1) << 20, 1 << 17, seed));
    const auto x = random_segments<float>(l, seed);
    const auto y = random_segments<__half>(l, seed + 1);
    padded_device<float> dx(x.t, 0);
    padded_device<__half> dy(y.t, 0);
    for (op o : {op::sum, op::dot, op::nrm2}) {
      INFO(op_name(o));
      const auto r = run_segmented<float>(o, dx.get(), dy.get(), l);
      check_segments<float>(o, r, x.d, y.d, l, true);
      CHECK(same_bits(r, run_segmented<float>(o, dx.get(), dy.get(), l)));
    }
  }

  TEST_CASE("the offsets and the fixed-size forms give the same bits") {
    const std::uint64_t seed = 700;
    INFO("seed = ", seed);
    for (int size : {0, 1, 7, 32, 33, 100, 4096, 4097, 9000}) {
      const std::int64_t num = size == 0 ? 5 : std::max<std::int64_t>(3, 200000 / size);
      INFO("segment_size ", size, ", ", num, " segments");
      const segment_layout l = consecutive(std::vector<std::int64_t>(num, size));
      const auto x = random_segments<float>(l, seed + size);
      const auto y = random_segments<__nv_bfloat16>(l, seed + size + 1);
      for (std::size_t offset : {0, 1}) {
        padded_device<float> dx(x.t, offset);
        padded_device<__nv_bfloat16> dy(y.t, offset);
        for (op o : {op::sum, op::asum, op::dot, op::nrm2}) {
          INFO(op_name(o), ", offset ", offset);
          const auto a = run_segmented<float>(o, dx.get(), dy.get(), l);
          const auto b = run_segmented_fixed<float>(o, dx.get(), dy.get(), num, size);
          CHECK(same_bits(a, b));
          check_segments<float>(o, b, x.d, y.d, l, true);
        }
      }
    }
  }

  TEST_CASE("the same bits whatever the grid (capped at 1, 3 and 37 blocks)") {
    // A grid of one block makes every warp of the fixed-size kernel run its tile pipeline over
    // many tiles, and every block of the offsets kernel read ahead over many groups.
    const std::uint64_t seed = 900;
    INFO("seed = ", seed);
    for (int size : {8, 16, 32, 100, 512, 4096, 5000}) {
      const std::int64_t num = std::max<std::int64_t>(3, 100000 / size);
      INFO("segment_size ", size, ", ", num, " segments");
      const segment_layout l = consecutive(std::vector<std::int64_t>(num, size));
      const auto x = random_segments<float>(l, seed + size);
      const auto y = random_segments<__nv_bfloat16>(l, seed + size + 1);
      padded_device<float> dx(x.t, 1); // unaligned: heads and tails of single elements too
      padded_device<__nv_bfloat16> dy(y.t, 1);
      for (op o : {op::sum, op::dot, op::nrm2}) {
        INFO(op_name(o));
        const auto a = run_segmented<float>(o, dx.get(), dy.get(), l);
        const auto af = run_segmented_fixed<float>(o, dx.get(), dy.get(), num, size);
        check_segments<float>(o, a, x.d, y.d, l, true);
        for (int cap : {1, 3, 37}) {
          INFO("grid capped at ", cap);
          tcr::detail::device::grid_limit_for_tests = cap;
          const auto b = run_segmented<float>(o, dx.get(), dy.get(), l);
          const auto bf = run_segmented_fixed<float>(o, dx.get(), dy.get(), num, size);
          tcr::detail::device::grid_limit_for_tests = 0;
          CHECK(same_bits(a, b));
          CHECK(same_bits(af, bf));
        }
      }
    }
  }
  TEST_CASE("many block-tier segments per block: the block's list fills and drains, same bits") {
    // Blocks collect their tiles' segments of more than 4096 elements in a list of 256 and take
    // them when a warp finds no room: with the grid capped at 1 block, 600 (of 2100) and 2463 (of
    // 20000) such segments among short ones pass through the list in several rounds, tiles
    // waiting for room mid-way (warp tiles of 1 segment for 2100 segments, of 2 for 20000: lanes
    // reserving together); the bits must match the uncapped grid's and the bound must hold.
    const std::uint64_t seed = 1000;
    for (int layout = 0; layout < 2; ++layout) {
      std::vector<std::int64_t> lengths;
      const int num = layout == 0 ? 2100 : 20000, every = layout == 0 ? 3 : 8;
      for (int i = 0; i < num - 300; ++i)
        lengths.push_back(i % every != 2 ? 1 + (i * 7) % 40 : 4097 + (i * 37) % 500);
      for (int i = 0; i < 300; ++i) // whole tiles of short segments after the long ones
        lengths.push_back(1 + i % 20);
      const segment_layout l = consecutive(lengths, 1);
      INFO("seed = ", seed + layout, ", ", num, " segments, per warp ",
           tcr::detail::segmented::segments_per_warp(num));
      const auto x = random_segments<float>(l, seed + layout);
      const auto y = random_segments<float>(l, seed + layout + 10);
      padded_device<float> dx(x.t, 0), dy(y.t, 1);
      for (op o : {op::sum, op::dot}) {
        INFO(op_name(o));
        const auto a = run_segmented<float>(o, dx.get(), dy.get(), l);
        check_segments<float>(o, a, x.d, y.d, l, true);
        for (int cap : {1, 2, 5}) {
          INFO("grid capped at ", cap);
          tcr::detail::device::grid_limit_for_tests = cap;
          const auto b = run_segmented<float>(o, dx.get(), dy.get(), l);
          tcr::detail::device::grid_limit_for_tests = 0;
          CHECK(same_bits(a, b));
        }
      }
    }
  }

  TEST_CASE("a segment's bits do not depend on the other segments") {
    // The same 5000 + 33 + 70000 elements once as a batch of their own and once among others.
    const std::uint64_t seed = 800;
    INFO("seed = ", seed);
    const auto base = typed_random<float>(75033, seed);
    const segment_layout alone = consecutive({5000, 33, 70000});
    device_buffer<float> d(base.t);
    const auto r1 = run_segmented<float>(op::sum, d.get(), d.get(), alone);
    segment_layout mixed;
    mixed.begin = {0, 7, 5000, 100, 5033, 0};
    mixed.end = {0, 5007, 5033, 4196, 75033, 75033};
    mixed.total = 75033;
    const auto r2 = run_segmented<float>(op::sum, d.get(), d.get(), mixed);
    CHECK(std::memcmp(&r1[1], &r2[2], sizeof(float)) == 0);
    CHECK(std::memcmp(&r1[2], &r2[4], sizeof(float)) == 0);
    check_segments<float>(op::sum, r2, base.d, base.d, mixed, true);
  }

  TEST_CASE("NaN and Inf stay in their own segment") {
    const segment_layout l = consecutive({10, 10, 10, 5000, 5000, 5000, 40});
    std::vector<double> v(l.total, 1.0);
    const double inf = std::numeric_limits<double>::infinity();
    v[static_cast<std::size_t>(l.begin[1]) + 3] = std::nan("");
    v[static_cast<std::size_t>(l.begin[4]) + 4000] = inf;
    v[static_cast<std::size_t>(l.begin[6])] = inf;
    v[static_cast<std::size_t>(l.begin[6]) + 1] = -inf;
    const typed_data<float> x(v);
    device_buffer<float> d(x.t);
    const auto r = run_segmented<float>(op::sum, d.get(), d.get(), l);
    CHECK(r[0] == 10.0f);
    CHECK(std::isnan(r[1]));
    CHECK(r[2] == 10.0f);
    CHECK(r[3] == 5000.0f);
    CHECK(r[4] == std::numeric_limits<float>::infinity());
    CHECK(r[5] == 5000.0f);
    CHECK(std::isnan(r[6]));
  }

  TEST_CASE("power-law lengths up to 2^20, 2^24 elements (large)") {
    const std::uint64_t seed = 900;
    INFO("seed = ", seed);
    const segment_layout l = consecutive(power_law_lengths(std::size_t(1) << 24, 1 << 20, seed), 1);
    const auto x = random_segments<float>(l, seed);
    const auto y = random_segments<float>(l, seed + 1);
    padded_device<float> dx(x.t, 1), dy(y.t, 0);
    for (op o : {op::sum, op::asum, op::dot, op::nrm2}) {
      INFO(op_name(o));
      const auto r = run_segmented<float>(o, dx.get(), dy.get(), l);
      check_segments<float>(o, r, x.d, y.d, l, true);
      CHECK(same_bits(r, run_segmented<float>(o, dx.get(), dy.get(), l)));
    }
  }
}
