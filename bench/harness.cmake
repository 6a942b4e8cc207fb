# SPDX-License-Identifier: BSD-3-Clause
# tcr device-wide benchmarks: the speed harness and the accuracy run, both over one table of cases
# (read-only ceiling, CUB, cuBLAS, tcr), each case group in its own translation unit.
find_package(MPFR REQUIRED)

set(tcr_bench_case_sources
  device_bench_common.cu
  device_bench_ceiling.cu
  device_bench_cub_sum.cu
  device_bench_cub_dot.cu
  device_bench_cublas.cu
  device_bench_tcr_sum.cu
  device_bench_tcr_dot.cu
  device_bench_tcr_norms.cu
  device_bench_tcr_exact.cu
  device_bench_tcr_certified.cu
  device_bench_tcr_pdl.cu)

# An OBJECT library: its objects are linked whole, so the static registrations of every case stay.
add_library(tcr_bench_cases OBJECT ${tcr_bench_case_sources})
target_include_directories(tcr_bench_cases PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(tcr_bench_cases PUBLIC tcr::tcr CCCL::CCCL CUDA::cublas CUDA::cudart)

add_executable(tcr_device_bench device_bench_main.cpp)
target_link_libraries(tcr_device_bench PRIVATE tcr_bench_cases benchmark::benchmark)

# An old tcr tree's DeviceReduce as extra cases of tcr_device_bench (old.<accuracy>.automatic,
# bench/common/old_cases.cuh): -DTCR_BENCH_OLD_SOURCE=<dir>, e.g. `git archive 9824627 | tar -x
# -C <dir>`. Old and new then run in one process, with one harness, one set of buffers and one L2
# flush, so their ratio carries no drift between two programs (scripts/bench-compare). The old
# headers include "reduce/...": the old tree's root goes first on the include path of these TUs
# alone, and they do not link tcr::tcr, so no header of this tree reaches them. tcr_accuracy does
# not get these cases.
set(TCR_BENCH_OLD_SOURCE "" CACHE PATH
  "An old tcr source tree whose DeviceReduce tcr_device_bench also measures (empty: none)")
if(TCR_BENCH_OLD_SOURCE)
  if(NOT EXISTS "${TCR_BENCH_OLD_SOURCE}/reduce/device.cuh")
    message(FATAL_ERROR "TCR_BENCH_OLD_SOURCE=${TCR_BENCH_OLD_SOURCE} holds no reduce/device.cuh")
  endif()
  add_library(tcr_bench_old_cases OBJECT
    device_bench_old_sum.cu device_bench_old_dot.cu device_bench_old_norms.cu)
  target_include_directories(tcr_bench_old_cases BEFORE PRIVATE "${TCR_BENCH_OLD_SOURCE}")
  target_include_directories(tcr_bench_old_cases PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_compile_definitions(tcr_bench_old_cases PRIVATE
    "TCR_BENCH_OLD_SOURCE_PATH=\"${TCR_BENCH_OLD_SOURCE}\"")
  target_compile_features(tcr_bench_old_cases PRIVATE cxx_std_17 cuda_std_17)
  # The old tree's kernel declares an operand array that unary operations leave unused (177).
  target_compile_options(tcr_bench_old_cases PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-diag-suppress=177>)
  target_link_libraries(tcr_bench_old_cases PRIVATE CUDA::cudart)
  target_link_libraries(tcr_device_bench PRIVATE tcr_bench_old_cases)
  add_test(NAME bench.old_cases COMMAND sh -c
    "$<TARGET_FILE:tcr_device_bench> --tcr_list | grep -q '^sum *f32 *old.compensated.automatic'")
endif()

add_executable(tcr_accuracy accuracy.cu)
target_include_directories(tcr_accuracy PRIVATE ${PROJECT_SOURCE_DIR}/test)
target_link_libraries(tcr_accuracy PRIVATE tcr_bench_cases MPFR::MPFR)

# Host-only checks for CI (no GPU needed): the case table registers, and the accuracy sets reach
# their condition numbers with finite exact references.
add_test(NAME bench.cases COMMAND tcr_device_bench --tcr_list)
add_test(NAME bench.accuracy_sets COMMAND tcr_accuracy --sets_only --n=16384)
set_tests_properties(bench.cases bench.accuracy_sets PROPERTIES TIMEOUT 300)

# Launch-tuning variants of tcr's kernel (bench/device_bench_tuning.cu): off by default. It calls
# internals of reduce/detail/ (tcr::detail::device::run and launch_tuning) and builds only where
# they still exist.
option(TCR_BENCH_TUNING "Build tcr_tuning_bench (launch-tuning variants of tcr's kernel)" OFF)
if(TCR_BENCH_TUNING)
  add_executable(tcr_tuning_bench device_bench_main.cpp device_bench_tuning.cu)
  target_link_libraries(tcr_tuning_bench PRIVATE tcr_bench_cases benchmark::benchmark)
endif()

# CUB of a newer CCCL as a peer (bench/device_bench_cub35_*.cu): -DTCR_CUB35_INCLUDE=<dir>, the include
# folder of the PyPI package nvidia-cuda-cccl 13.3.x (CCCL 3.5, headers only), builds
# tcr_bench_cub35 with <dir> first on its include path (-I, ahead of the toolkit's CCCL). It links
# neither tcr nor the toolkit's CCCL target; only this program sees those headers.
set(TCR_CUB35_INCLUDE "" CACHE PATH "Include folder of CCCL 3.5 headers for tcr_bench_cub35 (empty: not built)")
if(TCR_CUB35_INCLUDE)
  if(NOT EXISTS "${TCR_CUB35_INCLUDE}/cub/device/device_reduce.cuh")
    message(FATAL_ERROR "TCR_CUB35_INCLUDE=${TCR_CUB35_INCLUDE} holds no cub/device/device_reduce.cuh")
  endif()
  add_executable(tcr_bench_cub35 device_bench_main.cpp device_bench_common.cu
    device_bench_cub35_sum.cu device_bench_cub35_dot.cu)
  target_include_directories(tcr_bench_cub35 BEFORE PRIVATE "${TCR_CUB35_INCLUDE}")
  target_include_directories(tcr_bench_cub35 PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_compile_features(tcr_bench_cub35 PRIVATE cxx_std_17 cuda_std_17)
  target_link_libraries(tcr_bench_cub35 PRIVATE benchmark::benchmark CUDA::cudart)
  add_test(NAME bench.cub35_cases COMMAND tcr_bench_cub35 --tcr_list)
endif()

# Diagnostics of the certify-first grid's phases (bench/certify_probe.cu): not built by default,
# it calls internals of reduce/detail/ (reduce_block, certify_first_of).
add_executable(tcr_certify_probe EXCLUDE_FROM_ALL certify_probe.cu)
target_link_libraries(tcr_certify_probe PRIVATE tcr::tcr CCCL::CCCL CUDA::cudart)
