// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: CCCL 3.5's segmented sum of f32 (common/seg_cub35_cases.cuh).
#include "common/seg_cub35_cases.cuh"

namespace tcr::bench {
namespace {

const case_adder add{[] { seg_cub35::add<float>(); }};

} // namespace
} // namespace tcr::bench
