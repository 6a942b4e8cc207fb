# reduce/warp.cuh and reduce/block.cuh: one binary, one translation unit per algorithm family
# (keeps each nvcc run small).
tcr_add_test(tcr_test_warp_block GPU
  SOURCES warp_block_shuffle_test.cu warp_block_mma16_test.cu warp_block_mma8_test.cu
          warp_block_mmaf32_test.cu)
