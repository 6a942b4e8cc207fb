# SPDX-License-Identifier: BSD-3-Clause
# tcr::MultiGpuReduce (issue 16) against a local CUB sum plus ncclAllReduce, every visible GPU a
# rank (tcr_bench_multi_gpu). Needs NCCL (the CUDA Toolkit here ships it); left out without it.
find_package(NCCL)
if(NCCL_FOUND)
  add_executable(tcr_bench_multi_gpu multi_gpu_bench.cu)
  target_compile_features(tcr_bench_multi_gpu PRIVATE cxx_std_17 cuda_std_17)
  target_link_libraries(tcr_bench_multi_gpu PRIVATE tcr::tcr CCCL::CCCL NCCL::NCCL CUDA::cudart
    benchmark::benchmark)
else()
  message(STATUS "tcr: NCCL not found: tcr_bench_multi_gpu is not built (set NCCL_ROOT)")
endif()
