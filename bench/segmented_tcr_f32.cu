// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: tcr's segmented sum of f32 (common/seg_tcr_cases.cuh), uniform segments and the
// power-law lengths through offsets.
#include "common/seg_tcr_cases.cuh"

namespace tcr::bench {
namespace {

const case_adder add{[] {
  seg_tcr::add_uniform<float>();
  // Accuracy::correctly_rounded (exact_sum<float> per lane): what the exact mode costs.
  const auto exact = [](const char* impl, const char* note, auto call) {
    seg_case c = uniform_case(impl, dtype::f32, note, call);
    c.scales = {26};
    seg_cases().push_back(std::move(c));
  };
  exact("tcr.fixed.cr",
        "tcr::DeviceSegmentedReduce::Sum, f32 into f32, fixed segment_size, correctly rounded",
        [](void* temp, std::size_t& bytes, const seg_args& a) {
          return seg_tcr::sum_fixed<float>(temp, bytes, a, {Accuracy::correctly_rounded});
        });
  exact("tcr.offsets.cr",
        "tcr::DeviceSegmentedReduce::Sum, f32 into f32, int begin/end offsets, correctly rounded",
        [](void* temp, std::size_t& bytes, const seg_args& a) {
          return DeviceSegmentedReduce::Sum(
              temp, bytes, static_cast<const float*>(a.x), static_cast<float*>(a.out), a.segments,
              a.offsets, a.offsets + 1, a.stream, ReduceOptions{Accuracy::correctly_rounded});
        });
  seg_cases().push_back(powerlaw_case("tcr.offsets", dtype::f32,
                                      "tcr::DeviceSegmentedReduce::Sum, f32, int begin/end offsets "
                                      "(compensated)",
                                      &seg_tcr::sum_offsets<float>));
}};

} // namespace
} // namespace tcr::bench
