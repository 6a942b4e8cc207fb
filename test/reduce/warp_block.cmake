# SPDX-License-Identifier: BSD-3-Clause
# reduce/warp.cuh and reduce/block.cuh: one binary, a few instantiations per translation unit
# (keeps each nvcc run small).
tcr_add_test(tcr_test_warp_block GPU
  SOURCES warp_block_shuffle_test.cu warp_block_mma16_test.cu warp_block_mma8_test.cu
          warp_block_mmaf32_test.cu warp_block_exact_test.cu warp_block_sizes_a_test.cu
          warp_block_sizes_b_test.cu warp_block_logical_test.cu
          warp_block_segmented_test.cu)
