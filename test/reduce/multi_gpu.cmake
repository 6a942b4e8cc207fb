# SPDX-License-Identifier: BSD-3-Clause
# reduce/multi_gpu.cuh tests (included by test/reduce/CMakeLists.txt): one binary, host cases
# (a null communicator) and gpu ones (parts merged in one process, a one-rank communicator, every
# visible GPU a rank). Needs NCCL (the CUDA Toolkit here ships it); without it the test is left
# out with a message.
set(_mg ${CMAKE_CURRENT_LIST_DIR}/multi_gpu_test.cu)
if(NOT EXISTS ${_mg})
  message(FATAL_ERROR "test/reduce/multi_gpu.cmake: ${_mg} does not exist (renamed?)")
endif()
find_package(NCCL)
if(NCCL_FOUND)
  tcr_add_test(tcr_test_multi_gpu HOST GPU SOURCES ${_mg} LIBS NCCL::NCCL TIMEOUT 900)
  # NCCL_NVLS_ENABLE=0: no NVLink multicast (the lent machines' rule; harmless elsewhere).
  set_tests_properties(tcr_test_multi_gpu.gpu PROPERTIES ENVIRONMENT "NCCL_NVLS_ENABLE=0")
else()
  message(STATUS "tcr: NCCL not found: tcr_test_multi_gpu is not built (set NCCL_ROOT)")
endif()
