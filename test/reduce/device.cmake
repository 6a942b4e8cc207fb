# SPDX-License-Identifier: BSD-3-Clause
# reduce/device.cuh and compensated/chunked.cuh tests (included by test/reduce/CMakeLists.txt).
set(_dev ${CMAKE_CURRENT_LIST_DIR})
# chunked.cuh on the host, with the host compiler contracting wherever it may and with it off.
tcr_add_test(tcr_test_device_wide_contract_off HOST
  SOURCES ${_dev}/device_wide_test.cpp OPTIONS ${TCR_CONTRACT_OFF_FLAGS})
tcr_add_test(tcr_test_device_wide_contract_on HOST
  SOURCES ${_dev}/device_wide_test.cpp OPTIONS ${TCR_CONTRACT_ON_FLAGS})
# The device test files, device_<t>_test.cu, each one binary; every file listed must exist.
set(TCR_DEVICE_TESTS sum dot_nrm2 api fast large dropin iterators exact exact_dot exact_dot_f64
    exact_variants)
foreach(t IN LISTS TCR_DEVICE_TESTS)
  if(NOT EXISTS ${_dev}/device_${t}_test.cu)
    message(FATAL_ERROR "test/reduce/device.cmake lists ${t}, but ${_dev}/device_${t}_test.cu "
                        "does not exist (renamed? update TCR_DEVICE_TESTS)")
  endif()
  tcr_add_test(tcr_test_device_${t} GPU SOURCES ${_dev}/device_${t}_test.cu TIMEOUT 1200)
endforeach()
# Certified results (compensated/certified.cuh through DeviceReduce): host cases (argument
# checks) and GPU cases.
tcr_add_test(tcr_test_device_certified HOST GPU SOURCES ${_dev}/device_certified_test.cu
  TIMEOUT 1200)
