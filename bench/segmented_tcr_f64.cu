// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: segmented sums of f64 into double results: tcr::DeviceSegmentedReduce::Sum in
// the compensated default (tcr.fixed) and correctly rounded (tcr.fixed.cr, tcr.offsets.cr: the
// kernel of reduce/detail/segmented_exact_f64_kernel.cuh), the toolkit's
// cub::DeviceSegmentedReduce::Sum with int begin / end offsets (cub.offsets), and the read-only
// kernel over the same bytes (read), 2^26 doubles (512 MB).
#include <cub/device/device_segmented_reduce.cuh>
#include <tcr/reduce/segmented.cuh>
#include "common/seg_registry.hpp"

namespace tcr::bench {
namespace {

std::vector<int> f64_sizes() {
  return {8, 32, 128, 512, 2048, 4096, 16384};
}

seg_case f64_case(const char* impl, const char* note,
                  std::function<cudaError_t(void*, std::size_t&, const seg_args&)> f) {
  seg_case c = uniform_case(impl, dtype::f64, note, std::move(f));
  c.sizes = f64_sizes();
  c.scales = {26};
  return c;
}

cudaError_t fixed(void* temp, std::size_t& bytes, const seg_args& a, ReduceOptions o) {
  return DeviceSegmentedReduce::Sum(temp, bytes, static_cast<const double*>(a.x),
                                    static_cast<double*>(a.out), a.segments, a.size, a.stream, o);
}

const case_adder add{[] {
  seg_cases().push_back(f64_case(
      "tcr.fixed",
      "tcr::DeviceSegmentedReduce::Sum, f64 into f64, fixed segment_size (compensated)",
      [](void* temp, std::size_t& bytes, const seg_args& a) { return fixed(temp, bytes, a, {}); }));
  seg_cases().push_back(f64_case(
      "tcr.fixed.cr",
      "tcr::DeviceSegmentedReduce::Sum, f64 into f64, fixed segment_size, correctly rounded",
      [](void* temp, std::size_t& bytes, const seg_args& a) {
        return fixed(temp, bytes, a, {Accuracy::correctly_rounded});
      }));
  seg_cases().push_back(f64_case(
      "tcr.offsets.cr",
      "tcr::DeviceSegmentedReduce::Sum, f64 into f64, int begin/end offsets, correctly rounded",
      [](void* temp, std::size_t& bytes, const seg_args& a) {
        return DeviceSegmentedReduce::Sum(
            temp, bytes, static_cast<const double*>(a.x), static_cast<double*>(a.out), a.segments,
            a.offsets, a.offsets + 1, a.stream, ReduceOptions{Accuracy::correctly_rounded});
      }));
  seg_cases().push_back(f64_case(
      "cub.offsets", "cub::DeviceSegmentedReduce::Sum, f64 into f64, int begin/end offsets",
      [](void* temp, std::size_t& bytes, const seg_args& a) {
        return cub::DeviceSegmentedReduce::Sum(temp, bytes, static_cast<const double*>(a.x),
                                               static_cast<double*>(a.out), a.segments, a.offsets,
                                               a.offsets + 1, a.stream);
      }));
}};

} // namespace
} // namespace tcr::bench
