// SPDX-License-Identifier: BSD-3-Clause
// Tests for reduce/block.cuh at block sizes that are not multiples of 32 (and their neighbours),
// second half (see warp_block_sizes_a_test.cu).
#include "warp_block_common.cuh"

using namespace tcr::test::wb;

TEST_SUITE("gpu") {
  TEST_CASE("BlockReduce, block sizes 100, 127, 255, 257, 500, 1000, 1023, 1024") {
    check_block_size<100>(91100);
    check_block_size<127>(91200);
    check_block_size<255>(91300);
    check_block_size<257>(91400);
    check_block_size<500>(91500);
    check_block_size<1000>(91600);
    check_block_size<1023>(91700);
    check_block_size<1024>(91800);
  }
}
