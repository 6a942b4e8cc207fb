// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: tcr::DeviceReduce::Sum, Asum, Dot and Nrm2 in the exact modes
// (Accuracy::correctly_rounded and Accuracy::reproducible, which run the same exact
// accumulation), for every input type.
#include "common/tcr_cases.cuh"

namespace tcr::bench {
namespace {

template <class In>
void add_for() {
  using Out = result_t<In>;
  for (Accuracy acc : {Accuracy::correctly_rounded, Accuracy::reproducible}) {
    for (op_kind op : {op_kind::sum, op_kind::asum, op_kind::dot, op_kind::nrm2}) {
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

// Plan variants of the exact modes, to choose exact_plan from a run: "tcr.correctly_rounded.
// ob<K>k.u<U>": the one-block kernel up to K KB of the wider operand, with U 16-byte vectors per
// operand in flight per thread (the grid beyond). They call internals of reduce/device.cuh
// (detail::device::launch, exact_plan).
namespace dk = detail::device;
template <class R, int OneBlockBytes, int OneBlockUnroll>
struct exact_plan_variant {
  static constexpr dk::launch_plan value = [] {
    dk::launch_plan p = dk::exact_plan<dk::op_kind::sum, R>::value;
    p.one_block_bytes = OneBlockBytes;
    p.one_block_unroll = OneBlockUnroll;
    return p;
  }();
};
template <op_kind Op, class In, int OneBlockBytes, int OneBlockUnroll>
void add_exact_variant() {
  using Out = result_t<In>;
  constexpr dk::op_kind DOp = Op == op_kind::dot ? dk::op_kind::dot : dk::op_kind::nrm2;
  using Acc = typename dk::exact_accumulator_of<DOp, In, In, Out>::type;
  constexpr bool binary = Op == op_kind::dot;
  using R = dk::reduction<Acc, In, std::conditional_t<binary, In, void>, Out, false>;
  using Plan = exact_plan_variant<R, OneBlockBytes, OneBlockUnroll>;
  bench_case c;
  c.op = Op;
  c.type = dtype_of<In>();
  const std::string suffix =
      "ob" + std::to_string(OneBlockBytes * dk::exact_threads_of<Acc>::value / 1024) + "k.u" +
      std::to_string(OneBlockUnroll);
  c.method = "tcr.correctly_rounded." + suffix;
  c.note = std::string("tcr::DeviceReduce::") + (binary ? "Dot" : "Nrm2") +
           ", accuracy correctly_rounded, plan variant " + suffix;
  c.call = [](void* temp, std::size_t& bytes, const call_args& a) {
    return dk::launch<DOp, R, dk::engine_kind::cuda_core, Plan>(
        temp, bytes,
        dk::params_for<R>(static_cast<const In*>(a.x), static_cast<const In*>(a.y),
                          static_cast<Out*>(a.out), a.n),
        a.stream, Acc{});
  };
  cases().push_back(std::move(c));
}

// Sum / Asum with another exact accumulator Acc (a candidate for the default), the default plan:
// "tcr.correctly_rounded.<suffix>". The bfloat16 float bins (detail::exact_bins_bf16_float,
// "fbins") and the f64 single rows (binned_exact_sum_f64<256, false>, "rows1"; the default
// pairs them).
template <op_kind Op, class In, class Acc>
void add_accumulator_variant(const char* suffix, const char* what) {
  using Out = result_t<In>;
  constexpr dk::op_kind DOp = Op == op_kind::asum ? dk::op_kind::asum : dk::op_kind::sum;
  using R = dk::reduction<Acc, In, void, Out, Op == op_kind::asum>;
  bench_case c;
  c.op = Op;
  c.type = dtype_of<In>();
  c.method = std::string("tcr.correctly_rounded.") + suffix;
  c.note = std::string("tcr::DeviceReduce::") + (Op == op_kind::asum ? "Asum" : "Sum") +
           ", accuracy correctly_rounded, " + what + " (variant)";
  c.call = [](void* temp, std::size_t& bytes, const call_args& a) {
    return dk::launch<DOp, R, dk::engine_kind::cuda_core, dk::exact_plan<DOp, R>>(
        temp, bytes,
        dk::params_for<R>(static_cast<const In*>(a.x), static_cast<const In*>(a.x),
                          static_cast<Out*>(a.out), a.n),
        a.stream, Acc{});
  };
  cases().push_back(std::move(c));
}
template <op_kind Op>
void add_accumulator_variants() {
  add_accumulator_variant<Op, __nv_bfloat16,
                          binned_exact_sum<__nv_bfloat16, 256, detail::exact_bins_bf16_float>>(
      "fbins", "bfloat16 in float bins");
  add_accumulator_variant<Op, double, binned_exact_sum_f64<256, false>>("rows1",
                                                                        "double in single rows");
}

// The f64 Sum with other grid spreads: at most max(Floor, bytes / (SpreadKB KB)) blocks
// ("tcr.correctly_rounded.s<SpreadKB>k.f<Floor>"; the default, exact_plan's, is s64k.f128), since
// the last block merges every block's 66-limb partial (how exact_plan's was chosen).
template <class R, int SpreadKB, int Floor>
struct spread_plan_variant {
  static constexpr dk::launch_plan value = [] {
    dk::launch_plan p = dk::exact_plan<dk::op_kind::sum, R>::value;
    p.spread_bytes = std::int64_t(SpreadKB) << 10;
    p.spread_floor = Floor;
    return p;
  }();
};
template <int SpreadKB, int Floor>
void add_spread_variant() {
  using Acc = typename dk::exact_accumulator_of<dk::op_kind::sum, double, double, double>::type;
  using R = dk::reduction<Acc, double, void, double, false>;
  using Plan = spread_plan_variant<R, SpreadKB, Floor>;
  bench_case c;
  c.op = op_kind::sum;
  c.type = dtype::f64;
  const std::string suffix = "s" + std::to_string(SpreadKB) + "k.f" + std::to_string(Floor);
  c.method = "tcr.correctly_rounded." + suffix;
  c.note = "tcr::DeviceReduce::Sum, accuracy correctly_rounded, plan variant " + suffix;
  c.call = [](void* temp, std::size_t& bytes, const call_args& a) {
    return dk::launch<dk::op_kind::sum, R, dk::engine_kind::cuda_core, Plan>(
        temp, bytes,
        dk::params_for<R>(static_cast<const double*>(a.x), static_cast<const double*>(a.x),
                          static_cast<double*>(a.out), a.n),
        a.stream, Acc{});
  };
  cases().push_back(std::move(c));
}

// A path of the exact modes forced where the default would take another, to compare in one run:
// "tcr.correctly_rounded.exactonly", the exact pass alone where the default certifies a
// double-word result first (Sum, Asum, Dot, Nrm2 of the float-range types, of doubles and mixed;
// detail::device::certify_first_enabled), and "tcr.correctly_rounded.nocluster", certify first
// without the thread-block cluster of mid sizes, as on a GPU without clusters
// (detail::device::certify_cluster_enabled).
template <class In>
void add_forced(const char* suffix, const char* what, void (*force)(bool)) {
  using Out = result_t<In>;
  for (op_kind op : {op_kind::sum, op_kind::asum, op_kind::dot, op_kind::nrm2}) {
    bench_case c;
    c.op = op;
    c.type = dtype_of<In>();
    c.method = std::string("tcr.correctly_rounded.") + suffix;
    c.note = std::string("tcr::DeviceReduce::") +
             (op == op_kind::sum    ? "Sum"
              : op == op_kind::asum ? "Asum"
              : op == op_kind::dot  ? "Dot"
                                    : "Nrm2") +
             ", accuracy correctly_rounded, " + what;
    c.call = [op, force](void* temp, std::size_t& bytes, const call_args& a) {
      const ReduceOptions options{Accuracy::correctly_rounded, Engine::automatic};
      const auto* x = static_cast<const In*>(a.x);
      auto* out = static_cast<Out*>(a.out);
      force(true);
      cudaError_t e = cudaErrorNotSupported;
      if (op == op_kind::sum)
        e = DeviceReduce::Sum(temp, bytes, x, out, a.n, a.stream, options);
      else if (op == op_kind::asum)
        e = DeviceReduce::Asum(temp, bytes, x, out, a.n, a.stream, options);
      else if (op == op_kind::dot)
        e = DeviceReduce::Dot(temp, bytes, x, static_cast<const In*>(a.y), out, a.n, a.stream,
                              options);
      else
        e = DeviceReduce::Nrm2(temp, bytes, x, out, a.n, a.stream, options);
      force(false);
      return e;
    };
    cases().push_back(std::move(c));
  }
}
template <class In>
void add_exact_only() {
  add_forced<In>("exactonly", "the exact pass alone (no certify-first)",
                 [](bool on) { dk::certify_first_enabled = !on; });
}
template <class In>
void add_no_cluster() {
  add_forced<In>("nocluster", "certify first without the thread-block cluster",
                 [](bool on) { dk::certify_cluster_enabled = !on; });
}

const case_adder add{[] {
  for_each_input_type([](auto t) { add_for<decltype(t)>(); });
  // Nrm2 (128 threads; default: 32 KB, unroll 16): 64 KB in two or one rounds.
  add_exact_variant<op_kind::nrm2, float, 512, 16>();
  add_exact_variant<op_kind::nrm2, float, 512, 32>();
  // Dot (128 threads; default: 8 KB per operand, unroll 4): 32 KB and 64 KB.
  add_exact_variant<op_kind::dot, float, 256, 8>();
  add_exact_variant<op_kind::dot, float, 512, 8>();
  add_exact_variant<op_kind::dot, float, 512, 16>();
  add_accumulator_variants<op_kind::sum>();
  add_accumulator_variants<op_kind::asum>();
  add_spread_variant<32, 128>();
  add_spread_variant<64, 64>();
  add_spread_variant<128, 32>();
  add_exact_only<float>();
  add_exact_only<__half>();
  add_exact_only<__nv_bfloat16>();
  add_exact_only<__nv_fp8_e4m3>();
  add_exact_only<double>();
  add_no_cluster<float>();
  add_no_cluster<__nv_bfloat16>();
  add_no_cluster<double>();
}};

} // namespace
} // namespace tcr::bench
