# SPDX-License-Identifier: BSD-3-Clause
# Segmented and batched reductions (issue 12): tcr::DeviceSegmentedReduce::Sum (fixed size,
# offsets, Accuracy::fast) of f32 / f16 / bf16, the toolkit's cub::DeviceSegmentedReduce::Sum
# with offsets, tcr::DeviceBatchedReduce Dot / Nrm2 (pointer arrays, strided) and
# cublasSgemmStridedBatched, each against the read-only kernel over the same bytes
# (tcr_bench_segmented), and CCCL 3.5's fixed-size and offset Sum in a program of its own
# (tcr_bench_segmented_cub35, with -DTCR_CUB35_INCLUDE). Both share bench/segmented_main.cpp and
# the harness; scripts/bench-segmented runs them and bench/segmented_report.py reports. One
# translation unit per method and input type (nvcc is slow).

# The harness's device side, without any CUB or tcr header: shared by both programs.
add_library(tcr_bench_seg_harness OBJECT device_bench_common.cu)
target_include_directories(tcr_bench_seg_harness PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
target_compile_features(tcr_bench_seg_harness PUBLIC cxx_std_17 cuda_std_17)
target_link_libraries(tcr_bench_seg_harness PUBLIC CUDA::cudart)

add_executable(tcr_bench_segmented segmented_main.cpp
  segmented_tcr_f32.cu segmented_tcr_f16.cu segmented_tcr_bf16.cu segmented_tcr_e4m3.cu
  segmented_cub_f32.cu segmented_cub_f16.cu segmented_cub_bf16.cu
  segmented_tcr_f64.cu segmented_read.cu segmented_batched.cu
  segmented_probe_f32.cu) # diagnostics: a lean offsets kernel, not a tcr path
target_link_libraries(tcr_bench_segmented PRIVATE tcr_bench_seg_harness tcr::tcr CCCL::CCCL
  CUDA::cublas benchmark::benchmark)

# Host-only checks for CI (no GPU needed): the cases register with the expected names. With no
# CUDA device the programs measure nothing and exit 1; --tcr_list needs none.
add_test(NAME bench.seg_cases COMMAND sh -c
  "$<TARGET_FILE:tcr_bench_segmented> --tcr_list > seg_cases.txt && grep -c '^seg/' seg_cases.txt && grep -q '^seg/tcr.fixed/f32/sum/8/28 ' seg_cases.txt && grep -q '^seg/cub.offsets/bf16/sum/16384/26 ' seg_cases.txt && grep -q '^seg/read/f32/sum.powerlaw/var/26 ' seg_cases.txt && grep -q '^seg/cublas.gemm_strided/f32/dot.strided/1024/16 ' seg_cases.txt")

if(TCR_CUB35_INCLUDE)
  add_executable(tcr_bench_segmented_cub35 segmented_main.cpp
    segmented_cub35_f32.cu segmented_cub35_f16.cu segmented_cub35_bf16.cu)
  # CCCL 3.5 first (-I, ahead of the toolkit's CCCL); neither tcr nor the toolkit's CCCL target.
  target_include_directories(tcr_bench_segmented_cub35 BEFORE PRIVATE "${TCR_CUB35_INCLUDE}")
  target_link_libraries(tcr_bench_segmented_cub35 PRIVATE tcr_bench_seg_harness
    benchmark::benchmark)
  add_test(NAME bench.seg_cub35_cases COMMAND sh -c
    "$<TARGET_FILE:tcr_bench_segmented_cub35> --tcr_list > seg_cub35_cases.txt && grep -c '^seg/' seg_cub35_cases.txt && grep -q '^seg/cub35.fixed/f32/sum/65536/28 ' seg_cub35_cases.txt && grep -q '^seg/cub35.offsets/f16/sum/8/26 ' seg_cub35_cases.txt")
  set_tests_properties(bench.seg_cub35_cases PROPERTIES TIMEOUT 60)
endif()
set_tests_properties(bench.seg_cases PROPERTIES TIMEOUT 60)
