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

const case_adder add{[] {
  add_for<__nv_fp8_e4m3>();
  add_for<__nv_fp8_e5m2>();
  add_for<__half>();
  add_for<__nv_bfloat16>();
  add_for<float>();
  add_for<double>();
}};

} // namespace
} // namespace tcr::bench
