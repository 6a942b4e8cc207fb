// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: the ceiling of the segmented and batched cases, the read-only kernel of
// common/harness.hpp over the same bytes: the whole array of a uniform or power-law workload
// (one point per type and scale: segment boundaries do not change what is read), both arrays
// of the pointer-array and strided dot batches, the array of the strided nrm2 batch. It reads
// the span the segments lie in, alignment padding between pointer-array vectors included, and
// counts those bytes.
#include "common/harness.hpp"
#include "common/seg_registry.hpp"

namespace tcr::bench {
namespace {

cudaError_t read_call(void* temp, std::size_t& temp_bytes, const seg_args& a, dtype t, bool two) {
  if (!temp) {
    temp_bytes = sizeof(unsigned); // the sink
    return cudaSuccess;
  }
  return read_only(a.x, two ? a.y : nullptr, static_cast<std::size_t>(a.span) * size_of(t),
                   static_cast<unsigned*>(temp), a.stream);
}

seg_case read_case(dtype t, workload w, const char* form, bool two, std::vector<int> sizes,
                   std::vector<int> scales) {
  seg_case c;
  c.impl = "read";
  c.type = t;
  c.load = w;
  c.form = form;
  c.two = two;
  c.span = true;
  c.note = two ? "read-only kernel over both arrays, 16-byte loads, no arithmetic"
               : "read-only kernel over the array, 16-byte loads, no arithmetic";
  c.sizes = std::move(sizes);
  c.scales = std::move(scales);
  c.call = [t, two](void* temp, std::size_t& bytes, const seg_args& a) {
    return read_call(temp, bytes, a, t, two);
  };
  return c;
}

const case_adder add{[] {
  for (dtype t : {dtype::f32, dtype::f16, dtype::bf16})
    seg_cases().push_back(read_case(t, workload::uniform, "sum", false, {0}, uniform_scales(t)));
  seg_cases().push_back(read_case(dtype::e4m3, workload::uniform, "sum", false, {0}, {26}));
  seg_cases().push_back(read_case(dtype::f64, workload::uniform, "sum", false, {0}, {26}));
  seg_cases().push_back(
      read_case(dtype::f32, workload::powerlaw, "sum.powerlaw", false, {-1}, {powerlaw_scale}));
  seg_cases().push_back(
      read_case(dtype::f32, workload::pointers, "dot.pointers", true, {-1}, {batch_scale}));
  seg_cases().push_back(
      read_case(dtype::f32, workload::strided, "dot.strided", true, {strided_size}, {batch_scale}));
  seg_cases().push_back(read_case(dtype::f32, workload::strided, "nrm2.strided", false,
                                  {strided_size}, {batch_scale}));
}};

} // namespace
} // namespace tcr::bench
