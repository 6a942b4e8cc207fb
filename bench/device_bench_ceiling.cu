// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: the ceiling. The read-only kernel of common/harness.hpp streams the inputs with
// 16-byte loads and does nothing else: no reduction can beat it, so every method is reported as a
// fraction of it. read covers sum, nrm2 and asum (one array), read2 covers dot (two arrays).
#include <cstdint>
#include "common/harness.hpp"
#include "common/registry.hpp"

namespace tcr::bench {
namespace {

cudaError_t read_call(void* temp, std::size_t& temp_bytes, const call_args& a, dtype t, bool two) {
  if (!temp) {
    temp_bytes = sizeof(unsigned); // the sink
    return cudaSuccess;
  }
  // Inputs come from cudaMalloc at 256-byte offsets: 16-byte aligned.
  const std::size_t bytes = static_cast<std::size_t>(a.n) * size_of(t);
  return read_only(a.x, two ? a.y : nullptr, bytes, static_cast<unsigned*>(temp), a.stream);
}

const case_adder add{[] {
  for (dtype t : all_dtypes) {
    for (bool two : {false, true}) {
      bench_case c;
      c.op = two ? op_kind::read2 : op_kind::read;
      c.type = t;
      c.method = "ceiling";
      c.note = "read-only kernel, 16-byte loads, no arithmetic";
      c.call = [t, two](void* temp, std::size_t& bytes, const call_args& a) {
        return read_call(temp, bytes, a, t, two);
      };
      cases().push_back(std::move(c));
    }
  }
}};

} // namespace
} // namespace tcr::bench
