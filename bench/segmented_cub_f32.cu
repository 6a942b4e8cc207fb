// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: the toolkit's cub::DeviceSegmentedReduce::Sum of f32 with int begin / end offsets
// (common/seg_cub_peer.cuh).
#include "common/seg_cub_peer.cuh"

namespace tcr::bench {
namespace {

const case_adder add{[] {
  const std::string fn =
      seg_cub::note<float>("cub::DeviceSegmentedReduce::Sum, int begin/end offsets");
  seg_cases().push_back(
      uniform_case("cub.offsets", dtype_of<float>(), fn, &seg_cub::sum_offsets<float>));
  seg_cases().push_back(powerlaw_case("cub.offsets", dtype::f32, fn, &seg_cub::sum_offsets<float>));
}};

} // namespace
} // namespace tcr::bench
