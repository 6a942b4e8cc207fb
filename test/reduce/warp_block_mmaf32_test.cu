// SPDX-License-Identifier: BSD-3-Clause
// Tests for reduce/block.cuh, tensor-core algorithms on float items (split into bf16 parts):
// block sizes, items per thread, partial tiles, data kinds incl. GenSum, specials (bounds and
// harness in warp_block_common.cuh).
#include "warp_block_common.cuh"

using namespace tcr::test::wb;
using tcr::neumaier;

TEST_SUITE("gpu") {
  TEST_CASE(
      "BlockReduce tensor cores, float (bf16 parts): block sizes and items per thread (large)") {
    for (data_kind k :
         {data_kind::uniform, data_kind::same_sign_wide, data_kind::ill_conditioned}) {
      const std::uint64_t seed = 90000 + 1000 * int(k);
      sweep<neumaier<float>, float, 64, 8, fold>(k, seed + 1);
      sweep<neumaier<float>, float, 256, 1, fold>(k, seed + 2);
      sweep<neumaier<float>, float, 256, 16, fold>(k, seed + 3);
      sweep<float, float, 96, 8, chain>(k, seed + 4);
      sweep<float, float, 512, 4, chain>(k, seed + 5);
    }
  }
  // The same kernels on less data, for the compute-sanitizer runs (which skip "(large)" cases).
  TEST_CASE("BlockReduce tensor cores, float: smoke") {
    const data_kind k = data_kind::ill_conditioned;
    check_block_sum<neumaier<float>, float, 64, 8, fold>(k, 64 * 8 - 1, 18001, 2);
    check_block_sum<neumaier<float>, float, 256, 16, fold>(k, 256 * 16 - 3, 18002, 2);
    check_block_sum<float, float, 96, 8, chain>(k, 96 * 8 - 1, 18003, 2);
  }
  TEST_CASE("BlockReduce tensor cores, float: Inf, NaN and signed zeros") {
    check_specials<neumaier<float>, float, 128, 8, fold>();
    check_specials<float, float, 256, 4, chain>();
  }
}
