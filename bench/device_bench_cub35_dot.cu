// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: CCCL 3.5's cub::DeviceReduce::TransformReduce of the products x[i] * y[i] (f32
// accumulator, f64 for f64), default determinism and, through the environment API, not_guaranteed
// (see common/cub35_peer.cuh).
#include "common/cub35_peer.cuh"

namespace tcr::bench {
namespace {

using namespace cub35;

// The environment API (see with_env in common/cub35_peer.cuh).
template <class In, class Determinism>
cudaError_t dot_env(void* temp, std::size_t& bytes, const call_args& a) {
  using Out = result_t<In>;
  const product_at<In> at{static_cast<const In*>(a.x), static_cast<const In*>(a.y)};
  return with_env<Determinism>(temp, bytes, a.stream, [&](const auto& env) {
    return with_offset(a.n, [&](auto n) {
      return cub::DeviceReduce::TransformReduce(thrust::counting_iterator<std::int64_t>(0),
                                                static_cast<Out*>(a.out), n,
                                                ::cuda::std::plus<Out>{}, at, Out(0), env);
    });
  });
}

template <class In>
void add_for() {
  namespace det = ::cuda::execution::determinism;
  const dtype t = dtype_of<In>();
  const std::string fn = "cub::DeviceReduce::TransformReduce of x[i] * y[i]";
  const std::string v = version_note();
  cases().push_back(make(op_kind::dot, t, "cub35", fn + ", two-phase, default determinism" + v,
                         &cub_peer::dot<In>));
  cases().push_back(make(op_kind::dot, t, "cub35.not_guaranteed",
                         fn + ", env: require(determinism::not_guaranteed)" + v,
                         &dot_env<In, det::not_guaranteed_t>));
}

const case_adder add{[] {
  add_for<__half>();
  add_for<__nv_bfloat16>();
  add_for<float>();
  add_for<double>();
}};

} // namespace
} // namespace tcr::bench
