// SPDX-License-Identifier: BSD-3-Clause
// Tests for the teams of tcr::DeviceSegmentedReduce (reduce/detail/segmented_kernel.cuh): a
// segment's team size is a function of its length alone (host); both sides of every team-size
// switch for f32, f16, bf16 and f64 inputs, aligned and unaligned, against the proven bounds;
// the same bits for a segment whatever its neighbours, its place in the call, the group size
// the launch picks, and the form (offsets or fixed size); warps whose group holds segments of
// several tiers.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>
#include "reduce/segmented_test_util.hpp"

namespace {

using namespace tcr::test;
namespace seg = tcr::detail::segmented;

struct some_iterator {}; // not a pointer: one element at a time

template <class In>
using sum_of = tcr::detail::device::reduction<tcr::sum_accumulator<float>, In, void, float, false>;

// Elements of one 16-byte vector of In.
template <class In>
constexpr std::int64_t vector_items() {
  return 16 / static_cast<std::int64_t>(sizeof(In));
}

// Both sides of every switch of the team size for In (4 vectors per lane: 2^t lanes up to
// 4 V 2^t elements, t = 0..5), of the block threshold, and a few short lengths.
template <class In>
std::vector<std::int64_t> switch_lengths() {
  const std::int64_t round = 4 * vector_items<In>();
  std::vector<std::int64_t> v = {0, 1, 2, round - 1};
  for (int t = 0; t < 5; ++t) {
    v.push_back(round << t);
    v.push_back((round << t) + 1);
  }
  v.push_back(seg::segmented_warp_max);
  v.push_back(seg::segmented_warp_max + 1);
  return v;
}

// The layout's segments in another call: in reverse order, each after a segment of `other`
// elements at the array's start (so every segment of the layout sits among other neighbours, in
// another place of the call, and, when there are many, in another group and team).
segment_layout reshuffled(const segment_layout& l, std::int64_t other) {
  segment_layout r;
  r.total = l.total;
  for (std::size_t s = l.begin.size(); s-- > 0;) {
    r.begin.push_back(0);
    r.end.push_back(std::min<std::int64_t>(other, static_cast<std::int64_t>(l.total)));
    r.begin.push_back(l.begin[s]);
    r.end.push_back(l.end[s]);
  }
  return r;
}

// Results of the reshuffled call in the layout's order.
template <class Out>
std::vector<Out> reshuffled_results(const std::vector<Out>& r) {
  std::vector<Out> v;
  for (std::size_t k = r.size() / 2; k-- > 0;)
    v.push_back(r[2 * k + 1]);
  return v;
}

// The layout split into calls of at most `chunk` segments each (a small call: one segment per
// warp and group), results concatenated.
template <class Out, class InX, class InY>
std::vector<Out> chunked(op o, const InX* dx, const InY* dy, const segment_layout& l,
                         std::size_t chunk) {
  std::vector<Out> all;
  for (std::size_t at = 0; at < l.begin.size(); at += chunk) {
    const std::size_t n = std::min(chunk, l.begin.size() - at);
    segment_layout part;
    part.total = l.total;
    part.begin.assign(l.begin.begin() + at, l.begin.begin() + at + n);
    part.end.assign(l.end.begin() + at, l.end.begin() + at + n);
    const auto r = run_segmented<Out>(o, dx, dy, part);
    all.insert(all.end(), r.begin(), r.end());
  }
  return all;
}

// The switch lengths of In in one call (gap: elements before each segment, 0 or unaligned),
// every segment within its bound; the same bits in a reshuffled call and, per length, from the
// fixed-size form over segments of that length at the same addresses.
template <class In, class Out>
void check_switches(std::int64_t gap, std::size_t offset, std::uint64_t seed) {
  INFO("input ", type_name<In>(), ", gap ", gap, ", buffer offset ", offset, ", seed = ", seed);
  constexpr bool narrow = !std::is_same_v<In, double>;
  const std::vector<std::int64_t> lengths = switch_lengths<In>();
  const segment_layout l = consecutive(lengths, gap);
  const auto x = random_segments<In>(l, seed);
  const auto y = random_segments<In>(l, seed + 1);
  padded_device<In> dx(x.t, offset), dy(y.t, offset + 1);
  for (op o : {op::sum, op::asum, op::dot, op::nrm2}) {
    INFO(op_name(o));
    const auto r = run_segmented<Out>(o, dx.get(), dy.get(), l);
    check_segments<Out>(o, r, x.d, y.d, l, narrow);
    const auto again = run_segmented<Out>(o, dx.get(), dy.get(), reshuffled(l, 5));
    CHECK(same_bits(r, reshuffled_results(again)));
  }
  // Fixed size: each length n as segments [i n, i n + n) of an array at `offset`; the same
  // segments through offsets, every one of them and every third one among others.
  for (std::int64_t n : lengths) {
    if (n == 0)
      continue;
    const std::int64_t num = std::max<std::int64_t>(3, 20000 / n);
    INFO("segment_size ", n, ", ", num, " segments");
    const segment_layout f = consecutive(std::vector<std::int64_t>(num, n));
    const auto fx = random_segments<In>(f, seed + n);
    padded_device<In> dfx(fx.t, offset + static_cast<std::size_t>(gap));
    const auto fixed = run_segmented_fixed<Out>(op::sum, dfx.get(), dfx.get(), num, int(n));
    CHECK(same_bits(fixed, run_segmented<Out>(op::sum, dfx.get(), dfx.get(), f)));
    segment_layout thirds;
    thirds.total = f.total;
    for (std::int64_t s = 0; s < num; s += 3) {
      thirds.begin.push_back(f.begin[s]);
      thirds.end.push_back(f.end[s]);
      thirds.begin.push_back(0); // a neighbour of another length
      thirds.end.push_back(std::min<std::int64_t>(s + 1, num * n));
    }
    const auto r3 = run_segmented<Out>(op::sum, dfx.get(), dfx.get(), thirds);
    for (std::int64_t s = 0, k = 0; s < num; s += 3, k += 2)
      CHECK(std::memcmp(&fixed[s], &r3[k], sizeof(Out)) == 0);
  }
}

// `num` segments with lengths cycling through `pattern`, every 4099th of 5000 elements
// instead (consecutive, 1 element of gap), so
// that a warp's group holds segments of several tiers; each segment's bits must equal those of
// calls of a few thousand segments (one segment per warp and group), and (every `stride`-th
// segment) its bound.
void check_mixed_tiers(std::int64_t num, const std::vector<std::int64_t>& pattern,
                       std::size_t stride, std::uint64_t seed) {
  INFO(num, " segments, seed = ", seed, ", segments per warp ", seg::segments_per_warp(num));
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(num));
  for (std::size_t s = 0; s < lengths.size(); ++s) // a block-tier segment now and then
    lengths[s] = s % 4099 == 7 ? 5000 : pattern[s % pattern.size()];
  const segment_layout l = consecutive(lengths, 1);
  const auto x = random_segments<float>(l, seed);
  const auto y = random_segments<__half>(l, seed + 1);
  padded_device<float> dx(x.t, 0);
  padded_device<__half> dy(y.t, 1);
  for (op o : {op::sum, op::dot}) {
    INFO(op_name(o));
    const auto r = run_segmented<float>(o, dx.get(), dy.get(), l);
    REQUIRE(r.size() == lengths.size());
    CHECK(same_bits(r, chunked<float>(o, dx.get(), dy.get(), l, 4096)));
    segment_layout some;
    some.total = l.total;
    std::vector<float> picked;
    for (std::size_t s = 0; s < r.size(); s += stride) {
      some.begin.push_back(l.begin[s]);
      some.end.push_back(l.end[s]);
      picked.push_back(r[s]);
    }
    check_segments<float>(o, picked, x.d, y.d, some, true);
  }
}

} // namespace

TEST_CASE("a segment's team is a function of its length: both sides of every switch") {
  // 2^t lanes up to 4 V 2^t elements (V: a 16-byte vector's elements, 1 for iterators).
  const auto check = [](auto tier_of, std::int64_t v) {
    INFO("V = ", v);
    CHECK(tier_of(0) == 0);
    CHECK(tier_of(1) == 0);
    for (int t = 0; t < 5; ++t) {
      CHECK(tier_of((4 * v) << t) == t);
      CHECK(tier_of(((4 * v) << t) + 1) == t + 1);
    }
    CHECK(tier_of(seg::segmented_warp_max) == 5);
    CHECK(tier_of(seg::segmented_warp_max + 1) == seg::block_tier);
    CHECK(tier_of(std::int64_t(1) << 40) == seg::block_tier);
  };
  check([](std::int64_t n) { return seg::tier_of<sum_of<float>>(n); }, 4);
  check([](std::int64_t n) { return seg::tier_of<sum_of<__half>>(n); }, 8);
  check([](std::int64_t n) { return seg::tier_of<sum_of<__nv_bfloat16>>(n); }, 8);
  check([](std::int64_t n) { return seg::tier_of<sum_of<double>>(n); }, 2);
  using from_iterator = tcr::detail::device::reduction<tcr::sum_accumulator<float>, float, void,
                                                       float, false, some_iterator>;
  check([](std::int64_t n) { return seg::tier_of<from_iterator>(n); }, 1);
  // Groups: 32 segments per warp for large batches, fewer (powers of two) for small ones.
  CHECK(seg::segments_per_warp(1) == 1);
  CHECK(seg::segments_per_warp(std::int64_t(1) << 40) == 32);
  for (std::int64_t n = 1; n < (std::int64_t(1) << 22); n = n * 3 + 1) {
    const int g = seg::segments_per_warp(n);
    CHECK((g >= 1 && g <= 32 && (g & (g - 1)) == 0));
    CHECK(seg::segments_per_warp(n + 1) >= g);
  }
}

TEST_SUITE("gpu") {
  TEST_CASE("both sides of every team-size switch meet the bound, aligned and unaligned") {
    for (std::int64_t gap : {0, 1, 3}) {
      const std::size_t offset = gap == 3 ? 1 : 0;
      check_switches<float, float>(gap, offset, 1500 + gap);
      check_switches<__half, float>(gap, offset, 1600 + gap);
      check_switches<__nv_bfloat16, float>(gap, offset, 1700 + gap);
      check_switches<double, double>(gap, offset, 1800 + gap);
    }
  }

  TEST_CASE("a warp's group holds segments of several tiers: same bits as small calls") {
    // 2^17 segments: 4 per warp and group; 2^19 + 5: 16.
    check_mixed_tiers(std::int64_t(1) << 17, {5, 40, 300, 17, 0, 9, 130, 70, 33, 2, 65}, 7, 1900);
    check_mixed_tiers((std::int64_t(1) << 19) + 5, {1, 16, 17, 3, 33, 0, 8, 65}, 31, 1910);
  }

  TEST_CASE("32 segments per warp and group, every tier in one call (large)") {
    const std::vector<std::int64_t> pattern = {1,   8, 16, 17, 33, 65, 3, 0, 5, 12, 129, 2,
                                               257, 4, 1,  2,  3,  1,  0, 6, 7, 9,  1,   2};
    check_mixed_tiers(std::int64_t(1) << 20, pattern, 101, 1920);
  }
}
