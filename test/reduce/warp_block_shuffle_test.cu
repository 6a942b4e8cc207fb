// SPDX-License-Identifier: BSD-3-Clause
// Tests for reduce/block.cuh and reduce/warp.cuh, shuffle tree: every block size, items per
// thread 1..16, partial tiles, every input type, well- and ill-conditioned data against MPFR
// under the bounds of warp_block_common.cuh, specials, back-to-back calls on one TempStorage,
// bitwise repeatability; Dot with dot2; WarpReduce on its own.
#include "warp_block_common.cuh"

using namespace tcr::test::wb;
using tcr::neumaier;
constexpr auto shuffle = BlockReduceAlgorithm::shuffle_tree;

namespace {

template <int BLOCK, int N, class T = neumaier<float>, class In = float>
void sweep_valid(data_kind kind, std::uint64_t seed) {
  constexpr int tile = BLOCK * N;
  for (int nv : {tile, tile - 1, tile / 2 + 3, 33, 1, 0})
    check_block_sum<T, In, BLOCK, N, shuffle>(kind, nv, seed + nv);
}

// WarpReduce directly: warp w sums its 32 * N items over the first num_valid of them.
template <class T, tcr::WarpReduceAlgorithm A, class In, int N>
__global__ void warp_sum_kernel(const In* g_in, int num_valid, double* g_out) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const In* tile = g_in + (blockIdx.x * (blockDim.x / 32) + warp) * 32 * N;
  In items[N];
  for (int i = 0; i < N; ++i)
    items[i] = tile[lane * N + i];
  const double r = double(tcr::result(tcr::WarpReduce<T, A>().Sum(items, num_valid)));
  const double r0 = __shfl_sync(0xffffffffu, r, 0);
  if (__double_as_longlong(r) != __double_as_longlong(r0))
    g_out[0] = __longlong_as_double(-1);
  if (lane == 0)
    g_out[1 + blockIdx.x * (blockDim.x / 32) + warp] = r;
}

template <class T, tcr::WarpReduceAlgorithm A, class In, int N>
void check_warp_sum(int num_valid, std::uint64_t seed) {
  INFO("seed = ", seed, ", N = ", N, ", num_valid = ", num_valid);
  constexpr int warps = 16;
  std::vector<In> data =
      make_data<In>(data_kind::ill_conditioned, std::size_t(warps) * 32 * N, seed);
  for (int w = 0; w < warps; ++w)
    for (int i = num_valid; i < 32 * N; ++i)
      data[std::size_t(w) * 32 * N + i] = nan_of<In>();
  tcr::test::device_buffer<In> d_in(data);
  tcr::test::device_buffer<double> d_out(std::vector<double>(warps + 1, 0.0));
  warp_sum_kernel<T, A, In, N><<<warps / 4, 128>>>(d_in.get(), num_valid, d_out.get());
  TCR_CHECK_CUDA(cudaGetLastError());
  TCR_CHECK_CUDA(cudaDeviceSynchronize());
  const auto res = d_out.download();
  REQUIRE_MESSAGE(res[0] == 0.0, "lanes received different results");
  for (int w = 0; w < warps; ++w) {
    std::vector<double> xs(num_valid);
    double S = 0;
    for (int i = 0; i < num_valid; ++i) {
      xs[i] = to_double(data[std::size_t(w) * 32 * N + i]);
      S += std::fabs(xs[i]);
    }
    const tcr::test::mp s = tcr::test::exact_sum(xs);
    const double err = tcr::test::abs_error(res[1 + w], s);
    // Sum2, tree height (N - 1) + 5 (+ 2 M + 3 with tensor cores: covered by the block model)
    bound_model m = make_model < T, In, N,
                A == tcr::WarpReduceAlgorithm::shuffle_tree
                    ? BlockReduceAlgorithm::shuffle_tree
                    : BlockReduceAlgorithm::tensor_core_fold > (S);
    const double bound = sum_bound(m, std::fabs(s.to_double()) * (1 + std::ldexp(1.0, -50)), S);
    INFO("warp ", w, ": result ", res[1 + w], ", exact ", s.to_double(), ", error ", err,
         ", bound ", bound);
    REQUIRE(err <= bound);
  }
}

} // namespace

TEST_SUITE("gpu") {
  TEST_CASE("BlockReduce shuffle_tree: every block size, partial tiles (large)") {
    for (data_kind k : {data_kind::uniform, data_kind::ill_conditioned}) {
      const std::uint64_t seed = 10000 + 1000 * int(k);
      sweep_valid<32, 4>(k, seed + 1);
      sweep_valid<64, 4>(k, seed + 2);
      sweep_valid<96, 4>(k, seed + 3);
      sweep_valid<128, 4>(k, seed + 4);
      sweep_valid<256, 4>(k, seed + 5);
      sweep_valid<512, 4>(k, seed + 6);
      sweep_valid<1024, 4>(k, seed + 7);
    }
  }
  TEST_CASE("BlockReduce shuffle_tree: items per thread 1, 2, 4, 8, 16 (large)") {
    for (data_kind k : {data_kind::same_sign_wide, data_kind::ill_conditioned}) {
      const std::uint64_t seed = 20000 + 1000 * int(k);
      sweep_valid<256, 1>(k, seed + 1);
      sweep_valid<256, 2>(k, seed + 2);
      sweep_valid<256, 8>(k, seed + 8);
      sweep_valid<256, 16>(k, seed + 16);
    }
  }
  TEST_CASE("BlockReduce shuffle_tree: every input type and value type (large)") {
    for (data_kind k :
         {data_kind::uniform, data_kind::same_sign_wide, data_kind::ill_conditioned}) {
      const std::uint64_t seed = 30000 + 1000 * int(k);
      sweep_valid<128, 8, neumaier<float>, __half>(k, seed + 1);
      sweep_valid<128, 8, neumaier<float>, __nv_bfloat16>(k, seed + 2);
      sweep_valid<128, 8, neumaier<float>, __nv_fp8_e4m3>(k, seed + 3);
      sweep_valid<128, 8, neumaier<float>, __nv_fp8_e5m2>(k, seed + 4);
      sweep_valid<128, 4, neumaier<double>, double>(k, seed + 5);
      sweep_valid<128, 4, float, float>(k, seed + 6);
      sweep_valid<128, 4, double, double>(k, seed + 7);
      sweep_valid<128, 8, float, __half>(k, seed + 8);
    }
  }
  // The same kernels on less data, for the compute-sanitizer runs (which skip "(large)" cases).
  TEST_CASE("BlockReduce shuffle_tree: smoke over block sizes, items and types") {
    const data_kind k = data_kind::ill_conditioned;
    check_block_sum<neumaier<float>, float, 32, 4, shuffle>(k, 32 * 4 - 1, 15001, 2);
    check_block_sum<neumaier<float>, float, 64, 4, shuffle>(k, 64 * 4 - 1, 15002, 2);
    check_block_sum<neumaier<float>, float, 96, 4, shuffle>(k, 96 * 4 - 1, 15003, 2);
    check_block_sum<neumaier<float>, float, 128, 4, shuffle>(k, 128 * 4 - 1, 15004, 2);
    check_block_sum<neumaier<float>, float, 256, 4, shuffle>(k, 256 * 4 - 1, 15005, 2);
    check_block_sum<neumaier<float>, float, 512, 4, shuffle>(k, 512 * 4 - 1, 15006, 2);
    check_block_sum<neumaier<float>, float, 1024, 4, shuffle>(k, 1024 * 4 - 1, 15007, 2);
    check_block_sum<neumaier<float>, float, 256, 1, shuffle>(k, 200, 15008, 2);
    check_block_sum<neumaier<float>, float, 256, 16, shuffle>(k, 256 * 16 - 5, 15009, 2);
    check_block_sum<neumaier<float>, __half, 128, 8, shuffle>(k, 1000, 15010, 2);
    check_block_sum<neumaier<float>, __nv_fp8_e5m2, 128, 8, shuffle>(k, 1000, 15011, 2);
    check_block_sum<neumaier<double>, double, 128, 4, shuffle>(k, 300, 15012, 2);
    check_block_sum<float, float, 128, 4, shuffle>(k, 0, 15013, 2);
  }
  TEST_CASE("BlockReduce shuffle_tree: Inf, NaN and signed zeros") {
    check_specials<neumaier<float>, float, 128, 4, shuffle>();
    check_specials<neumaier<float>, __half, 96, 8, shuffle>();
    check_specials<neumaier<float>, __nv_fp8_e4m3, 64, 8, shuffle>();
    check_specials<neumaier<double>, double, 32, 2, shuffle>();
    check_specials<float, float, 1024, 1, shuffle>();
  }
  TEST_CASE("BlockReduce Dot with dot2: well- and ill-conditioned, partial tiles") {
    for (double cond : {1.0, 1e8, 1e16}) {
      check_block_dot<tcr::dot2<float>, float, 128, 4>(cond, 512, 40001);
      check_block_dot<tcr::dot2<float>, float, 128, 4>(cond, 300, 40002);
      check_block_dot<tcr::dot2<double>, double, 96, 2>(cond, 192, 40003);
      check_block_dot<tcr::dot2<double>, double, 96, 2>(cond, 101, 40004);
    }
  }
  TEST_CASE("WarpReduce Sum of item arrays, partial warps") {
    for (int nv : {128, 127, 65, 32, 1, 0})
      check_warp_sum<neumaier<float>, tcr::WarpReduceAlgorithm::shuffle_tree, float, 4>(nv,
                                                                                        50000 + nv);
    for (int nv : {256, 255, 100, 1})
      check_warp_sum<neumaier<float>, tcr::WarpReduceAlgorithm::tensor_core_fold, __half, 8>(
          nv, 51000 + nv);
    for (int nv : {512, 511, 17})
      check_warp_sum<neumaier<float>, tcr::WarpReduceAlgorithm::tensor_core_fold, __nv_fp8_e4m3,
                     16>(nv, 52000 + nv);
  }
}
