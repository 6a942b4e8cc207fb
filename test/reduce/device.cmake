# reduce/device.cuh and compensated/wide.cuh tests (included by test/reduce/CMakeLists.txt).
set(_dev ${CMAKE_CURRENT_LIST_DIR})
# wide.cuh on the host, with the host compiler contracting wherever it may and with it off.
tcr_add_test(tcr_test_device_wide_contract_off HOST
  SOURCES ${_dev}/device_wide_test.cpp OPTIONS ${TCR_CONTRACT_OFF_FLAGS})
tcr_add_test(tcr_test_device_wide_contract_on HOST
  SOURCES ${_dev}/device_wide_test.cpp OPTIONS ${TCR_CONTRACT_ON_FLAGS})
foreach(t IN ITEMS sum dot_nrm2 api fast large)
  if(EXISTS ${_dev}/device_${t}_test.cu)
    tcr_add_test(tcr_test_device_${t} GPU SOURCES ${_dev}/device_${t}_test.cu TIMEOUT 1200)
  endif()
endforeach()
