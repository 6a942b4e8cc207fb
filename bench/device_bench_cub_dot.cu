// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: CUB's TransformReduce as the peer of tcr's Dot and Nrm2 (CUB has neither).
#include "common/cub_peer.cuh"

namespace tcr::bench {
namespace {

template <class In>
void add_for() {
  using namespace cub_peer;
  cases().push_back(make<In>(op_kind::dot, "cub",
                             "cub::DeviceReduce::TransformReduce over indices of x[i] * y[i]",
                             &dot<In>));
  cases().push_back(make<In>(op_kind::nrm2, "cub",
                             "cub::DeviceReduce::TransformReduce of x^2 (the sqrt is not timed)",
                             &nrm2_squared<In>, /*squared=*/true));
}

const case_adder add{[] { for_each_input_type([](auto t) { add_for<decltype(t)>(); }); }};

} // namespace
} // namespace tcr::bench
