// SPDX-License-Identifier: BSD-3-Clause
// Tests for tcr::DeviceSegmentedReduce and tcr::DeviceBatchedReduce in Accuracy::correctly_rounded
// and Accuracy::reproducible (Sum, Asum of the float-range types): every segment's result is the
// exact sum of its elements (MPFR) rounded once to nearest even, bit for bit, over every length
// 0..70 and the boundaries of the teams, the block tier and the chunks, unaligned starts,
// ill-conditioned segments up to condition 1e32, values of the whole float range (subnormals,
// near-overflow sums); the signs of zero sums; NaN and Inf in their own segments; the same bits
// for a capped grid; the unsupported cases (Nrm2 into df32 / dd, Engine::tensor_core) answer
// cudaErrorNotSupported after the argument checks. Dot and Nrm2: segmented_exact_dot_test.cu;
// double operands: segmented_exact_f64_test.cu.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>
#include <tcr/reduce/batched.cuh>
#include "reduce/segmented_test_util.hpp"
#include "support/fake_address.hpp"
#include "support/mpfr_ref.hpp"

namespace {

using namespace tcr::test;
namespace seg = tcr::detail::segmented;

const tcr::ReduceOptions correctly_rounded{tcr::Accuracy::correctly_rounded};
const tcr::ReduceOptions reproducible{tcr::Accuracy::reproducible};

tcr::ReduceOptions tc_of(tcr::ReduceOptions o) {
  o.engine = tcr::Engine::tensor_core;
  return o;
}

// RN_Out of the exact sum of v (|v_i| for Asum) by MPFR; the zero sums' sign as IEEE addition
// gives it (-0 only when every term is -0; +0 for no terms, as DeviceReduce's empty result).
template <class Out>
Out rounded_exact(std::vector<double> v, bool absolute) {
  if (absolute)
    for (double& x : v)
      x = std::fabs(x);
  if (v.empty())
    return Out(0);
  bool all_neg_zero = true, nan = false, pinf = false, ninf = false;
  for (double x : v) {
    all_neg_zero = all_neg_zero && x == 0 && std::signbit(x);
    nan = nan || std::isnan(x);
    pinf = pinf || x == std::numeric_limits<double>::infinity();
    ninf = ninf || x == -std::numeric_limits<double>::infinity();
  }
  if (nan || (pinf && ninf))
    return std::numeric_limits<Out>::quiet_NaN();
  if (pinf || ninf)
    return pinf ? std::numeric_limits<Out>::infinity() : -std::numeric_limits<Out>::infinity();
  const mp s = exact_sum(v);
  if (mpfr_zero_p(s.get()))
    return all_neg_zero ? -Out(0) : Out(0);
  if constexpr (std::is_same_v<Out, float>)
    return s.to_float();
  else
    return s.to_double();
}

// Every segment's result equals rounded_exact's bits (NaN: any NaN).
template <class Out>
void check_rounded(const std::vector<Out>& r, const std::vector<double>& x, const segment_layout& l,
                   bool absolute) {
  REQUIRE(r.size() == l.begin.size());
  int bad = 0;
  for (std::size_t s = 0; s < r.size(); ++s) {
    const Out want = rounded_exact<Out>(segment_of(x, l, s), absolute);
    const bool ok =
        std::isnan(want) ? std::isnan(r[s]) : std::memcmp(&want, &r[s], sizeof(Out)) == 0;
    if (!ok && bad++ < 5)
      MESSAGE("segment ", s, " [", l.begin[s], ", ", l.end[s], "): result ", r[s], ", RN(exact) ",
              want);
  }
  CHECK(bad == 0);
}

// Lengths 0..70, then both sides of the team switches (16 floats a lane: 16 << t), the block tier
// (4096) and the chunks (65536 floats), and a few segments of several chunks.
std::vector<std::int64_t> exact_lengths() {
  std::vector<std::int64_t> v;
  for (std::int64_t n = 0; n <= 70; ++n)
    v.push_back(n);
  for (std::int64_t n : {128, 129, 256, 257, 511, 512, 513, 2047, 2048, 2049, 4095, 4096, 4097,
                         65535, 65536, 65537, 200003})
    v.push_back(n);
  return v;
}

// Values of the whole float range per segment: kind by segment, magnitudes from subnormals to
// near 2^127 (with cancellation so that most sums stay finite), GenSum data up to condition 1e32.
std::vector<double> wide_segment(std::size_t n, std::size_t s, std::uint64_t seed) {
  rng64 rng(seed * 7919 + s);
  std::vector<double> v(n);
  switch (s % 5) {
  case 0: // random magnitudes over the whole float range, both signs
    for (auto& x : v)
      x = static_cast<double>(static_cast<float>(
          std::ldexp(1 + rng.uniform(), int(rng.integer(-149, 126))) * (rng.coin() ? 1 : -1)));
    break;
  case 1: // subnormals and small normals
    for (auto& x : v)
      x = static_cast<double>(static_cast<float>(std::ldexp(double(rng.integer(1, 1 << 24)), -149) *
                                                 (rng.coin() ? 1 : -1)));
    break;
  case 2: { // cancelling pairs near the top of the range plus small terms
    for (std::size_t i = 0; i < n; ++i) {
      const double big = static_cast<float>(std::ldexp(1 + rng.uniform(), 126));
      v[i] = (i % 3 == 2) ? static_cast<float>(rng.uniform() - 0.5) : (i % 3 == 0 ? big : -big);
    }
    break;
  }
  default: { // ill-conditioned (GenSum), condition 1e8 .. 1e32
    if (n >= 4) {
      const double cond = std::pow(10.0, 8.0 * double(1 + s % 4));
      const auto g = gen_sum<float>(n, cond, seed * 31 + s);
      for (std::size_t i = 0; i < n; ++i)
        v[i] = g[i];
    } else {
      for (auto& x : v)
        x = static_cast<float>(rng.uniform() - 0.5);
    }
  }
  }
  return v;
}

template <class Out>
void check_offsets(const segment_layout& l, std::size_t offset, std::uint64_t seed) {
  INFO("result ", type_name<Out>(), ", ", l.count(), " segments, buffer offset ", offset,
       ", seed = ", seed);
  const auto x = segment_data<float>(
      l, [&](std::size_t n, std::size_t s) { return wide_segment(n, s, seed); });
  padded_device<float> dx(x.t, offset);
  for (op o : {op::sum, op::asum}) {
    INFO(op_name(o));
    const auto r = run_segmented<Out>(o, dx.get(), dx.get(), l, correctly_rounded);
    check_rounded<Out>(r, x.d, l, o == op::asum);
    CHECK(same_bits(r, run_segmented<Out>(o, dx.get(), dx.get(), l, reproducible)));
  }
}

} // namespace

TEST_SUITE("gpu") {
  TEST_CASE("exact segmented Sum / Asum: RN of the exact sum per segment, every length") {
    const segment_layout l = consecutive(exact_lengths(), 3);
    for (std::size_t offset : {0, 1, 3})
      check_offsets<float>(l, offset, 10 + offset);
    check_offsets<double>(l, 1, 20);
  }

  TEST_CASE("exact segmented Sum of 16-bit and 8-bit inputs, fixed-size form, batched pointers") {
    // 16-bit and 8-bit inputs: their own random values (the per-segment generator below).
    std::vector<std::int64_t> lengths;
    for (std::int64_t n : {0, 1, 7, 8, 9, 33, 100, 1000, 4097, 70000})
      lengths.push_back(n);
    const segment_layout l = consecutive(lengths, 1);
    const auto check_type = [&](auto tag, std::uint64_t seed) {
      using In = decltype(tag);
      INFO("input ", type_name<In>(), ", seed = ", seed);
      const auto x = random_segments<In>(l, seed);
      padded_device<In> dx(x.t, 1);
      const auto r = run_segmented<float>(op::sum, dx.get(), dx.get(), l, correctly_rounded);
      check_rounded<float>(r, x.d, l, false);
    };
    check_type(__half{}, 31);
    check_type(__nv_bfloat16{}, 32);
    check_type(__nv_fp8_e4m3{}, 33);
    check_type(__nv_fp8_e5m2{}, 34);
    // Fixed sizes: the fixed-size kernel (up to 4096) and the block tier.
    for (int size : {1, 16, 17, 100, 4096, 5000}) {
      INFO("fixed size ", size);
      const std::int64_t num = size > 1000 ? 40 : 700;
      std::vector<std::int64_t> len(static_cast<std::size_t>(num), size);
      const segment_layout fl = consecutive(len, 0);
      const auto x = segment_data<float>(fl, [&](std::size_t n, std::size_t s) {
        return wide_segment(n, s, 40 + static_cast<std::uint64_t>(size));
      });
      padded_device<float> dx(x.t, 0);
      const auto r =
          run_segmented_fixed<float>(op::sum, dx.get(), dx.get(), num, size, correctly_rounded);
      check_rounded<float>(r, x.d, fl, false);
    }
    // Batched Sum over pointer arrays with a length each: the same path.
    {
      const segment_layout bl = consecutive({5, 0, 300, 4100, 17, 66000}, 2);
      const auto x = segment_data<float>(
          bl, [&](std::size_t n, std::size_t s) { return wide_segment(n, s, 50); });
      device_buffer<float> dx(x.t);
      std::vector<const float*> ptrs;
      for (std::size_t s = 0; s < bl.begin.size(); ++s)
        ptrs.push_back(dx.get() + bl.begin[s]);
      std::vector<std::int64_t> lens;
      for (std::size_t s = 0; s < bl.begin.size(); ++s)
        lens.push_back(bl.length(s));
      device_buffer<const float*> dptrs(ptrs);
      device_buffer<std::int64_t> dlens(lens);
      device_buffer<float> out(ptrs.size());
      std::size_t bytes = 0;
      TCR_CHECK_CUDA(tcr::DeviceBatchedReduce::Sum(nullptr, bytes, dptrs.get(), out.get(),
                                                   std::int64_t(ptrs.size()), dlens.get(), 0,
                                                   correctly_rounded));
      temp_storage temp(bytes);
      TCR_CHECK_CUDA(tcr::DeviceBatchedReduce::Sum(temp.get(), bytes, dptrs.get(), out.get(),
                                                   std::int64_t(ptrs.size()), dlens.get(), 0,
                                                   correctly_rounded));
      TCR_CHECK_CUDA(cudaDeviceSynchronize());
      check_rounded<float>(out.download(), x.d, bl, false);
    }
  }

  TEST_CASE("exact segmented Sum: zero signs, NaN and Inf in their own segments, a capped grid") {
    const flat_segments f = flatten(special_sum_segments<float>(0x1p127, 0x1p-140));
    const segment_layout& l = f.layout;
    const typed_data<float> x(f.values);
    device_buffer<float> dx(x.t);
    const auto r = run_segmented<float>(op::sum, dx.get(), dx.get(), l, correctly_rounded);
    check_rounded<float>(r, x.d, l, false);
    CHECK(std::signbit(r[1]));
    CHECK(!std::signbit(r[0]));
    CHECK(!std::signbit(r[2]));
    CHECK(r[10] == 0x1p127f);
    CHECK(r[11] == 1.0f);
    CHECK(r[12] == 1.0f + 0x1p-23f);
    // The same bits with the grid capped at 1 and 3 blocks (another GPU's grid).
    const segment_layout wl = consecutive(exact_lengths(), 1);
    const auto wx = segment_data<float>(
        wl, [&](std::size_t n, std::size_t s) { return wide_segment(n, s, 60); });
    padded_device<float> dwx(wx.t, 2);
    const auto full = run_segmented<float>(op::sum, dwx.get(), dwx.get(), wl, reproducible);
    for (int grid : {1, 3}) {
      tcr::detail::device::grid_limit_for_tests = grid;
      const auto capped = run_segmented<float>(op::sum, dwx.get(), dwx.get(), wl, reproducible);
      tcr::detail::device::grid_limit_for_tests = 0;
      CHECK(same_bits(full, capped));
    }
  }
}

TEST_CASE(
    "exact segmented modes: what has no path answers cudaErrorNotSupported after the checks") {
  using DSR = tcr::DeviceSegmentedReduce;
  std::size_t b = std::size_t(1) << 30;
  void* temp = fake<void>(0x40000);
  const auto* x = fake<const float>(0x10000);
  const auto* xd = fake<const double>(0x10000);
  float* out = fake<float>(0x20000);
  const std::int64_t* off = fake<const std::int64_t>(0x30000);
  for (const tcr::ReduceOptions& o : {correctly_rounded, reproducible}) {
    CHECK(DSR::Nrm2(temp, b, xd, fake<tcr::dd>(0x20000), 4, off, off + 1, 0, o) ==
          cudaErrorNotSupported);
    CHECK(DSR::Nrm2(temp, b, x, fake<tcr::df32>(0x20000), 4, 16, 0, o) == cudaErrorNotSupported);
    CHECK(DSR::Nrm2(temp, b, x, fake<tcr::dd>(0x20000), 4, off, off + 1, 0, o) ==
          cudaErrorNotSupported);
    CHECK(DSR::Sum(temp, b, xd, out, 4, 16, 0, tc_of(o)) == cudaErrorNotSupported);
    CHECK(DSR::Dot(temp, b, x, x, out, 4, 16, 0, tc_of(o)) == cudaErrorNotSupported);
    tcr::ReduceOptions tc = o;
    tc.engine = tcr::Engine::tensor_core;
    CHECK(DSR::Sum(temp, b, x, out, 4, 16, 0, tc) == cudaErrorNotSupported);
    CHECK(DSR::Sum(temp, b, x, out, -1, 16, 0, o) == cudaErrorInvalidValue); // checks first
    CHECK(DSR::Dot(temp, b, x, x, out, -1, 16, 0, o) == cudaErrorInvalidValue);
    std::size_t q = 0;
    CHECK(DSR::Sum(nullptr, q, x, out, 4, off, off + 1, 0, o) == cudaSuccess); // the size query
    CHECK(q > 0);
    std::size_t small = 0;
    CHECK(DSR::Sum(temp, small, x, out, 4, off, off + 1, 0, o) == cudaErrorInvalidValue);
  }
}
