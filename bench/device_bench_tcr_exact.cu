// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: tcr::DeviceReduce::Sum, Asum, Dot and Nrm2 in the exact modes
// (Accuracy::correctly_rounded and Accuracy::reproducible, which run the same exact
// accumulation), for every input type (Dot and Nrm2: not f64, which has no exact path).
#include "common/tcr_cases.cuh"

namespace tcr::bench {
namespace {

template <class In>
void add_for() {
  using Out = result_t<In>;
  for (Accuracy acc : {Accuracy::correctly_rounded, Accuracy::reproducible}) {
    for (op_kind op : {op_kind::sum, op_kind::asum, op_kind::dot, op_kind::nrm2}) {
      if (std::is_same_v<In, double> && (op == op_kind::dot || op == op_kind::nrm2))
        continue;
      bench_case c;
      c.op = op;
      c.type = dtype_of<In>();
      c.method = std::string("tcr.") + tcr_cases::name(acc) + ".automatic";
      const char* fn = op == op_kind::sum    ? "Sum"
                       : op == op_kind::asum ? "Asum"
                       : op == op_kind::dot  ? "Dot"
                                             : "Nrm2";
      c.note = std::string("tcr::DeviceReduce::") + fn + ", accuracy " + tcr_cases::name(acc) +
               ", engine automatic (the CUDA cores)";
      // Both modes run the same kernel: only correctly_rounded in the quick run.
      c.quick = acc == Accuracy::correctly_rounded;
      const ReduceOptions options{acc, Engine::automatic};
      c.call = [options, op](void* temp, std::size_t& bytes, const call_args& a) {
        const auto* x = static_cast<const In*>(a.x);
        auto* out = static_cast<Out*>(a.out);
        switch (op) {
        case op_kind::sum:
          return DeviceReduce::Sum(temp, bytes, x, out, a.n, a.stream, options);
        case op_kind::asum:
          return DeviceReduce::Asum(temp, bytes, x, out, a.n, a.stream, options);
        case op_kind::dot:
          return DeviceReduce::Dot(temp, bytes, x, static_cast<const In*>(a.y), out, a.n, a.stream,
                                   options);
        default:
          return DeviceReduce::Nrm2(temp, bytes, x, out, a.n, a.stream, options);
        }
      };
      cases().push_back(std::move(c));
    }
  }
}

// Plan variants of the exact Sum, to choose exact_plan from a run: "tcr.correctly_rounded.u<U>"
// (f64: the multi-block kernel's unroll, 16-byte vectors in flight per thread) and ".grid16k"
// (f32, f64, f16: the grid from 16 KB on, not the one-block kernel up to 64 KB). They call
// internals of reduce/device.cuh (detail::device::launch, exact_plan).
namespace dk = detail::device;
// U: the multi-block kernel's unroll; OneBlock16K: the one-block kernel only up to 16 KB (unroll
// 4), the grid beyond, as before exact_plan's 64 KB one-block kernel.
template <class R, int U, bool OneBlock16K>
struct exact_plan_variant {
  static constexpr dk::launch_plan value = [] {
    dk::launch_plan p = dk::exact_plan<dk::op_kind::sum, R>::value;
    if (U > 0)
      p.unroll = U;
    if (OneBlock16K) {
      p.one_block_bytes = 64;
      p.one_block_unroll = 4;
    }
    return p;
  }();
};
template <class In, int U, bool OneBlock16K>
void add_exact_variant(const std::string& suffix) {
  using Out = result_t<In>;
  using Acc = typename dk::exact_accumulator_of<dk::op_kind::sum, In, In, Out>::type;
  using R = dk::reduction<Acc, In, void, Out, false>;
  bench_case c;
  c.op = op_kind::sum;
  c.type = dtype_of<In>();
  c.method = "tcr.correctly_rounded." + suffix;
  c.note = "tcr::DeviceReduce::Sum, accuracy correctly_rounded, plan variant " + suffix;
  c.call = [](void* temp, std::size_t& bytes, const call_args& a) {
    return dk::launch<dk::op_kind::sum, R, dk::engine_kind::cuda_core,
                      exact_plan_variant<R, U, OneBlock16K>>(
        temp, bytes,
        dk::params_for<R>(static_cast<const In*>(a.x), static_cast<const In*>(a.x),
                          static_cast<Out*>(a.out), a.n),
        a.stream, Acc{});
  };
  cases().push_back(std::move(c));
}

const case_adder add{[] {
  for_each_input_type([](auto t) { add_for<decltype(t)>(); });
  add_exact_variant<double, 4, false>("u4");
  add_exact_variant<double, 8, false>("u8");
  add_exact_variant<float, 0, true>("grid16k");
  add_exact_variant<double, 0, true>("grid16k");
  add_exact_variant<__half, 0, true>("grid16k");
}};

} // namespace
} // namespace tcr::bench
