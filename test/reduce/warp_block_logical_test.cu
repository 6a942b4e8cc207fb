// SPDX-License-Identifier: BSD-3-Clause
// Tests for reduce/warp.cuh's logical warps (LOGICAL_WARP_THREADS = 1, 2, 4, 8, 16, and 32 for
// comparison): every logical warp of every warp reduces its own items with its own num_valid;
// plain float results are checked bitwise against a host model of the fixed shuffle tree,
// neumaier<float> ones against exact sums under the Sum2 bound; every lane of a logical warp
// must receive the same bits; Reduce's op in rank order over valid lanes; logical warps that
// call while their neighbours do not.
#include "warp_block_common.cuh"

using namespace tcr::test::wb;

namespace {

constexpr int items_per_lane = 3; // N
constexpr int threads = 128;      // per block
constexpr int blocks = 2;
constexpr int total_lanes = threads * blocks;

template <class T>
__device__ float as_float(const T& x) {
  return static_cast<float>(tcr::result(x));
}

// Logical warp q (lanes [q L, q L + L) of the grid) sums its L N items twice: whole (Sum) and
// over its first g_valid[q] (Sum and SumToLane0). Lane g writes g_all[g], g_part[g]; the logical
// warp's lane 0 writes g_lane0[q].
template <class T, int L>
__global__ void __launch_bounds__(threads)
    logical_sum_kernel(const float* g_in, const int* g_valid, float* g_all, float* g_part,
                       float* g_lane0) {
  constexpr int N = items_per_lane;
  using WR = tcr::WarpReduce<T, tcr::WarpReduceAlgorithm::shuffle_tree, L>;
  const int g = static_cast<int>(blockIdx.x * threads + threadIdx.x);
  const int q = g / L, lane = g % L;
  float items[N];
  for (int i = 0; i < N; ++i)
    items[i] = g_in[(q * L + lane) * N + i];
  const int nv = g_valid[q];
  g_all[g] = as_float(WR().Sum(items));
  g_part[g] = as_float(WR().Sum(items, nv));
  const float r0 = as_float(WR().SumToLane0(items, nv));
  if (lane == 0)
    g_lane0[q] = r0;
}

// Reduce with max, left (op(a, b) = a) and right (op(a, b) = b) over the logical warp's first
// g_valid[q] lanes, then right over all lanes; only logical warps with q % 3 != 0 call (their
// neighbours skip the calls: each logical warp shuffles on its own). Lane g writes g_out[4 g + k].
template <int L>
__global__ void __launch_bounds__(threads)
    logical_reduce_kernel(const float* g_in, const int* g_valid, float* g_out) {
  using WR = tcr::WarpReduce<float, tcr::WarpReduceAlgorithm::shuffle_tree, L>;
  const int g = static_cast<int>(blockIdx.x * threads + threadIdx.x);
  const int q = g / L;
  if (q % 3 == 0)
    return;
  const float x = g_in[g];
  const int v = g_valid[q];
  g_out[4 * g + 0] = WR().Reduce(x, max_op{}, v);
  g_out[4 * g + 1] = WR().Reduce(x, left_op{}, v);
  g_out[4 * g + 2] = WR().Reduce(x, right_op{}, v);
  g_out[4 * g + 3] = WR().Reduce(x, right_op{});
}

// Host model of the shuffle tree for float: lane partials -0 + x_0 + x_1 ..., then at levels
// delta = 1, 2, ... lane l adds lane l + delta's value (both before the level) if
// l + delta < valid lanes; the result is lane 0's.
float model_sum(const float* x, int L, int N, int num_valid) {
  const int valid_lanes = (num_valid + N - 1) / N;
  if (valid_lanes <= 0)
    return -0.0f;
  std::vector<float> v(L, -0.0f);
  for (int l = 0; l < L; ++l)
    for (int i = 0; i < N; ++i)
      if (l * N + i < num_valid)
        v[l] = v[l] + x[l * N + i];
  for (int delta = 1; delta < L; delta *= 2) {
    const std::vector<float> before = v;
    for (int l = 0; l + delta < valid_lanes; ++l)
      v[l] = before[l] + before[l + delta];
  }
  return v[0];
}

bool same(float a, float b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// num_valid per logical warp: full, one short, every other count down to 0, in turn.
std::vector<int> valid_counts(int logical, int L, int N) {
  std::vector<int> v(logical);
  for (int q = 0; q < logical; ++q) {
    const int tile = L * N;
    switch (q % 5) {
    case 0:
      v[q] = tile;
      break;
    case 1:
      v[q] = tile - 1;
      break;
    case 2:
      v[q] = q % tile;
      break;
    case 3:
      v[q] = 0;
      break;
    default:
      v[q] = 1 + (q / 5) % tile;
      break;
    }
  }
  return v;
}

template <class T, int L>
void check_logical_sum(std::uint64_t seed) {
  constexpr int N = items_per_lane;
  constexpr int logical = total_lanes / L;
  INFO("seed = ", seed, ", L = ", L, ", T = ", (std::is_same_v<T, float> ? "float" : "neumaier"));
  const std::vector<float> data =
      make_data<float>(std::is_same_v<T, float> ? data_kind::uniform : data_kind::ill_conditioned,
                       std::size_t(total_lanes) * N, seed);
  const std::vector<int> valid = valid_counts(logical, L, N);
  tcr::test::device_buffer<float> d_in(data);
  tcr::test::device_buffer<int> d_valid(valid);
  tcr::test::device_buffer<float> d_all(total_lanes), d_part(total_lanes), d_lane0(logical);
  logical_sum_kernel<T, L>
      <<<blocks, threads>>>(d_in.get(), d_valid.get(), d_all.get(), d_part.get(), d_lane0.get());
  TCR_CHECK_CUDA(cudaGetLastError());
  TCR_CHECK_CUDA(cudaDeviceSynchronize());
  const auto all = d_all.download(), part = d_part.download(), lane0 = d_lane0.download();
  const double u = std::ldexp(1.0, -24);
  int lg = 0; // log2 L: the tree's levels
  while ((1 << lg) < L)
    ++lg;
  for (int q = 0; q < logical; ++q) {
    const float* x = data.data() + std::size_t(q) * L * N;
    INFO("logical warp ", q, ", num_valid ", valid[q]);
    for (int lane = 1; lane < L; ++lane) {
      REQUIRE(same(all[q * L + lane], all[q * L]));
      REQUIRE(same(part[q * L + lane], part[q * L]));
    }
    REQUIRE(same(lane0[q], part[q * L]));
    for (int call = 0; call < 2; ++call) {
      const int count = call == 0 ? L * N : valid[q];
      const float r = call == 0 ? all[q * L] : part[q * L];
      INFO("call ", call, " over ", count, " items: result ", r);
      if constexpr (std::is_same_v<T, float>) {
        const float m = model_sum(x, L, N, count);
        INFO("model ", m);
        CHECK(same(r, m));
      } else {
        std::vector<double> xs(x, x + count);
        double S = 0;
        for (double e : xs)
          S += std::fabs(e);
        const tcr::test::mp s = tcr::test::exact_sum(xs);
        // Sum2 along a tree of height (N - 1) + log2 L: u|s| + gamma_h^2 S.
        const bound_model m{true, false, u, (N - 1) + lg + 1, 0.0, 1.0};
        const double bound = sum_bound(m, std::fabs(s.to_double()) * (1 + std::ldexp(1.0, -50)), S);
        INFO("exact ", s.to_double(), ", bound ", bound);
        CHECK(tcr::test::abs_error(r, s) <= bound);
      }
    }
  }
}

template <int L>
void check_logical_reduce(std::uint64_t seed) {
  constexpr int logical = total_lanes / L;
  INFO("seed = ", seed, ", L = ", L);
  const std::vector<float> data = tcr::test::gen_uniform<float>(total_lanes, seed);
  std::vector<int> valid(logical);
  for (int q = 0; q < logical; ++q)
    valid[q] = 1 + (q * 7) % L; // [1, L]
  tcr::test::device_buffer<float> d_in(data);
  tcr::test::device_buffer<int> d_valid(valid);
  tcr::test::device_buffer<float> d_out(std::vector<float>(4 * total_lanes, 0.0f));
  logical_reduce_kernel<L><<<blocks, threads>>>(d_in.get(), d_valid.get(), d_out.get());
  TCR_CHECK_CUDA(cudaGetLastError());
  TCR_CHECK_CUDA(cudaDeviceSynchronize());
  const auto out = d_out.download();
  for (int q = 0; q < logical; ++q) {
    if (q % 3 == 0)
      continue;
    const float* x = data.data() + std::size_t(q) * L;
    float mx = x[0];
    for (int l = 1; l < valid[q]; ++l)
      mx = std::fmax(mx, x[l]);
    INFO("logical warp ", q, ", valid lanes ", valid[q]);
    for (int lane = 0; lane < L; ++lane) {
      const float* r = out.data() + 4 * (q * L + lane);
      INFO("lane ", lane);
      CHECK(same(r[0], mx));
      CHECK(same(r[1], x[0]));
      CHECK(same(r[2], x[valid[q] - 1]));
      CHECK(same(r[3], x[L - 1]));
    }
  }
}

template <int L>
void check_logical(std::uint64_t seed) {
  check_logical_sum<float, L>(seed);
  check_logical_sum<tcr::neumaier<float>, L>(seed + 1);
  check_logical_reduce<L>(seed + 2);
}

} // namespace

TEST_SUITE("gpu") {
  TEST_CASE("WarpReduce logical warps of 1, 2, 4, 8, 16 (and 32) lanes, each on its own items") {
    check_logical<1>(61000);
    check_logical<2>(62000);
    check_logical<4>(63000);
    check_logical<8>(64000);
    check_logical<16>(65000);
    check_logical<32>(66000);
  }
}
