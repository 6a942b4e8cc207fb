// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: the old tree's tcr::DeviceReduce::Sum for every input type, compensated and
// fast, automatic engine (common/old_cases.cuh).
#include "common/old_cases.cuh"

namespace tcr::bench {
namespace {

template <class In>
void add_for() {
  using Out = result_t<In>;
  old_cases::add_all<In>(
      op_kind::sum, "Sum",
      [](void* temp, std::size_t& bytes, const call_args& a, tcr_old::ReduceOptions o) {
        return tcr_old::DeviceReduce::Sum(temp, bytes, static_cast<const In*>(a.x),
                                          static_cast<Out*>(a.out), a.n, a.stream, o);
      });
}

const case_adder add{[] {
  for_each_input_type([](auto t) { add_for<decltype(t)>(); });
  context_entries().emplace_back("tcr_old_source", TCR_BENCH_OLD_SOURCE_PATH);
}};

} // namespace
} // namespace tcr::bench
