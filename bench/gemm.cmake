# SPDX-License-Identifier: BSD-3-Clause
# FP32 GEMM (issue 15): tcr::gemm::sgemm (examples/gemm/gemm.cuh) at its defaults, in four other
# tunings and with its fused row statistics, against cuBLAS SGEMM, TF32, FP16, the three-GemmEx
# fp16 split and BF16x9 emulation, with the error of each against cuBLAS DGEMM (tcr_bench_gemm,
# bench/gemm_bench.cu; bench/gemm_report.py reports). One translation unit. Reuses the harness
# objects of segmented.cmake (tcr_bench_seg_harness: no CUB or tcr header).
add_executable(tcr_bench_gemm gemm_bench.cu)
target_link_libraries(tcr_bench_gemm PRIVATE tcr_bench_seg_harness tcr::tcr CUDA::cublas
  benchmark::benchmark)

# Host-only check for CI (no GPU needed): the cases register with the expected names.
add_test(NAME bench.gemm_cases COMMAND sh -c
  "$<TARGET_FILE:tcr_bench_gemm> --tcr_list > gemm_cases.txt && grep -c '^gemm' gemm_cases.txt && grep -q '^gemm/tcr/uniform/4096x4096x4096 ' gemm_cases.txt && grep -q '^gemm/cublas.3xf16/spread/1024x1024x65536 ' gemm_cases.txt && grep -q '^gemm/tcr.c8.nocross/uniform/8192x8192x8192 ' gemm_cases.txt && grep -q '^gemm.ksweep/cublas.tf32/spread/1024x1024x256 ' gemm_cases.txt && $<TARGET_FILE:tcr_bench_gemm> --benchmark_list_tests | grep -q '^gemm/cublas.sgemm/uniform/1024x1024x1024/'")
set_tests_properties(bench.gemm_cases PROPERTIES TIMEOUT 60)
