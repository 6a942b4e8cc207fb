// SPDX-License-Identifier: BSD-3-Clause
// Tests for reduce/warp.cuh and reduce/block.cuh: the exact tensor-core algorithm
// (tensor_core_exact: e4m3 and e5m2 through f16 MMAs), the lead's entry points AccumulateLane and
// LaneShare (exact, chain, shuffle tree), and the double-carried accumulator
// (compensated/block_sum.cuh) in block sums and dots, against exact references and the bounds of
// warp_block_common.cuh.
#include "warp_block_common.cuh"

using namespace tcr::test::wb;
using tcr::double_carried;
using tcr::neumaier;
using tcr::WarpReduceAlgorithm;
constexpr auto exact = BlockReduceAlgorithm::tensor_core_exact;
constexpr auto shuffle = BlockReduceAlgorithm::shuffle_tree;

namespace {

// Warp w: lane l holds items [l N, l N + N) of call c's tile (c = 0, 1), folds both calls into
// one accumulator with AccumulateLane, and the shares are merged by a shuffle-tree WarpReduce.
// Outputs per warp: the total and, per lane, result(acc) before the merge (g_lanes[32 w + l]).
template <class T, WarpReduceAlgorithm A, class In, int N>
__global__ void accumulate_lane_kernel(const In* g_in, double* g_out, double* g_lanes) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  T r_acc{};
  for (int c = 0; c < 2; ++c) {
    const In* tile = g_in + (static_cast<long>(warp) * 2 + c) * 32 * N;
    In items[N];
    for (int i = 0; i < N; ++i)
      items[i] = tile[lane * N + i];
    tcr::WarpReduce<T, A>().AccumulateLane(r_acc, items);
  }
  g_lanes[32 * warp + lane] = double(tcr::result(r_acc));
  const T total = tcr::WarpReduce<T>().Sum(tcr::WarpReduce<T, A>().LaneShare(r_acc));
  if (lane == 0)
    g_out[warp] = double(tcr::result(total));
}

// bound: E (the MMAs' error) plus the accumulator's, over a tree of height h.
template <class T, WarpReduceAlgorithm A, class In, int N>
void check_accumulate_lane(data_kind kind, std::uint64_t seed, double mma_error_per_S, int h) {
  INFO("seed = ", seed, ", N = ", N, ", algorithm = ", int(A), ", data = ", int(kind));
  constexpr int warps = 8;
  const std::vector<In> data = make_data<In>(kind, std::size_t(warps) * 2 * 32 * N, seed);
  tcr::test::device_buffer<In> d_in(data);
  tcr::test::device_buffer<double> d_out(warps), d_lanes(32 * warps);
  accumulate_lane_kernel<T, A, In, N><<<warps / 4, 128>>>(d_in.get(), d_out.get(), d_lanes.get());
  TCR_CHECK_CUDA(cudaGetLastError());
  TCR_CHECK_CUDA(cudaDeviceSynchronize());
  const auto res = d_out.download();
  const auto lanes = d_lanes.download();
  using V = typename acc_traits<T>::value;
  const double u = std::is_same_v<V, float> ? std::ldexp(1.0, -24) : std::ldexp(1.0, -53);
  for (int w = 0; w < warps; ++w) {
    std::vector<double> xs(2 * 32 * N);
    double S = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
      xs[i] = to_double(data[std::size_t(w) * 2 * 32 * N + i]);
      S += std::fabs(xs[i]);
    }
    const tcr::test::mp s = tcr::test::exact_sum(xs);
    if constexpr (A != WarpReduceAlgorithm::shuffle_tree) {
      for (int l = 0; l < 32; l += 2) // lanes l and l ^ 1 fold the same values
        REQUIRE(std::memcmp(&lanes[32 * w + l], &lanes[32 * w + l + 1], sizeof(double)) == 0);
    }
    const bound_model m{
        acc_traits<T>::compensated, acc_traits<T>::carried, u, h, mma_error_per_S * S, 2.0};
    const double bound = sum_bound(m, std::fabs(s.to_double()) * (1 + std::ldexp(1.0, -50)), S);
    const double err = tcr::test::abs_error(res[w], s);
    INFO("warp ", w, ": result ", res[w], ", exact ", s.to_double(), ", error ", err, ", bound ",
         bound);
    REQUIRE(err <= bound);
  }
}

} // namespace

TEST_SUITE("gpu") {
  TEST_CASE("WarpReduce AccumulateLane and LaneShare: tensor_core_exact, chain, shuffle tree") {
    for (data_kind k :
         {data_kind::uniform, data_kind::same_sign_wide, data_kind::ill_conditioned}) {
      const std::uint64_t seed = 93000 + 100 * int(k);
      // exact: E = 0; the accumulator's tree: 2 calls x 2 folds, 5 shuffle levels
      check_accumulate_lane<double_carried<float>, WarpReduceAlgorithm::tensor_core_exact,
                            __nv_fp8_e4m3, 32>(k, seed + 1, 0.0, 10);
      check_accumulate_lane<neumaier<float>, WarpReduceAlgorithm::tensor_core_exact, __nv_fp8_e5m2,
                            16>(k, seed + 2, 0.0, 10);
      // chain, float D: one chain of 2 tiles per call (R = 2 steps), rounding
      check_accumulate_lane<float, WarpReduceAlgorithm::tensor_core_chain, __half, 16>(
          k, seed + 3, tcr::mma::tile_error_bound(2, 16, 24, 1.0), 10);
      // shuffle tree: the items one by one, then 5 levels
      check_accumulate_lane<neumaier<float>, WarpReduceAlgorithm::shuffle_tree, float, 4>(
          k, seed + 4, 0.0, 2 * 4 + 5);
    }
  }
  TEST_CASE("BlockReduce tensor_core_exact, e4m3 and e5m2 (large)") {
    for (data_kind k :
         {data_kind::uniform, data_kind::same_sign_wide, data_kind::ill_conditioned}) {
      const std::uint64_t seed = 94000 + 100 * int(k);
      sweep<double_carried<float>, __nv_fp8_e4m3, 256, 16, exact>(k, seed + 1);
      sweep<double_carried<float>, __nv_fp8_e5m2, 128, 32, exact>(k, seed + 2);
      sweep<neumaier<float>, __nv_fp8_e4m3, 128, 4, exact>(k, seed + 3);
      sweep<neumaier<float>, __nv_fp8_e5m2, 64, 16, exact>(k, seed + 4);
    }
  }
  TEST_CASE("BlockReduce tensor_core_exact: smoke, Inf, NaN and zeros") {
    const data_kind k = data_kind::ill_conditioned;
    check_block_sum<double_carried<float>, __nv_fp8_e4m3, 256, 16, exact>(k, 256 * 16 - 3, 94501,
                                                                          2);
    check_block_sum<neumaier<float>, __nv_fp8_e5m2, 64, 16, exact>(k, 64 * 16 - 1, 94502, 2);
    check_specials<double_carried<float>, __nv_fp8_e4m3, 256, 16, exact>();
    check_specials<neumaier<float>, __nv_fp8_e5m2, 64, 16, exact>();
  }
  TEST_CASE("BlockReduce with double_carried<float>: every input type, partial tiles (large)") {
    for (data_kind k :
         {data_kind::uniform, data_kind::same_sign_wide, data_kind::ill_conditioned}) {
      const std::uint64_t seed = 95000 + 100 * int(k);
      sweep<double_carried<float>, float, 256, 4, shuffle>(k, seed + 1);
      sweep<double_carried<float>, __half, 128, 16, shuffle>(k, seed + 2);
      sweep<double_carried<float>, __nv_bfloat16, 512, 1, shuffle>(k, seed + 3);
      sweep<double_carried<float>, __nv_fp8_e4m3, 128, 80, shuffle>(k, seed + 4); // 2 chunks
      sweep<double_carried<float>, __nv_fp8_e5m2, 100, 4, shuffle>(k, seed + 5);
    }
  }
  TEST_CASE("BlockReduce with double_carried<float>: smoke, Inf, NaN, zeros, Dot") {
    const data_kind k = data_kind::ill_conditioned;
    check_block_sum<double_carried<float>, float, 256, 4, shuffle>(k, 1000, 95501, 2);
    check_block_sum<double_carried<float>, __nv_fp8_e4m3, 128, 80, shuffle>(k, 128 * 80 - 1, 95502,
                                                                            2);
    check_specials<double_carried<float>, float, 256, 4, shuffle>();
    check_specials<double_carried<float>, __half, 100, 4, shuffle>();
    for (double cond : {1.0, 1e8, 1e16}) {
      check_block_dot<double_carried<float>, float, 128, 4>(cond, 512, 95601);
      check_block_dot<double_carried<float>, float, 128, 4>(cond, 300, 95602);
    }
  }
}
