# SPDX-License-Identifier: BSD-3-Clause
# Block-level benchmark: tcr BlockReduce (plain, Sum2, double-carried, exact tensor cores; Sum and
# Dot) against cub::BlockReduce's plain sum, per input type, block size and items per thread, per
# block-call (bench/block_bench.cuh). One translation unit per input type, for parallel builds.
add_executable(tcr_bench_block block_bench.cu block_bench_f32.cu block_bench_f64.cu
  block_bench_f16.cu block_bench_bf16.cu block_bench_e4m3.cu block_bench_e5m2.cu)
target_link_libraries(tcr_bench_block PRIVATE tcr::tcr CCCL::CCCL benchmark::benchmark CUDA::cudart)
target_include_directories(tcr_bench_block PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})

# Error of the warp-level tile reduction per type, policy and chain length R = 1..8 against MPFR:
#   tcr_mma_characterize OUT.json [warps]
# (MPFR is only needed for this one; without its headers the block benchmark still builds.)
if(NOT TARGET MPFR::MPFR)
  find_package(MPFR QUIET)
endif()
if(TARGET MPFR::MPFR)
  add_executable(tcr_mma_characterize mma_characterize.cu)
  target_link_libraries(tcr_mma_characterize PRIVATE tcr::tcr MPFR::MPFR CUDA::cudart)
endif()
