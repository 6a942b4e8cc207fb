# SPDX-License-Identifier: BSD-3-Clause
# reduce/batched.cuh tests (included by test/reduce/CMakeLists.txt): one binary, host cases
# (size queries, bad input, overloads) and gpu ones.
set(_batched ${CMAKE_CURRENT_LIST_DIR}/batched_test.cu)
if(NOT EXISTS ${_batched})
  message(FATAL_ERROR "test/reduce/batched.cmake: ${_batched} does not exist (renamed?)")
endif()
tcr_add_test(tcr_test_batched HOST GPU SOURCES ${_batched} TIMEOUT 1200)
