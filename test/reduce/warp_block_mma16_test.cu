// SPDX-License-Identifier: BSD-3-Clause
// Tests for reduce/block.cuh, tensor-core algorithms on __half and __nv_bfloat16 items: every
// block size, items per thread 1..16, partial tiles, data kinds, specials (bounds and harness in
// warp_block_common.cuh).
#include "warp_block_common.cuh"

using namespace tcr::test::wb;
using tcr::neumaier;

TEST_SUITE("gpu") {
  TEST_CASE("BlockReduce tensor cores, __half: every block size (large)") {
    for (data_kind k :
         {data_kind::uniform, data_kind::same_sign_wide, data_kind::ill_conditioned}) {
      const std::uint64_t seed = 60000 + 1000 * int(k);
      sweep<neumaier<float>, __half, 32, 8, fold>(k, seed + 1);
      sweep<neumaier<float>, __half, 64, 8, fold>(k, seed + 2);
      sweep<neumaier<float>, __half, 96, 8, fold>(k, seed + 3);
      sweep<neumaier<float>, __half, 128, 8, fold>(k, seed + 4);
      sweep<neumaier<float>, __half, 256, 8, fold>(k, seed + 5);
      sweep<neumaier<float>, __half, 512, 8, fold>(k, seed + 6);
      sweep<neumaier<float>, __half, 1024, 8, fold>(k, seed + 7);
      sweep<float, __half, 96, 8, chain>(k, seed + 8);
      sweep<float, __half, 1024, 8, chain>(k, seed + 9);
    }
  }
  TEST_CASE("BlockReduce tensor cores, __half and __nv_bfloat16: items per thread 1..16 (large)") {
    for (data_kind k : {data_kind::same_sign_wide, data_kind::ill_conditioned}) {
      const std::uint64_t seed = 70000 + 1000 * int(k);
      sweep<neumaier<float>, __half, 128, 1, fold>(k, seed + 1);
      sweep<neumaier<float>, __half, 128, 2, fold>(k, seed + 2);
      sweep<neumaier<float>, __half, 128, 4, fold>(k, seed + 3);
      sweep<neumaier<float>, __half, 128, 16, fold>(k, seed + 4);
      sweep<float, __half, 128, 1, chain>(k, seed + 5);
      sweep<float, __half, 128, 16, chain>(k, seed + 6);
      sweep<neumaier<float>, __nv_bfloat16, 256, 8, fold>(k, seed + 7);
      sweep<neumaier<float>, __nv_bfloat16, 256, 16, fold>(k, seed + 8);
      sweep<float, __nv_bfloat16, 256, 2, chain>(k, seed + 9);
      sweep<float, __nv_bfloat16, 256, 16, chain>(k, seed + 10);
    }
  }
  // The same kernels on less data, for the compute-sanitizer runs (which skip "(large)" cases).
  TEST_CASE("BlockReduce tensor cores, __half and __nv_bfloat16: smoke") {
    const data_kind k = data_kind::same_sign_wide;
    check_block_sum<neumaier<float>, __half, 32, 8, fold>(k, 32 * 8 - 1, 16001, 2);
    check_block_sum<neumaier<float>, __half, 96, 8, fold>(k, 96 * 8 - 3, 16002, 2);
    check_block_sum<neumaier<float>, __half, 1024, 8, fold>(k, 1024 * 8 - 1, 16003, 2);
    check_block_sum<neumaier<float>, __half, 128, 1, fold>(k, 100, 16004, 2);
    check_block_sum<float, __half, 128, 16, chain>(k, 128 * 16 - 7, 16005, 2);
    check_block_sum<neumaier<float>, __nv_bfloat16, 256, 16, fold>(k, 256 * 16 - 1, 16006, 2);
    check_block_sum<float, __nv_bfloat16, 256, 2, chain>(k, 300, 16007, 2);
  }
  TEST_CASE("BlockReduce tensor cores, __half and __nv_bfloat16: Inf, NaN and signed zeros") {
    check_specials<neumaier<float>, __half, 128, 8, fold>();
    check_specials<float, __half, 96, 16, chain>();
    check_specials<neumaier<float>, __nv_bfloat16, 256, 8, fold>();
    check_specials<float, __nv_bfloat16, 32, 2, chain>();
  }
}
