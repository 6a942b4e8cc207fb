// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: cub::DeviceSegmentedReduce::Sum as a peer of the segmented cases, for whichever
// CUB comes first on the include path (the toolkit's CCCL 3.0.1 in tcr_bench_segmented, CCCL 3.5
// in tcr_bench_segmented_cub35). f32 input goes in as it is; f16 and bf16 through a
// thrust::transform_iterator widening each item to float, as users do (CUB's Sum of __half would
// accumulate in __half), so the results are float either way.
#pragma once

#include <cub/device/device_segmented_reduce.cuh>
#include <cub/version.cuh>
#include <thrust/iterator/transform_iterator.h>
#include <string>
#include <type_traits>
#include "common/peer_ops.hpp"
#include "common/seg_registry.hpp"

namespace tcr::bench::seg_cub {

// The input as CUB reads it: the pointer for f32, a widening transform_iterator otherwise.
template <class In>
auto input_of(const seg_args& a) {
  const auto* x = static_cast<const In*>(a.x);
  if constexpr (std::is_same_v<In, float>)
    return x;
  else
    return thrust::make_transform_iterator(x, peer::widen_op<In>{});
}

// Sum with begin / end offsets (offsets, offsets + 1), int offsets.
template <class In>
cudaError_t sum_offsets(void* temp, std::size_t& bytes, const seg_args& a) {
  return cub::DeviceSegmentedReduce::Sum(temp, bytes, input_of<In>(a), static_cast<float*>(a.out),
                                         a.segments, a.offsets, a.offsets + 1, a.stream);
}

// The case note of a CUB call: what it is, how f16 / bf16 input goes in, the CCCL it was compiled
// against.
template <class In>
std::string note(const std::string& what) {
  return what +
         (std::is_same_v<In, float> ? ""
                                    : ", input widened to f32 by a thrust::transform_iterator") +
         " (CCCL " + std::to_string(CCCL_MAJOR_VERSION) + "." + std::to_string(CCCL_MINOR_VERSION) +
         "." + std::to_string(CCCL_PATCH_VERSION) + ")";
}

} // namespace tcr::bench::seg_cub
