// SPDX-License-Identifier: BSD-3-Clause
// Tests for reduce/block_segmented.cuh: teams of 4, 32, 64 and 256 threads in blocks of 128 and
// 256 each sum their own items (neumaier<float>, ill-conditioned data) whole and over their own
// num_valid (0 included) against exact sums under the Sum2 bound of the team's tree; every
// thread of a team gets the same bits; a team's bits do not depend on the block size; Reduce
// with max per team.
#include <tcr/reduce/block_segmented.cuh>
#include "warp_block_common.cuh"

using namespace tcr::test::wb;

namespace {

constexpr int N = 3;           // items per thread
constexpr int grid_teams = 64; // teams in the grid (every configuration)

// Team q of the grid (threads [q S, q S + S) of the grid in blocks of B) sums its S N items
// whole and over its first g_valid[q]; thread g writes g_all[g], g_part[g], and the team's max of
// its first items to g_max[g].
template <int B, int S>
__global__ void __launch_bounds__(B) team_sum_kernel(const float* g_in, const int* g_valid,
                                                     float* g_all, float* g_part, float* g_max) {
  using T = tcr::neumaier<float>;
  using BSR = tcr::BlockSegmentedReduce<T, B, S>;
  using BMax = tcr::BlockSegmentedReduce<float, B, S>;
  __shared__ typename BSR::TempStorage s_sum;
  __shared__ typename BMax::TempStorage s_max;
  const int g = static_cast<int>(blockIdx.x * B + threadIdx.x);
  const int q = g / S;
  float items[N];
  for (int i = 0; i < N; ++i)
    items[i] = g_in[std::size_t(g) * N + i];
  g_all[g] = static_cast<float>(tcr::result(BSR(s_sum).Sum(items)));
  g_part[g] = static_cast<float>(tcr::result(BSR(s_sum).Sum(items, g_valid[q])));
  g_max[g] = BMax(s_max).Reduce(items[0], [](float a, float b) { return a > b ? a : b; });
}

bool same(float a, float b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}
bool same(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

struct team_results {
  std::vector<float> all, part, max;
};

template <int B, int S>
team_results run_teams(const std::vector<float>& data, const std::vector<int>& valid) {
  constexpr int threads = grid_teams * S;
  static_assert(threads % B == 0, "whole blocks");
  tcr::test::device_buffer<float> d_in(data);
  tcr::test::device_buffer<int> d_valid(valid);
  tcr::test::device_buffer<float> d_all(threads), d_part(threads), d_max(threads);
  team_sum_kernel<B, S>
      <<<threads / B, B>>>(d_in.get(), d_valid.get(), d_all.get(), d_part.get(), d_max.get());
  TCR_CHECK_CUDA(cudaGetLastError());
  TCR_CHECK_CUDA(cudaDeviceSynchronize());
  return {d_all.download(), d_part.download(), d_max.download()};
}

// Every team's results: the same bits in all its threads; within the Sum2 bound of a tree of
// height (N - 1) + log2(min(S, 32)) + (S / 32 - 1); the max exact.
template <int B, int S>
team_results check_teams(std::uint64_t seed) {
  INFO("seed = ", seed, ", block ", B, ", team ", S);
  const std::vector<float> data =
      make_data<float>(data_kind::ill_conditioned, std::size_t(grid_teams) * S * N, seed);
  std::vector<int> valid(grid_teams);
  for (int q = 0; q < grid_teams; ++q)
    valid[q] = q % 4 == 0 ? 0 : q % 4 == 1 ? S * N : (q * 37) % (S * N);
  const team_results r = run_teams<B, S>(data, valid);
  int lg = 0;
  while ((1 << lg) < (S < 32 ? S : 32))
    ++lg;
  const int h = (N - 1) + lg + (S > 32 ? S / 32 - 1 : 0) + 1;
  const double u = std::ldexp(1.0, -24);
  for (int q = 0; q < grid_teams; ++q) {
    INFO("team ", q, ", num_valid ", valid[q]);
    const std::size_t t0 = std::size_t(q) * S;
    for (int k = 1; k < S; ++k) {
      REQUIRE(same(r.all[t0 + k], r.all[t0]));
      REQUIRE(same(r.part[t0 + k], r.part[t0]));
      REQUIRE(same(r.max[t0 + k], r.max[t0]));
    }
    float mx = data[t0 * N];
    for (int k = 1; k < S; ++k)
      mx = std::fmax(mx, data[(t0 + k) * N]);
    CHECK(same(r.max[t0], mx));
    for (int call = 0; call < 2; ++call) {
      const int count = call == 0 ? S * N : valid[q];
      const float res = call == 0 ? r.all[t0] : r.part[t0];
      std::vector<double> xs(data.begin() + t0 * N, data.begin() + t0 * N + count);
      double sum_abs = 0;
      for (double e : xs)
        sum_abs += std::fabs(e);
      const tcr::test::mp s = tcr::test::exact_sum(xs);
      const bound_model m{true, false, u, h, 0.0, 1.0};
      const double bound =
          sum_bound(m, std::fabs(s.to_double()) * (1 + std::ldexp(1.0, -50)), sum_abs);
      INFO("call ", call, " over ", count, " items: result ", res, ", exact ", s.to_double(),
           ", bound ", bound);
      CHECK(tcr::test::abs_error(res, s) <= bound);
      if (count == 0)
        CHECK(res == 0.0f);
    }
  }
  return r;
}

} // namespace

TEST_SUITE("gpu") {
  TEST_CASE("BlockSegmentedReduce: teams of 4 to 256 threads, each its own bounded sum") {
    const team_results a4 = check_teams<256, 4>(3001);
    const team_results b4 = check_teams<128, 4>(3001);
    CHECK((same(a4.all, b4.all) && same(a4.part, b4.part))); // whatever the block size
    check_teams<256, 32>(3002);
    const team_results a64 = check_teams<256, 64>(3003);
    const team_results b64 = check_teams<128, 64>(3003);
    CHECK((same(a64.all, b64.all) && same(a64.part, b64.part)));
    check_teams<256, 256>(3004);
  }
}
