// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: CUB's Sum / Reduce / TransformReduce as the peer of tcr's Sum and Asum.
#include "common/cub_peer.cuh"

namespace tcr::bench {
namespace {

template <class In>
void add_for() {
  using namespace cub_peer;
  constexpr bool wide = std::is_same_v<In, result_t<In>>;
  cases().push_back(make<In>(op_kind::sum, "cub",
                             wide ? "cub::DeviceReduce::Sum"
                                  : "cub::DeviceReduce::TransformReduce, widen to f32, plus<float>",
                             &sum<In>));
  if constexpr (std::is_same_v<In, __half> || std::is_same_v<In, __nv_bfloat16>) {
    cases().push_back(make<In>(op_kind::sum, "cub.reduce",
                               "cub::DeviceReduce::Reduce, plus<float>, init 0.0f",
                               &sum_reduce<In>));
  }
  cases().push_back(
      make<In>(op_kind::asum, "cub", "cub::DeviceReduce::TransformReduce of |x|", &asum<In>));
}

const case_adder add{[] {
  for_each_input_type([](auto t) { add_for<decltype(t)>(); });
  context_entries().emplace_back("cccl_version", std::to_string(CCCL_VERSION));
}};

} // namespace
} // namespace tcr::bench
