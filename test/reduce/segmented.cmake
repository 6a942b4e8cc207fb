# SPDX-License-Identifier: BSD-3-Clause
# reduce/segmented.cuh tests (included by test/reduce/CMakeLists.txt): segmented_<t>_test.cu,
# each one binary; every file listed must exist. api and teams have host cases as well as gpu
# ones.
set(_seg ${CMAKE_CURRENT_LIST_DIR})
set(TCR_SEGMENTED_TESTS api sum wide teams chunks rows exact exact_dot exact_f64)
foreach(t IN LISTS TCR_SEGMENTED_TESTS)
  if(NOT EXISTS ${_seg}/segmented_${t}_test.cu)
    message(FATAL_ERROR "test/reduce/segmented.cmake lists ${t}, but ${_seg}/segmented_${t}_test.cu "
                        "does not exist (renamed? update TCR_SEGMENTED_TESTS)")
  endif()
  set(_kinds GPU)
  if(t STREQUAL "api" OR t STREQUAL "teams" OR t STREQUAL "exact" OR t STREQUAL "exact_f64")
    set(_kinds HOST GPU)
  endif()
  tcr_add_test(tcr_test_segmented_${t} ${_kinds} SOURCES ${_seg}/segmented_${t}_test.cu
    TIMEOUT 1200)
endforeach()
