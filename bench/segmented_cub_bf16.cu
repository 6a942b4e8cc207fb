// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: the toolkit's cub::DeviceSegmentedReduce::Sum of bf16 with int begin / end
// offsets (common/seg_cub_peer.cuh).
#include "common/seg_cub_peer.cuh"

namespace tcr::bench {
namespace {

const case_adder add{[] {
  const std::string fn =
      seg_cub::note<__nv_bfloat16>("cub::DeviceSegmentedReduce::Sum, int begin/end offsets");
  seg_cases().push_back(uniform_case("cub.offsets", dtype_of<__nv_bfloat16>(), fn,
                                     &seg_cub::sum_offsets<__nv_bfloat16>));
}};

} // namespace
} // namespace tcr::bench
