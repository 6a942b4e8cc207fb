// SPDX-License-Identifier: BSD-3-Clause
// Tests for tcr::DeviceSegmentedReduce with the double machinery and the pair results: double
// inputs into double and tcr::dd, float inputs into double and tcr::df32, per segment against
// the proven bounds (exact references); Nrm2 of segments at the ends of the double range.
#include <doctest/doctest.h>

#include <mpfr.h>
#include <cmath>
#include <cstdint>
#include "reduce/segmented_test_util.hpp"

namespace {

using namespace tcr::test;

// Sum, Asum, Nrm2 and Dot of In into double over the layout, each segment checked.
template <class In>
void check_double_results(const segment_layout& l, std::size_t offset, std::uint64_t seed) {
  INFO("input ", type_name<In>(), ", ", l.count(), " segments, buffer offset ", offset,
       ", seed = ", seed);
  const auto x = random_segments<In>(l, seed);
  const auto y = random_segments<In>(l, seed + 1);
  padded_device<In> dx(x.t, offset), dy(y.t, offset + 1);
  constexpr bool narrow = !std::is_same_v<In, double>;
  for (op o : {op::sum, op::asum, op::nrm2, op::dot}) {
    INFO(op_name(o));
    const auto r = run_segmented<double>(o, dx.get(), dy.get(), l);
    check_segments<double>(o, r, x.d, y.d, l, narrow);
  }
}

} // namespace

TEST_SUITE("gpu") {
  TEST_CASE("every segment length 0..70 and long ones: double results meet the double bound") {
    for (std::int64_t gap : {0, 1}) {
      const segment_layout l = consecutive(sweep_lengths(), gap);
      for (std::size_t offset : {0, 1}) {
        check_double_results<double>(l, offset, 1100 + gap);
        check_double_results<float>(l, offset, 1200 + gap);
      }
    }
  }

  TEST_CASE("dd and df32 results carry the unrounded pair per segment") {
    const segment_layout l = consecutive(sweep_lengths(), 1);
    for (double cond : {1.0, 1e16, 1e32}) {
      const std::uint64_t seed = 1300 + static_cast<std::uint64_t>(std::log10(cond));
      INFO("cond = ", cond, ", seed = ", seed);
      const auto xd = segment_data<double>(
          l, [&](std::size_t n, std::size_t s) { return gen_sum<double>(n, cond, seed + s); });
      const auto xf = segment_data<float>(l, [&](std::size_t n, std::size_t s) {
        const auto v = gen_sum<float>(n, cond, seed + 7 * s);
        return std::vector<double>(v.begin(), v.end());
      });
      padded_device<double> dxd(xd.t, 1);
      padded_device<float> dxf(xf.t, 0);
      const auto rd = run_segmented<tcr::dd>(op::sum, dxd.get(), dxd.get(), l);
      const auto rf = run_segmented<tcr::df32>(op::sum, dxf.get(), dxf.get(), l);
      for (std::size_t s = 0; s < rd.size(); ++s) {
        INFO("segment ", s, ", length ", l.length(s));
        const auto vd = segment_of(xd.d, l, s);
        const auto vf = segment_of(xf.d, l, s);
        CHECK(pair_within_bound(rd[s].hi, rd[s].lo, fast_exact_sum(vd), fast_exact_sum(vd, true),
                                0x1p-104, 0x1p-100));
        CHECK(pair_within_bound(rf[s].hi, rf[s].lo, fast_exact_sum(vf), fast_exact_sum(vf, true),
                                0x1p-47, 0x1p-42));
      }
    }
  }

  TEST_CASE("Nrm2 of double segments near overflow and underflow") {
    // Segment k: values scaled by 2^e_k, e_k from near DBL_MAX down to the subnormals.
    const int exps[] = {1000, 900, 0, -900, -1060};
    std::vector<std::int64_t> lengths;
    for (int k = 0; k < 5; ++k)
      for (std::int64_t n : {1, 33, 5000})
        lengths.push_back(n);
    const segment_layout l = consecutive(lengths, 2);
    const std::uint64_t seed = 1400;
    INFO("seed = ", seed);
    const auto x = segment_data<double>(l, [&](std::size_t n, std::size_t s) {
      auto v = typed_random<double>(n, seed + s, -4, 4).d;
      for (auto& e : v)
        e = std::ldexp(e, exps[s / 3]);
      return v;
    });
    padded_device<double> dx(x.t, 0);
    const auto r = run_segmented<double>(op::nrm2, dx.get(), dx.get(), l);
    check_segments<double>(op::nrm2, r, x.d, x.d, l, false);
  }

  TEST_CASE("double segments, power-law lengths up to 2^20, 2^23 elements (large)") {
    const std::uint64_t seed = 1500;
    INFO("seed = ", seed);
    const segment_layout l = consecutive(power_law_lengths(std::size_t(1) << 23, 1 << 20, seed), 1);
    const auto x = random_segments<double>(l, seed);
    const auto y = random_segments<double>(l, seed + 1);
    padded_device<double> dx(x.t, 0), dy(y.t, 1);
    for (op o : {op::sum, op::dot, op::nrm2}) {
      INFO(op_name(o));
      const auto r = run_segmented<double>(o, dx.get(), dy.get(), l);
      check_segments<double>(o, r, x.d, y.d, l, false);
      CHECK(same_bits(r, run_segmented<double>(o, dx.get(), dy.get(), l)));
    }
  }
}
