// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: launch-plan variants of tcr's compensated device kernel (not part of the
// default build: -DTCR_BENCH_TUNING=ON builds tcr_tuning_bench). Each case is the library's own
// launch (detail::device::launch on the CUDA-core engine) with the plan of
// detail::device::plan_for but another unroll depth U, the vectors each thread has in flight per
// operand in the multi-block kernel. The method is "tune.u<U>" ("tune64.u<U>" for a double
// result of a float input). Used to choose the plan table from measurements
// (bench/results/2026-11-30-h200-tuning/); the peers come from the same table. It calls
// internals of reduce/device.cuh (detail::device::launch, reduction_for, plan_for).
#include <string>
#include "common/registry.hpp"
#include <tcr/reduce/device.cuh>

namespace tcr::bench {
namespace {

namespace dk = detail::device;

template <dk::op_kind Op, class R, int U>
struct plan_with_unroll {
  static constexpr dk::launch_plan value = [] {
    dk::launch_plan p = dk::plan_for<Op, R>();
    p.unroll = U;
    return p;
  }();
};

template <dk::op_kind Op, class In, class Out, int U>
void add_variant(op_kind op) {
  using R = typename dk::reduction_for<Op, In, In, Out>::type;
  const bool wider = !std::is_same_v<Out, result_t<In>>;
  bench_case c;
  c.op = op;
  c.type = dtype_of<In>();
  c.method = std::string(wider ? "tune64" : "tune") + ".u" + std::to_string(U);
  c.note = "tcr compensated, CUDA cores, " + std::to_string(U) + " vectors in flight";
  c.call = [](void* temp, std::size_t& bytes, const call_args& a) {
    const auto* x = static_cast<const In*>(a.x);
    const auto* y = static_cast<const In*>(Op == dk::op_kind::dot ? a.y : a.x);
    return dk::launch<Op, R, dk::engine_kind::cuda_core, plan_with_unroll<Op, R, U>>(
        temp, bytes, dk::params_for<R>(x, y, static_cast<Out*>(a.out), a.n), a.stream,
        typename R::accumulator{});
  };
  cases().push_back(std::move(c));
}

template <dk::op_kind Op, class In, class Out = result_t<In>>
struct variants {
  op_kind op;
  template <int U>
  variants& add() {
    add_variant<Op, In, Out, U>(op);
    return *this;
  }
};

const case_adder add{[] {
  variants<dk::op_kind::sum, float>{op_kind::sum}.add<4>().add<8>();
  variants<dk::op_kind::sum, __half>{op_kind::sum}.add<4>().add<8>();
  variants<dk::op_kind::sum, double>{op_kind::sum}.add<4>().add<2>();
  variants<dk::op_kind::nrm2, double>{op_kind::nrm2}.add<4>().add<8>().add<2>();
  variants<dk::op_kind::dot, double>{op_kind::dot}.add<2>().add<4>().add<6>();
  variants<dk::op_kind::dot, float>{op_kind::dot}.add<2>().add<4>();
  variants<dk::op_kind::dot, float, double>{op_kind::dot}.add<2>().add<4>();
}};

} // namespace
} // namespace tcr::bench
