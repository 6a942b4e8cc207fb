// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: tcr's segmented sum of f32 (common/seg_tcr_cases.cuh), uniform segments and the
// power-law lengths through offsets.
#include "common/seg_tcr_cases.cuh"

namespace tcr::bench {
namespace {

const case_adder add{[] {
  seg_tcr::add_uniform<float>();
  seg_cases().push_back(powerlaw_case("tcr.offsets", dtype::f32,
                                      "tcr::DeviceSegmentedReduce::Sum, f32, int begin/end offsets "
                                      "(compensated)",
                                      &seg_tcr::sum_offsets<float>));
}};

} // namespace
} // namespace tcr::bench
