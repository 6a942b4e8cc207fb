// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: tcr::DeviceSegmentedReduce::Sum as a segmented case, native input (f32, f16,
// bf16) into float results: the fixed-size overload (tcr.fixed), begin / end offsets (tcr.offsets,
// int offsets), and the fixed-size overload with Accuracy::fast (tcr.fixed.fast; the segmented
// kernel runs its compensated path for it, so this measures what the option costs or saves), and
// for f16 the tensor-core row path (tcr.fixed.tc, Accuracy::fast and Engine::tensor_core).
// One translation unit per input type includes this and calls add_uniform<In>().
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <string>
#include <type_traits>
#include <vector>
#include "common/seg_registry.hpp"
#include <tcr/reduce/segmented.cuh>

namespace tcr::bench::seg_tcr {

template <class In>
cudaError_t sum_fixed(void* temp, std::size_t& bytes, const seg_args& a, ReduceOptions o) {
  return DeviceSegmentedReduce::Sum(temp, bytes, static_cast<const In*>(a.x),
                                    static_cast<float*>(a.out), a.segments, a.size, a.stream, o);
}

template <class In>
cudaError_t sum_offsets(void* temp, std::size_t& bytes, const seg_args& a) {
  return DeviceSegmentedReduce::Sum(temp, bytes, static_cast<const In*>(a.x),
                                    static_cast<float*>(a.out), a.segments, a.offsets,
                                    a.offsets + 1, a.stream);
}

template <class In>
void add_uniform() {
  const dtype t = dtype_of<In>();
  const std::string fn = "tcr::DeviceSegmentedReduce::Sum, " + std::string(name(t)) + " into f32";
  seg_cases().push_back(uniform_case("tcr.fixed", t, fn + ", fixed segment_size (compensated)",
                                     [](void* temp, std::size_t& bytes, const seg_args& a) {
                                       return sum_fixed<In>(temp, bytes, a, {});
                                     }));
  seg_cases().push_back(uniform_case("tcr.offsets", t, fn + ", int begin/end offsets (compensated)",
                                     &sum_offsets<In>));
  seg_case fast = uniform_case("tcr.fixed.fast", t, fn + ", fixed segment_size, Accuracy::fast",
                               [](void* temp, std::size_t& bytes, const seg_args& a) {
                                 return sum_fixed<In>(temp, bytes, a, {Accuracy::fast});
                               });
  fast.sizes = fast_sizes();
  fast.scales = {26};
  seg_cases().push_back(std::move(fast));
  if constexpr (std::is_same_v<In, __half>) {
    // The tensor-core row path (sizes that are multiples of 16 up to 4096), against the CUDA
    // cores (tcr.fixed.fast.cc); tcr.fixed.fast is what Engine::automatic picks.
    seg_case rows = uniform_case(
        "tcr.fixed.tc", t, fn + ", fixed segment_size, Accuracy::fast, Engine::tensor_core",
        [](void* temp, std::size_t& bytes, const seg_args& a) {
          return sum_fixed<In>(temp, bytes, a, {Accuracy::fast, Engine::tensor_core});
        });
    rows.sizes = {16, 32, 64, 128, 256, 512, 1024, 2048, 4096};
    rows.scales = {26};
    seg_cases().push_back(std::move(rows));
    seg_case cc = uniform_case(
        "tcr.fixed.fast.cc", t, fn + ", fixed segment_size, Accuracy::fast, Engine::cuda_core",
        [](void* temp, std::size_t& bytes, const seg_args& a) {
          return sum_fixed<In>(temp, bytes, a, {Accuracy::fast, Engine::cuda_core});
        });
    cc.sizes = {16, 32, 64, 128, 256, 512, 1024, 2048, 4096};
    cc.scales = {26};
    seg_cases().push_back(std::move(cc));
  }
}

// e4m3 (compensated, fixed size): the tensor-core row path (tcr.fixed.tc, Engine::tensor_core;
// exact MMA chains) against the CUDA cores (tcr.fixed.cc, Engine::cuda_core), at the sizes the
// row path takes (multiples of 32 up to 4096).
inline void add_e4m3() {
  using In = __nv_fp8_e4m3;
  const dtype t = dtype_of<In>();
  const std::string fn = "tcr::DeviceSegmentedReduce::Sum, e4m3 into f32, fixed segment_size";
  const std::vector<int> sizes{32, 64, 128, 256, 512, 1024, 2048, 4096};
  seg_case tc = uniform_case(
      "tcr.fixed.tc", t, fn + ", Engine::tensor_core",
      [](void* temp, std::size_t& bytes, const seg_args& a) {
        return sum_fixed<In>(temp, bytes, a, {Accuracy::compensated, Engine::tensor_core});
      });
  tc.sizes = sizes;
  tc.scales = {26};
  seg_cases().push_back(std::move(tc));
  seg_case cc = uniform_case(
      "tcr.fixed.cc", t, fn + ", Engine::cuda_core",
      [](void* temp, std::size_t& bytes, const seg_args& a) {
        return sum_fixed<In>(temp, bytes, a, {Accuracy::compensated, Engine::cuda_core});
      });
  cc.sizes = sizes;
  cc.scales = {26};
  seg_cases().push_back(std::move(cc));
}

} // namespace tcr::bench::seg_tcr
