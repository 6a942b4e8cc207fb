// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: the toolkit's cub::DeviceSegmentedReduce::Sum of f16 with int begin / end offsets
// (common/seg_cub_peer.cuh).
#include "common/seg_cub_peer.cuh"

namespace tcr::bench {
namespace {

const case_adder add{[] {
  const std::string fn =
      seg_cub::note<__half>("cub::DeviceSegmentedReduce::Sum, int begin/end offsets");
  seg_cases().push_back(
      uniform_case("cub.offsets", dtype_of<__half>(), fn, &seg_cub::sum_offsets<__half>));
}};

} // namespace
} // namespace tcr::bench
