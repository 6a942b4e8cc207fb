// SPDX-License-Identifier: BSD-3-Clause
// Tests for reduce/block.cuh, tensor-core algorithms on fp8 items (e4m3 exact through f16, e5m2
// native): block sizes, items per thread, partial tiles, data kinds, specials (bounds and
// harness in warp_block_common.cuh).
#include "warp_block_common.cuh"

using namespace tcr::test::wb;
using tcr::neumaier;

TEST_SUITE("gpu") {
  TEST_CASE("BlockReduce tensor cores, e4m3 and e5m2: block sizes and items per thread (large)") {
    for (data_kind k :
         {data_kind::uniform, data_kind::same_sign_wide, data_kind::ill_conditioned}) {
      const std::uint64_t seed = 80000 + 1000 * int(k);
      sweep<neumaier<float>, __nv_fp8_e4m3, 32, 16, fold>(k, seed + 1);
      sweep<neumaier<float>, __nv_fp8_e4m3, 128, 1, fold>(k, seed + 2);
      sweep<neumaier<float>, __nv_fp8_e4m3, 128, 4, fold>(k, seed + 3);
      sweep<neumaier<float>, __nv_fp8_e4m3, 1024, 16, fold>(k, seed + 4);
      sweep<float, __nv_fp8_e4m3, 96, 16, chain>(k, seed + 5);
      sweep<float, __nv_fp8_e4m3, 256, 8, chain>(k, seed + 6);
      sweep<neumaier<float>, __nv_fp8_e5m2, 64, 16, fold>(k, seed + 7);
      sweep<neumaier<float>, __nv_fp8_e5m2, 512, 2, fold>(k, seed + 8);
      sweep<float, __nv_fp8_e5m2, 128, 16, chain>(k, seed + 9);
      sweep<float, __nv_fp8_e5m2, 256, 1, chain>(k, seed + 10);
    }
  }
  // The same kernels on less data, for the compute-sanitizer runs (which skip "(large)" cases).
  TEST_CASE("BlockReduce tensor cores, e4m3 and e5m2: smoke") {
    const data_kind k = data_kind::ill_conditioned;
    check_block_sum<neumaier<float>, __nv_fp8_e4m3, 32, 16, fold>(k, 32 * 16 - 1, 17001, 2);
    check_block_sum<neumaier<float>, __nv_fp8_e4m3, 1024, 16, fold>(k, 1024 * 16 - 9, 17002, 2);
    check_block_sum<float, __nv_fp8_e4m3, 96, 16, chain>(k, 96 * 16 - 1, 17003, 2);
    check_block_sum<neumaier<float>, __nv_fp8_e5m2, 64, 16, fold>(k, 64 * 16 - 1, 17004, 2);
    check_block_sum<float, __nv_fp8_e5m2, 256, 1, chain>(k, 255, 17005, 2);
  }
  TEST_CASE("block_sum_algorithm_v: the default algorithms meet the compensated bound") {
    using tcr::block_sum_algorithm_v;
    static_assert(block_sum_algorithm_v<__nv_fp8_e4m3, 16> ==
                  tcr::BlockReduceAlgorithm::tensor_core_exact);
    static_assert(block_sum_algorithm_v<__nv_fp8_e5m2, 64> ==
                  tcr::BlockReduceAlgorithm::tensor_core_exact);
    static_assert(block_sum_algorithm_v<float, 64> == tcr::BlockReduceAlgorithm::shuffle_tree);
    static_assert(block_sum_algorithm_v<__half, 16> == tcr::BlockReduceAlgorithm::shuffle_tree);
    for (data_kind k : {data_kind::same_sign_wide, data_kind::ill_conditioned}) {
      const std::uint64_t seed = 17100 + 10 * int(k);
      check_block_sum<neumaier<float>, __nv_fp8_e4m3, 256, 4,
                      block_sum_algorithm_v<__nv_fp8_e4m3, 4>>(k, 256 * 4, seed + 1, 2);
      check_block_sum<neumaier<float>, __nv_fp8_e4m3, 256, 64,
                      block_sum_algorithm_v<__nv_fp8_e4m3, 64>>(k, 256 * 64 - 3, seed + 2, 2);
      check_block_sum<neumaier<float>, __nv_fp8_e5m2, 256, 4,
                      block_sum_algorithm_v<__nv_fp8_e5m2, 4>>(k, 256 * 4 - 1, seed + 3, 2);
      check_block_sum<neumaier<float>, __nv_fp8_e5m2, 256, 64,
                      block_sum_algorithm_v<__nv_fp8_e5m2, 64>>(k, 256 * 64, seed + 4, 2);
    }
  }
  TEST_CASE("BlockReduce tensor cores, e4m3 and e5m2: Inf, NaN and signed zeros") {
    check_specials<neumaier<float>, __nv_fp8_e4m3, 128, 16, fold>();
    check_specials<float, __nv_fp8_e4m3, 96, 16, chain>();
    check_specials<neumaier<float>, __nv_fp8_e5m2, 64, 16, fold>();
    check_specials<float, __nv_fp8_e5m2, 128, 16, chain>();
  }
}
