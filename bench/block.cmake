# Block-level benchmark (issue 3): tcr BlockReduce (shuffle tree and tensor-core chain/fold, fast
# and compensated) against cub::BlockReduce's plain sum (result in thread 0, and broadcast to all
# threads as tcr delivers it), per input type, per block-call. The per-item work must stay inside
# the timed loop: notes/block-cost.md section 11 and its appendix B check that in the SASS.
add_executable(tcr_bench_block block_bench.cu)
target_link_libraries(tcr_bench_block PRIVATE tcr::tcr CCCL::CCCL benchmark::benchmark CUDA::cudart)

# Error of the warp-level tile reduction per type, policy and chain length R = 1..8 against MPFR:
#   tcr_mma_characterize bench/results/mma_characterize_h200.json [warps]
if(NOT TARGET MPFR::MPFR)
  find_package(MPFR REQUIRED)
endif()
add_executable(tcr_mma_characterize mma_characterize.cu)
target_link_libraries(tcr_mma_characterize PRIVATE tcr::tcr MPFR::MPFR CUDA::cudart)
