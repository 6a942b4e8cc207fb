// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: tcr's segmented sum of e4m3, tensor cores against CUDA cores
// (common/seg_tcr_cases.cuh).
#include "common/seg_tcr_cases.cuh"

namespace tcr::bench {
namespace {

const case_adder add{[] { seg_tcr::add_e4m3(); }};

} // namespace
} // namespace tcr::bench
