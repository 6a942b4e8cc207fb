# SPDX-License-Identifier: BSD-3-Clause
# compensated/block_sum.cuh (double_carried<float>): host cases, with contraction off and on.
tcr_add_test(tcr_test_compensated_block_sum_contract_off HOST
  SOURCES block_sum_test.cpp
  OPTIONS ${TCR_CONTRACT_OFF_FLAGS})
tcr_add_test(tcr_test_compensated_block_sum_contract_on HOST
  SOURCES block_sum_test.cpp
  OPTIONS ${TCR_CONTRACT_ON_FLAGS})
