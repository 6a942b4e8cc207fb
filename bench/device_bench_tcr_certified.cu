// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: tcr::DeviceReduce::Sum and Dot into tcr::certified<T> (value and error bound in
// one launch, compensated mode: the magnitudes summed beside the value), for the input types
// whose cost it shows: f32 and f16 Sum (one upward FP64 addition per element), f32 Dot, f64 Sum
// (the double machinery's partials without their compact form). Compare with
// tcr.compensated.automatic of the same op and type. (tcr_accuracy reads the first member of the
// result, the value.)
#include "common/tcr_cases.cuh"

namespace tcr::bench {
namespace {

template <class In, op_kind Op>
void add_for() {
  using T = result_t<In>;
  bench_case c;
  c.op = Op;
  c.type = dtype_of<In>();
  c.method = "tcr.certified.automatic";
  c.note = std::string("tcr::DeviceReduce::") + (Op == op_kind::sum ? "Sum" : "Dot") +
           " into tcr::certified<" + (std::is_same_v<T, double> ? "double" : "float") +
           ">, accuracy compensated, engine automatic (the CUDA cores)";
  c.quick = true;
  c.call = [](void* temp, std::size_t& bytes, const call_args& a) {
    const auto* x = static_cast<const In*>(a.x);
    auto* out = static_cast<certified<T>*>(a.out);
    if constexpr (Op == op_kind::sum)
      return DeviceReduce::Sum(temp, bytes, x, out, a.n, a.stream);
    else
      return DeviceReduce::Dot(temp, bytes, x, static_cast<const In*>(a.y), out, a.n, a.stream);
  };
  cases().push_back(std::move(c));
}

const case_adder add{[] {
  add_for<float, op_kind::sum>();
  add_for<__half, op_kind::sum>();
  add_for<double, op_kind::sum>();
  add_for<float, op_kind::dot>();
}};

} // namespace
} // namespace tcr::bench
