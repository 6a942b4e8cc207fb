# tcr device-wide benchmarks (issue 4): the speed harness and the accuracy run, both over one table
# of cases (read-only ceiling, CUB, cuBLAS, tcr). The tcr entries live in their own translation
# units and are built once reduce/device.cuh exists, so the peers and the harness build without it.
find_package(MPFR REQUIRED)

set(tcr_bench_case_sources
  device_bench_common.cu
  device_bench_ceiling.cu
  device_bench_cub_sum.cu
  device_bench_cub_dot.cu
  device_bench_cublas.cu)
if(EXISTS ${PROJECT_SOURCE_DIR}/reduce/device.cuh)
  list(APPEND tcr_bench_case_sources
    device_bench_tcr_sum.cu
    device_bench_tcr_dot.cu
    device_bench_tcr_norms.cu)
else()
  message(STATUS "tcr benchmarks: reduce/device.cuh not found, benchmarking the peers only")
endif()

# An OBJECT library: its objects are linked whole, so the static registrations of every case stay.
add_library(tcr_bench_cases OBJECT ${tcr_bench_case_sources})
target_include_directories(tcr_bench_cases PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(tcr_bench_cases PUBLIC tcr::tcr CCCL::CCCL CUDA::cublas CUDA::cudart)

add_executable(tcr_device_bench device_bench_main.cpp)
target_link_libraries(tcr_device_bench PRIVATE tcr_bench_cases benchmark::benchmark)

add_executable(tcr_accuracy accuracy.cu)
target_include_directories(tcr_accuracy PRIVATE ${PROJECT_SOURCE_DIR}/test)
target_link_libraries(tcr_accuracy PRIVATE tcr_bench_cases MPFR::MPFR)

# Host-only checks for CI (no GPU needed): the case table registers, and the accuracy sets reach
# their condition numbers with finite exact references.
add_test(NAME bench.cases COMMAND tcr_device_bench --tcr_list)
add_test(NAME bench.accuracy_sets COMMAND tcr_accuracy --sets_only --n=16384)
set_tests_properties(bench.cases bench.accuracy_sets PROPERTIES TIMEOUT 300)

# Launch-tuning variants of tcr's kernel (bench/device_bench_tuning.cu): off by default, built only
# to choose detail::device::default_tuning from measurements.
option(TCR_BENCH_TUNING "Build tcr_tuning_bench (launch-tuning variants of tcr's kernel)" OFF)
if(TCR_BENCH_TUNING AND EXISTS ${PROJECT_SOURCE_DIR}/reduce/device.cuh)
  add_executable(tcr_tuning_bench device_bench_main.cpp device_bench_tuning.cu)
  target_link_libraries(tcr_tuning_bench PRIVATE tcr_bench_cases benchmark::benchmark)
endif()
