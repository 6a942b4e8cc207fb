// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: CCCL 3.5's cub::DeviceSegmentedReduce::Sum in tcr_bench_segmented_cub35, built
// only with -DTCR_CUB35_INCLUDE=<dir> (see common/cub35_peer.cuh for how those headers come
// first): its fixed-size overload (cub35.fixed, CCCL 3.2's Sum(..., num_segments, segment_size,
// stream)) and its begin / end offsets (cub35.offsets, the same call as the toolkit CUB's peer).
// No tcr header reaches this program. One translation unit per input type calls add<In>().
#pragma once

#include <cuda/version>
#include <string>
#include "common/seg_cub_peer.cuh"

#if CCCL_VERSION < 3005000
#error                                                                                             \
    "tcr_bench_segmented_cub35 needs CCCL 3.5 or newer first on the include path (-DTCR_CUB35_INCLUDE=<dir>)"
#endif

namespace tcr::bench::seg_cub35 {

template <class In>
cudaError_t sum_fixed(void* temp, std::size_t& bytes, const seg_args& a) {
  return cub::DeviceSegmentedReduce::Sum(temp, bytes, seg_cub::input_of<In>(a),
                                         static_cast<float*>(a.out), a.segments, a.size, a.stream);
}

template <class In>
void add() {
  const dtype t = dtype_of<In>();
  seg_cases().push_back(uniform_case(
      "cub35.fixed", t, seg_cub::note<In>("cub::DeviceSegmentedReduce::Sum, fixed segment_size"),
      &sum_fixed<In>));
  seg_cases().push_back(
      uniform_case("cub35.offsets", t,
                   seg_cub::note<In>("cub::DeviceSegmentedReduce::Sum, int begin/end offsets"),
                   &seg_cub::sum_offsets<In>));
}

} // namespace tcr::bench::seg_cub35
