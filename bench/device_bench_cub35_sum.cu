// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: CCCL 3.5's cub::DeviceReduce::Sum (TransformReduce widening to float for f16 /
// bf16) with its default determinism and, through the environment API, not_guaranteed and
// gpu_to_gpu (see common/cub35_peer.cuh).
#include "common/cub35_peer.cuh"

namespace tcr::bench {
namespace {

using namespace cub35;

// The environment API (see with_env in common/cub35_peer.cuh).
template <class In, class Determinism>
cudaError_t sum_env(void* temp, std::size_t& bytes, const call_args& a) {
  using Out = result_t<In>;
  const auto* x = static_cast<const In*>(a.x);
  auto* out = static_cast<Out*>(a.out);
  return with_env<Determinism>(temp, bytes, a.stream, [&](const auto& env) {
    return with_offset(a.n, [&](auto n) {
      if constexpr (std::is_same_v<In, Out>) {
        return cub::DeviceReduce::Sum(x, out, n, env);
      } else {
        return cub::DeviceReduce::TransformReduce(x, out, n, ::cuda::std::plus<Out>{},
                                                  widen_op<In>{}, Out(0), env);
      }
    });
  });
}

template <class In>
void add_for() {
  namespace det = ::cuda::execution::determinism;
  const dtype t = dtype_of<In>();
  const std::string fn = std::is_same_v<In, result_t<In>>
                             ? "cub::DeviceReduce::Sum"
                             : "cub::DeviceReduce::TransformReduce, widen to f32, plus<float>";
  const std::string v = version_note();
  // The classic two-phase API, default determinism: the same call as CUB 3.0.1's peer,
  // compiled against CCCL 3.5.
  cases().push_back(make(op_kind::sum, t, "cub35", fn + ", two-phase, default determinism" + v,
                         &cub_peer::sum<In>));
  cases().push_back(make(op_kind::sum, t, "cub35.not_guaranteed",
                         fn + ", env: require(determinism::not_guaranteed)" + v,
                         &sum_env<In, det::not_guaranteed_t>));
  cases().push_back(make(op_kind::sum, t, "cub35.gpu_to_gpu",
                         fn + ", env: require(determinism::gpu_to_gpu)" + v,
                         &sum_env<In, det::gpu_to_gpu_t>));
}

const case_adder add{[] {
  add_for<__half>();
  add_for<__nv_bfloat16>();
  add_for<float>();
  add_for<double>();
  context_entries().emplace_back("cccl_version", std::to_string(CCCL_VERSION));
  context_entries().emplace_back("cub_version", std::to_string(CUB_VERSION));
}};

} // namespace
} // namespace tcr::bench
