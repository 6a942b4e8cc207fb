// SPDX-License-Identifier: BSD-3-Clause
// Tests for reduce/block.cuh at block sizes that are not multiples of 32 (and their neighbours),
// first half: Sum (neumaier<float> and float, partial tiles, specials with the sign of zero),
// Reduce (rank order of op) and Dot (dot2<float> and float, with and without num_valid), against
// the exact references and bounds of warp_block_common.cuh.
#include "warp_block_common.cuh"

using namespace tcr::test::wb;

TEST_SUITE("gpu") {
  TEST_CASE("BlockReduce, block sizes 1, 2, 3, 31, 33, 63, 65, 96") {
    check_block_size<1>(90100);
    check_block_size<2>(90200);
    check_block_size<3>(90300);
    check_block_size<31>(90400);
    check_block_size<33>(90500);
    check_block_size<63>(90600);
    check_block_size<65>(90700);
    check_block_size<96>(90800);
  }
}
