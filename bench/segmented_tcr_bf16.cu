// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: tcr's segmented sum of bf16 (common/seg_tcr_cases.cuh).
#include "common/seg_tcr_cases.cuh"

namespace tcr::bench {
namespace {

const case_adder add{[] { seg_tcr::add_uniform<__nv_bfloat16>(); }};

} // namespace
} // namespace tcr::bench
